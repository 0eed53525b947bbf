import { isObjectId, objectId } from './ids.js';
import {
  clipErrorText,
  DATABASE_LABEL_PATTERN,
  INSTANCE_ID_PATTERN,
  KEY_FINGERPRINT_PATTERN,
  LIMITS,
} from './limits.js';

describe('object ids', () => {
  it('are 24 hex digits, in either case', () => {
    expect(isObjectId('64b7f0c2a1b2c3d4e5f60718')).toBe(true);
    expect(isObjectId('64B7F0C2A1B2C3D4E5F60718')).toBe(true);
    for (const bad of ['64b7f0c2a1b2c3d4e5f6071', '64b7f0c2a1b2c3d4e5f607189', 'g'.repeat(24), '', 24, null])
      expect(isObjectId(bad)).toBe(false);
  });

  it('refuse with the message the caller chose', () => {
    expect(objectId('Invalid backup id').safeParse('nope').error?.issues[0]?.message).toBe(
      'Invalid backup id',
    );
    expect(objectId('Invalid backup id').safeParse(undefined).error?.issues[0]?.message).toBe(
      'Invalid backup id',
    );
  });
});

describe('limits', () => {
  it('database labels: what `coffer-agent db add` takes, up to 64 characters', () => {
    for (const ok of ['shop', 'big-db', 'shop.prod', 'a_1', 'A'.repeat(LIMITS.databaseLabel)])
      expect(DATABASE_LABEL_PATTERN.test(ok)).toBe(true);
    for (const bad of ['', '-shop', '.hidden', 'with space', 'a/b', 'A'.repeat(LIMITS.databaseLabel + 1)])
      expect(DATABASE_LABEL_PATTERN.test(bad)).toBe(false);
  });

  it('instance ids: a UUID, or 8 to 100 word characters', () => {
    expect(INSTANCE_ID_PATTERN.test('f2d3c4b5-a697-4881-9a0b-1c2d3e4f5a6b')).toBe(true);
    expect(INSTANCE_ID_PATTERN.test('x'.repeat(LIMITS.instanceId.min))).toBe(true);
    expect(INSTANCE_ID_PATTERN.test('x'.repeat(LIMITS.instanceId.max))).toBe(true);
    expect(INSTANCE_ID_PATTERN.test('x'.repeat(LIMITS.instanceId.min - 1))).toBe(false);
    expect(INSTANCE_ID_PATTERN.test('x'.repeat(LIMITS.instanceId.max + 1))).toBe(false);
    expect(INSTANCE_ID_PATTERN.test('abc/defgh')).toBe(false);
  });

  it('key fingerprints: the 32 hex digits the agent sends, up to 128 characters', () => {
    expect(KEY_FINGERPRINT_PATTERN.test('0123456789abcdef0123456789abcdef')).toBe(true);
    expect(KEY_FINGERPRINT_PATTERN.test('f'.repeat(LIMITS.keyFingerprint))).toBe(true);
    expect(KEY_FINGERPRINT_PATTERN.test('f'.repeat(LIMITS.keyFingerprint + 1))).toBe(false);
    expect(KEY_FINGERPRINT_PATTERN.test('')).toBe(false);
    expect(KEY_FINGERPRINT_PATTERN.test('ab cd')).toBe(false);
  });

  it('error texts are clipped to what the server keeps, with a mark', () => {
    expect(clipErrorText('short')).toBe('short');
    expect(clipErrorText('x'.repeat(LIMITS.errorText))).toBe('x'.repeat(LIMITS.errorText));
    const clipped = clipErrorText('x'.repeat(LIMITS.errorText + 1));
    expect(clipped).toHaveLength(LIMITS.errorText);
    expect(clipped.endsWith('…')).toBe(true);
    expect(clipErrorText('abcdef', 4)).toBe('abc…');
  });
});
