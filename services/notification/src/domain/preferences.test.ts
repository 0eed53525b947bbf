import { fakePreferencesStore } from '../store.fake';
import { preferences } from './preferences';

const USER = '64b7f0c2a1b2c3d4e5f60718';

describe('notification preferences', () => {
  it('has every notification on and no override for a user who never changed anything', async () => {
    await expect(preferences({ store: fakePreferencesStore() }).get(USER)).resolves.toEqual({
      backupSuccess: true,
      backupFailure: true,
      agentDisconnection: true,
      email: null,
    });
  });

  it('changes only the fields given', async () => {
    const p = preferences({ store: fakePreferencesStore() });
    await p.update(USER, { backupSuccess: false });
    const after = await p.update(USER, { agentDisconnection: false });
    expect(after).toEqual({
      backupSuccess: false,
      backupFailure: true,
      agentDisconnection: false,
      email: null,
    });
  });

  it('sends notifications to the override address, and back to the account address once cleared', async () => {
    const p = preferences({ store: fakePreferencesStore() });
    await p.update(USER, { email: 'ops@example.com' });
    expect(await p.recipient(USER, 'ada@example.com', 'backupFailure')).toBe('ops@example.com');
    await p.update(USER, { email: '' });
    expect(await p.recipient(USER, 'ada@example.com', 'backupFailure')).toBe('ada@example.com');
  });

  it('has no recipient for a notification the user turned off', async () => {
    const p = preferences({ store: fakePreferencesStore() });
    await p.update(USER, { backupSuccess: false });
    expect(await p.recipient(USER, 'ada@example.com', 'backupSuccess')).toBeNull();
    expect(await p.recipient(USER, 'ada@example.com', 'backupFailure')).toBe('ada@example.com');
  });
});
