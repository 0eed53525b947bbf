import { natsConnectOptions } from './connect-options';

describe('NATS connection options', () => {
  it('takes a user and password out of the URL (nats.js would ignore them) and passes them as options', () => {
    expect(natsConnectOptions('nats://gateway:s%40cret@127.0.0.1:4222')).toEqual({
      servers: ['nats://127.0.0.1:4222'],
      user: 'gateway',
      pass: 's@cret',
    });
  });

  it('prefers NATS_USER/NATS_PASSWORD over the URL, and keeps every server of a list', () => {
    expect(
      natsConnectOptions('nats://a:b@n1:4222,nats://n2:4222', { NATS_USER: 'auth', NATS_PASSWORD: 'pw' }),
    ).toEqual({ servers: ['nats://n1:4222', 'nats://n2:4222'], user: 'auth', pass: 'pw' });
  });

  it('connects without credentials when none are given', () => {
    expect(natsConnectOptions('nats://127.0.0.1:4222')).toEqual({ servers: ['nats://127.0.0.1:4222'] });
  });

  it('uses an authenticator for a creds file or an nkey seed', () => {
    expect(
      natsConnectOptions('nats://n1:4222', { NATS_CREDS: '/run/secrets/nats.creds' }).authenticator,
    ).toEqual(expect.any(Function));
    expect(natsConnectOptions('nats://n1:4222', { NATS_NKEY_SEED: 'SUAEXAMPLE' }).authenticator).toEqual(
      expect.any(Function),
    );
  });
});
