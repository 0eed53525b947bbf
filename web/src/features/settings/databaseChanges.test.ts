import { toggleOutcome } from './databaseChanges';

const db = (id: string, name: string, isActive: boolean) => ({ _id: id, name, isActive });

describe('toggleOutcome', () => {
  it('names the database that became active when the active one is disabled', () => {
    const before = [db('1', 'shop', true), db('2', 'crm', false)];
    const after = [db('1', 'shop', false), db('2', 'crm', true)];
    expect(toggleOutcome(before, after, '1')).toBe(
      'Disabled shop. crm is now active and will be backed up: your plan keeps the first enabled databases active up to its limit.',
    );
  });

  it('lists several databases that became active', () => {
    const before = [db('1', 'a', true), db('2', 'b', false), db('3', 'c', false)];
    const after = [db('1', 'a', false), db('2', 'b', true), db('3', 'c', true)];
    expect(toggleOutcome(before, after, '1')).toMatch(/^Disabled a\. b and c are now active/);
  });

  it('says nothing more when only the database clicked changed', () => {
    const before = [db('1', 'shop', true), db('2', 'crm', true)];
    expect(toggleOutcome(before, [db('1', 'shop', false), db('2', 'crm', true)], '1')).toBeNull();
    expect(toggleOutcome([db('1', 'shop', false)], [db('1', 'shop', true)], '1')).toBeNull();
  });

  it('names a database that lost its place', () => {
    const before = [db('1', 'shop', false), db('2', 'crm', true)];
    const after = [db('1', 'shop', true), db('2', 'crm', false)];
    expect(toggleOutcome(before, after, '1')).toBe('Enabled shop. crm is no longer active.');
  });
});
