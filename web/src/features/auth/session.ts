// The session record kept in localStorage under the product's vault name (product §3, §9).
import type { SessionUser } from '../../api/generated';

export const SESSION_KEY = 'coffer-vault';

export interface SessionRecord {
  token: string;
  user: SessionUser;
  timestamp: number;
}

function isSessionRecord(value: unknown): value is SessionRecord {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<SessionRecord>;
  return typeof v.token === 'string' && typeof v.user === 'object' && v.user !== null;
}

/** The saved session; an absent or unparsable record reads as null. */
export function readSession(): SessionRecord | null {
  let raw: string | null;
  try {
    raw = window.localStorage.getItem(SESSION_KEY);
  } catch {
    return null;
  }
  if (!raw) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    return isSessionRecord(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

export function writeSession(token: string, user: SessionUser): void {
  const record: SessionRecord = { token, user, timestamp: Date.now() };
  try {
    window.localStorage.setItem(SESSION_KEY, JSON.stringify(record));
  } catch (err) {
    console.warn('Could not save the session', err);
  }
}

/** Merges fields into the stored user (profile update, ban), keeping token and timestamp. */
export function patchStoredUser(patch: Partial<SessionUser>): void {
  const current = readSession();
  if (!current) return;
  try {
    window.localStorage.setItem(
      SESSION_KEY,
      JSON.stringify({ ...current, user: { ...current.user, ...patch } }),
    );
  } catch (err) {
    console.warn('Could not update the session', err);
  }
}

export function clearSession(): void {
  try {
    window.localStorage.removeItem(SESSION_KEY);
  } catch {
    // storage unavailable: nothing to clear
  }
}
