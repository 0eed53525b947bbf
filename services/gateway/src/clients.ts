import { grpcClient } from '@coffer/common';
import { audit, auth, kb, notification, orchestrator, StorageBlobClient } from '@coffer/proto';
import type { GatewayConfig } from './config.js';

/** gRPC clients of the services behind the gateway. */
export function serviceClients(config: GatewayConfig) {
  return {
    auth: grpcClient(auth.AuthServiceClient, config.AUTH_GRPC),
    notification: grpcClient(notification.NotificationServiceClient, config.NOTIFICATION_GRPC),
    audit: grpcClient(audit.AuditServiceClient, config.AUDIT_GRPC),
    orchestrator: grpcClient(orchestrator.OrchestratorServiceClient, config.ORCHESTRATOR_GRPC),
    // Backups pass through this client: its codec spares two copies of every chunk.
    storage: grpcClient(StorageBlobClient, config.STORAGE_GRPC),
    kb: grpcClient(kb.KbServiceClient, config.KB_GRPC),
  };
}
export type Clients = ReturnType<typeof serviceClients>;

export function closeClients(clients: Clients) {
  for (const c of Object.values(clients)) c.close();
}
