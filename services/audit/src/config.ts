import { z } from 'zod';
import { baseEnv, defaultGrpc, loadConfig } from '@coffer/common';

/** The database setting, all the migrate step (migrate.ts) reads besides MONGODB_URI. */
export const auditDbEnv = { AUDIT_DB: z.string().min(1).default('coffer_audit') };

const schema = z.object({
  ...baseEnv,
  GRPC_LISTEN: z.string().default(defaultGrpc.audit),
  ...auditDbEnv,
});

export type AuditConfig = z.infer<typeof schema>;
export const loadAuditConfig = () => loadConfig('audit', schema);
