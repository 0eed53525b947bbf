import { AppError, badInput, notFound, unavailable } from '@coffer/common';
import { accountDirectory } from './accounts';

const USER = '64b7f0c2a1b2c3d4e5f60718';
const state = {
  userId: USER,
  role: 'user',
  isBanned: false,
  status: 'active',
  email: 'ada@example.com',
  name: 'Ada',
  sessionVersion: 0,
};

describe('account directory (auth GetAccountState)', () => {
  it('gives the account address and name', async () => {
    const call = jest.fn().mockResolvedValue(state);
    await expect(accountDirectory(call).contact(USER)).resolves.toEqual({
      email: 'ada@example.com',
      name: 'Ada',
    });
    expect(call).toHaveBeenCalledWith(
      { userId: USER },
      expect.objectContaining({ timeoutMs: expect.any(Number) }),
    );
  });

  it('says there is no account when auth does not know the user', async () => {
    await expect(
      accountDirectory(jest.fn().mockRejectedValue(notFound('User not found'))).contact(USER),
    ).resolves.toBeNull();
    await expect(
      accountDirectory(jest.fn().mockRejectedValue(badInput('Invalid user id'))).contact('nope'),
    ).resolves.toBeNull();
  });

  it('rejects when auth cannot answer, so the event is retried', async () => {
    const down = accountDirectory(jest.fn().mockRejectedValue(unavailable('not answering')));
    await expect(down.contact(USER)).rejects.toBeInstanceOf(AppError);
    await expect(
      accountDirectory(jest.fn().mockRejectedValue(new Error('boom'))).contact(USER),
    ).rejects.toThrow('boom');
  });
});
