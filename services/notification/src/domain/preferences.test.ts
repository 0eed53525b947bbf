import { fakeEventBus, fakePreferencesStore } from '../store.fake';
import { announcementId, preferences } from './preferences';

const USER = '64b7f0c2a1b2c3d4e5f60718';
const OTHER = 'aaaaaaaaaaaaaaaaaaaaaaaa';

function setup() {
  const store = fakePreferencesStore();
  const events = fakeEventBus();
  const log = { info: jest.fn(), warn: jest.fn() };
  return { store, events, log, p: preferences({ store, events, log }) };
}

describe('notification preferences', () => {
  it('has every notification on and no override for a user who never changed anything', async () => {
    await expect(setup().p.get(USER)).resolves.toEqual({
      backupSuccess: true,
      backupFailure: true,
      agentDisconnection: true,
      email: null,
    });
  });

  it('changes only the fields given', async () => {
    const { p } = setup();
    await p.update(USER, { backupSuccess: false });
    const after = await p.update(USER, { agentDisconnection: false });
    expect(after).toEqual({
      backupSuccess: false,
      backupFailure: true,
      agentDisconnection: false,
      email: null,
    });
    expect(await p.get(USER)).toEqual(after);
  });

  it('sends notifications to the override address, and back to the account address once cleared', async () => {
    const { p } = setup();
    await p.update(USER, { email: 'ops@example.com' });
    expect(await p.recipient(USER, 'ada@example.com', 'backupFailure')).toBe('ops@example.com');
    await p.update(USER, { email: '' });
    expect(await p.recipient(USER, 'ada@example.com', 'backupFailure')).toBe('ada@example.com');
  });

  it('has no recipient for a notification the user turned off', async () => {
    const { p } = setup();
    await p.update(USER, { backupSuccess: false });
    expect(await p.recipient(USER, 'ada@example.com', 'backupSuccess')).toBeNull();
    expect(await p.recipient(USER, 'ada@example.com', 'backupFailure')).toBe('ada@example.com');
  });
});

describe('settings.notifications.updated', () => {
  it('is published with the new toggles when a toggle changes', async () => {
    const { p, events } = setup();
    await p.update(USER, { backupSuccess: false, backupFailure: true, agentDisconnection: true });
    expect(events.published).toEqual([
      {
        id: announcementId(USER, 1),
        subject: 'settings.notifications.updated',
        data: { userId: USER, backupSuccess: false, backupFailure: true, agentDisconnection: true },
      },
    ]);
  });

  it('is not published when no toggle changed (same values, or only the address)', async () => {
    const { p, events } = setup();
    await p.update(USER, { backupSuccess: true, backupFailure: true, agentDisconnection: true });
    await p.update(USER, { email: 'ops@example.com' });
    await p.update(USER, {});
    expect(events.published).toEqual([]);
  });

  it('gets a new id for every change, per user', async () => {
    const { p, events } = setup();
    await p.update(USER, { backupSuccess: false });
    await p.update(USER, { backupSuccess: false }); // no change
    await p.update(USER, { backupSuccess: true });
    await p.update(OTHER, { agentDisconnection: false });
    expect(events.published.map((e) => e.id)).toEqual([
      announcementId(USER, 1),
      announcementId(USER, 2),
      announcementId(OTHER, 1),
    ]);
    expect(new Set(events.published.map((e) => e.id)).size).toBe(3);
    expect(events.published.map((e) => (e.data as { backupSuccess: boolean }).backupSuccess)).toEqual([
      false,
      true,
      true,
    ]);
  });

  it('saves the change even when NATS is down, and publishes it once NATS is back', async () => {
    const { p, events, log } = setup();
    events.fail = new Error('CONNECTION_REFUSED');
    await expect(p.update(USER, { agentDisconnection: false })).resolves.toMatchObject({
      agentDisconnection: false,
    });
    expect(log.warn).toHaveBeenCalled();
    expect(await p.get(USER)).toMatchObject({ agentDisconnection: false });

    events.fail = null;
    await expect(p.announcePending()).resolves.toBe(1);
    expect(events.published).toEqual([
      {
        id: announcementId(USER, 1),
        subject: 'settings.notifications.updated',
        data: { userId: USER, backupSuccess: true, backupFailure: true, agentDisconnection: false },
      },
    ]);
    await expect(p.announcePending()).resolves.toBe(0);
  });

  it('publishes nothing from the sweep when every change went out at once', async () => {
    const { p, events } = setup();
    await p.update(USER, { backupFailure: false });
    await expect(p.announcePending()).resolves.toBe(0);
    expect(events.published).toHaveLength(1);
  });

  it('keeps one event per change when the sweep republishes a change that already went out', async () => {
    const { p, events, store } = setup();
    await p.update(USER, { backupFailure: false });
    // The publish succeeded but the "published" mark was lost (crash in between).
    store.docs.set(USER, { ...store.docs.get(USER)!, notificationsPending: true });
    await p.announcePending();
    expect(events.published).toHaveLength(1);
  });

  it('forgets a pending change of a deleted user', async () => {
    const { p, events } = setup();
    events.fail = new Error('CONNECTION_REFUSED');
    await p.update(USER, { backupFailure: false });
    await p.remove(USER);
    events.fail = null;
    await expect(p.announcePending()).resolves.toBe(0);
    expect(events.published).toEqual([]);
  });
});
