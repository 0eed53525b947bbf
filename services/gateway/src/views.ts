import { z } from 'zod';
import type { auth } from '@coffer/proto';

/** REST shapes of spec §3/§7, declared once: they document the API and shape every answer. */
export const userView = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    role: z.string(),
    apiKey: z.string(),
    isBanned: z.boolean(),
    banReason: z.string().nullable(),
    bannedAt: z.string().nullable(),
  })
  .meta({ id: 'User' });

export const planView = z
  .object({
    _id: z.string(),
    name: z.string(),
    price: z.number(),
    popular: z.boolean(),
    dbLimit: z.number(),
    retentionLimit: z.number().describe('hours'),
    storageLimit: z.number().describe('bytes'),
    frequencyLimit: z.number().describe('hours'),
    features: z.array(z.object({ text: z.string() })),
  })
  .meta({ id: 'Plan' });

export const profileView = z
  .object({
    _id: z.string(),
    name: z.string(),
    email: z.string(),
    plan: z.string().describe('plan id'),
    storageUsed: z.number().describe('bytes'),
    apiKey: z.string(),
    role: z.string(),
  })
  .meta({ id: 'Profile' });

export const adminUserView = z
  .object({
    _id: z.string(),
    email: z.string(),
    name: z.string(),
    role: z.string(),
    status: z.string(),
    plan: z.string(),
    isBanned: z.boolean(),
    banReason: z.string().nullable(),
    bannedAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'AdminUser' });

export const toUser = (u: auth.User | undefined): z.input<typeof userView> => ({
  id: u?.id ?? '',
  email: u?.email ?? '',
  name: u?.name ?? '',
  role: u?.role ?? 'user',
  apiKey: u?.apiKey ?? '',
  isBanned: u?.isBanned ?? false,
  banReason: u?.banReason ?? null,
  bannedAt: u?.bannedAt ?? null,
});

export const toPlan = (p: auth.Plan): z.input<typeof planView> => ({ _id: p.id, ...p });

export const toProfile = (p: auth.Profile, storageUsed: number): z.input<typeof profileView> => ({
  _id: p.id,
  name: p.name,
  email: p.email,
  plan: p.plan,
  storageUsed,
  apiKey: p.apiKey,
  role: p.role,
});

export const toAdminUser = (u: auth.AdminUser): z.input<typeof adminUserView> => ({
  _id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  status: u.status,
  plan: u.plan,
  isBanned: u.isBanned,
  banReason: u.banReason ?? null,
  bannedAt: u.bannedAt ?? null,
  createdAt: u.createdAt,
});
