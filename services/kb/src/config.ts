import { z } from 'zod';
import { baseEnv, defaultGrpc, grpcAddress, loadConfig } from '@coffer/common';

/** The database setting, all the migrate step (migrate.ts) reads besides MONGODB_URI. */
export const kbDbEnv = { KB_DB: z.string().min(1).default('coffer_kb') };

const schema = z.object({
  ...baseEnv,
  GRPC_LISTEN: z.string().default(defaultGrpc.kb),
  ...kbDbEnv,
  /** Auth, which says who an article write acts for (VerifyAdmin). */
  AUTH_GRPC: grpcAddress(defaultGrpc.auth),
  /** Folder of the articles written on first start; default: the `seed` folder shipped with the service. */
  KB_SEED_DIR: z.string().min(1).optional(),
  /** false: start with an empty knowledge base (an operator who writes their own). */
  KB_SEED: z.stringbool().default(true),
});

export type KbConfig = z.infer<typeof schema>;
export const loadKbConfig = () => loadConfig('kb', schema);
