import { fields } from './validation';

describe('fields.name', () => {
  it('refuses NUL and right-to-left overrides in a user name', () => {
    expect(fields.name.safeParse('Ada\u0000Lovelace').success).toBe(false);
    const rlo = fields.name.safeParse('Ada \u202Eecalevol');
    expect(rlo.error?.issues[0]?.message).toMatch(/^Name must not contain control characters/);
    expect(fields.name.parse('  Ada Lovelace ')).toBe('Ada Lovelace');
  });
});
