import { AppError, grpcClient, type ServiceIdentity } from '@coffer/common';
import { auth, type common } from '@coffer/proto';

/** Where and how to address the owner of an account. */
export interface AccountContact {
  email: string;
  name: string;
}

/**
 * The little notification needs to know about an account (auth owns accounts): its address and
 * name. Null means there is no such account (deleted since the event): nobody to mail. Any other
 * failure rejects, so the event is retried.
 */
export interface AccountDirectory {
  contact(userId: string): Promise<AccountContact | null>;
}

type AccountStateCall = (req: common.UserRef, opts?: { timeoutMs?: number }) => Promise<auth.AccountState>;

/** AccountDirectory over auth's GetAccountState. */
export function accountDirectory(getAccountState: AccountStateCall): AccountDirectory {
  return {
    async contact(userId) {
      try {
        const account = await getAccountState({ userId }, { timeoutMs: 5_000 });
        return { email: account.email, name: account.name };
      } catch (err) {
        // NOT_FOUND: the account is gone. BAD_INPUT: the id is not one auth could ever have issued.
        // Neither gets better with retries.
        if (err instanceof AppError && (err.kind === 'NOT_FOUND' || err.kind === 'BAD_INPUT')) return null;
        throw err;
      }
    },
  };
}

/** The directory backed by a gRPC client of auth at `address` (AUTH_GRPC). */
export function authAccountDirectory(
  address: string,
  identity: ServiceIdentity,
): AccountDirectory & { close(): void } {
  const client = grpcClient(auth.AuthServiceClient, address, { identity, callee: 'auth' });
  return {
    ...accountDirectory((req, opts) => client.getAccountState(req, opts)),
    close: () => client.close(),
  };
}
