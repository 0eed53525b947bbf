import { auth } from '@coffer/proto';

/** An active account as auth's GetAccountState answers it (Ada, a user, session version 0); `over` changes fields. */
export const activeAccount = (over: Partial<auth.AccountState> = {}): auth.AccountState => ({
  userId: '64b7f0c2a1b2c3d4e5f60718',
  role: auth.Role.ROLE_USER,
  isBanned: false,
  status: auth.AccountStatus.ACCOUNT_STATUS_ACTIVE,
  email: 'ada@example.com',
  name: 'Ada',
  sessionVersion: 0,
  endedSessions: [],
  ...over,
});
