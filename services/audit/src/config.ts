import { z } from 'zod';
import { baseEnv, defaultGrpc, loadConfig } from '@coffer/common';

const schema = z.object({
  ...baseEnv,
  GRPC_LISTEN: z.string().default(defaultGrpc.audit),
  AUDIT_DB: z.string().min(1).default('coffer_audit'),
});

export type AuditConfig = z.infer<typeof schema>;
export const loadAuditConfig = () => loadConfig('audit', schema);
