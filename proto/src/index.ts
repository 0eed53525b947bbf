// Generated gRPC contracts, one namespace per service (see proto/coffer/*.proto).
export * as common from './gen/coffer/common.js';
export * as auth from './gen/coffer/auth.js';
export * as notification from './gen/coffer/notification.js';
export * as audit from './gen/coffer/audit.js';
export * as health from './gen/grpc/health/v1/health.js';
export * as orchestrator from './gen/coffer/orchestrator.js';
export * as schedule from './gen/coffer/schedule.js';
export * as storage from './gen/coffer/storage.js';
export * as kb from './gen/coffer/kb.js';
export { ChunkFramer, StorageBlobClient, StorageBlobWire } from './blob-wire.js';
