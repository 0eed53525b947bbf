import { z } from 'zod';
import type { ProgressInfo } from '@coffer/common';

/** The agent protocol of docs/agent-protocol.md, validated at the edge like every other input. */
const id = z.string().regex(/^[0-9a-f]{24}$/i, 'must be a 24-hex id');
const name = z.string().trim().min(1).max(120);

export const handshake = z.object({
  apiKey: z.string().min(1).max(200),
  instanceId: z.string().min(8).max(100),
  name: name,
  hostname: z.string().max(255).default(''),
  platform: z.string().max(100).default(''),
  version: z.string().max(50).default(''),
  databases: z.array(name).max(1000).default([]),
});

export const progress = z.object({
  current: z.number().nonnegative(),
  total: z.number().nonnegative(),
  percentage: z.number().min(0).max(100),
  collection: z.string().max(300),
});

export const agentEvents = {
  heartbeat: z.object({ runningJobs: z.array(id).max(100), databases: z.array(name).max(1000) }),
  'backup:progress': z.object({ backupId: id, progress }),
  'backup:failed': z.object({ backupId: id, error: z.string().max(4000) }),
  'restore:started': z.object({ restoreId: id }),
  'restore:progress': z.object({ restoreId: id, progress }),
  'restore:completed': z.object({
    restoreId: id,
    documentsRestored: z.number().int().nonnegative(),
    documentsFailed: z.number().int().nonnegative(),
  }),
  'restore:failed': z.object({ restoreId: id, error: z.string().max(4000) }),
  'agent:update': z.object({
    status: z.enum(['updated', 'current', 'failed']),
    fromVersion: z.string().max(50),
    toVersion: z.string().max(50),
    error: z.string().max(4000).optional(),
  }),
};
export type AgentEventName = keyof typeof agentEvents;

export type Ack = (answer: { ok: true } | { ok: false; error: string }) => void;

export interface CommandMessage {
  commandId: string;
  kind: string;
  jobId?: string;
  databaseName?: string;
}

/** Socket.IO typing of the `/agents` namespace. */
export interface AgentToGateway {
  heartbeat: (p: unknown) => void;
  'backup:progress': (p: unknown) => void;
  'backup:failed': (p: unknown, ack?: Ack) => void;
  'restore:started': (p: unknown, ack?: Ack) => void;
  'restore:progress': (p: unknown) => void;
  'restore:completed': (p: unknown, ack?: Ack) => void;
  'restore:failed': (p: unknown, ack?: Ack) => void;
  'agent:update': (p: unknown, ack?: Ack) => void;
}
export interface GatewayToAgent {
  registered: (p: { agentId: string; databases: Array<{ name: string; isActive: boolean }> }) => void;
  command: (c: CommandMessage, ack: (answer: { accepted: boolean; error?: string }) => void) => void;
}
export interface AgentSocketData {
  userId: string;
  agentId: string;
  databases: Array<{ name: string; isActive: boolean }>;
}
export type { ProgressInfo };
