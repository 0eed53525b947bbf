import { agentDotColor, agentStatusLabel } from './agentStatus';

describe('agent status', () => {
  it('active green Online, inactive yellow Inactive, anything else red Offline', () => {
    expect(['active', 'inactive', 'offline', 'weird'].map(agentStatusLabel)).toEqual([
      'Online',
      'Inactive',
      'Offline',
      'Offline',
    ]);
    expect(['active', 'inactive', 'offline'].map(agentDotColor)).toEqual([
      'green.500',
      'yellow.500',
      'red.500',
    ]);
  });
});
