import { trustProxySetting } from './app';

describe('TRUST_PROXY', () => {
  it('a number is that many hops, not an address (Express reads strings as addresses)', () => {
    expect(trustProxySetting('1')).toBe(1);
    expect(trustProxySetting('2')).toBe(2);
  });
  it('keeps names and subnets, and reads true/false', () => {
    expect(trustProxySetting('loopback,10.244.0.0/16')).toBe('loopback,10.244.0.0/16');
    expect(trustProxySetting('false')).toBe(false);
    expect(trustProxySetting('true')).toBe(true);
  });
});
