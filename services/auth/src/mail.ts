import { randomUUID } from 'node:crypto';
import { grpcClient, type ServiceIdentity } from '@coffer/common';
import { notification } from '@coffer/proto';

/**
 * The security mails auth asks notification to send. They go through a gRPC call, never an event:
 * a reset link in a persisted stream could be read by anyone with access to NATS for days.
 */
export interface AuthMail {
  passwordReset(d: { userId: string; email: string; name: string; resetUrl: string }): Promise<void>;
  /** To the previous account address, after the account's e-mail changed. */
  accountEmailChanged(d: {
    userId: string;
    previousEmail: string;
    newEmail: string;
    name: string;
  }): Promise<void>;
}

export function notificationMail(address: string, identity: ServiceIdentity): AuthMail & { close(): void } {
  const client = grpcClient(notification.NotificationServiceClient, address, {
    identity,
    callee: 'notification',
  });
  return {
    async passwordReset(d) {
      // One id per request: a retry of this call inside notification sends the mail once.
      await client.sendPasswordReset({ ...d, requestId: randomUUID() }, { timeoutMs: 15_000 });
    },
    async accountEmailChanged(d) {
      await client.sendAccountEmailChanged({ ...d, requestId: randomUUID() }, { timeoutMs: 15_000 });
    },
    close: () => client.close(),
  };
}
