import { grpcClient, type ServiceIdentity } from '@coffer/common';
import { audit, auth, kb, notification, orchestrator, StorageBlobClient } from '@coffer/proto';
import type { GatewayConfig } from './config.js';

/** gRPC clients of the services behind the gateway. */
export function serviceClients(config: GatewayConfig, identity: ServiceIdentity) {
  return {
    auth: grpcClient(auth.AuthServiceClient, config.AUTH_GRPC, { identity, callee: 'auth' }),
    notification: grpcClient(notification.NotificationServiceClient, config.NOTIFICATION_GRPC, {
      identity,
      callee: 'notification',
    }),
    audit: grpcClient(audit.AuditServiceClient, config.AUDIT_GRPC, { identity, callee: 'audit' }),
    orchestrator: grpcClient(orchestrator.OrchestratorServiceClient, config.ORCHESTRATOR_GRPC, {
      identity,
      callee: 'backup-orchestrator',
    }),
    // Backups pass through this client: its codec spares two copies of every chunk.
    storage: grpcClient(StorageBlobClient, config.STORAGE_GRPC, { identity, callee: 'storage' }),
    kb: grpcClient(kb.KbServiceClient, config.KB_GRPC, { identity, callee: 'kb' }),
  };
}
export type Clients = ReturnType<typeof serviceClients>;

export function closeClients(clients: Clients) {
  for (const c of Object.values(clients)) c.close();
}
