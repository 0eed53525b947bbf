import { z } from 'zod';
import { baseEnv, DEVELOPMENT_SECRET, loadConfig, weakSecrets } from './config';

describe('weakSecrets: production refuses secrets anyone could know', () => {
  const strong = 'q8Jt4vY1nZr7Lw2pXe9Hc5Gm3Sd6Fb0K';
  it.each([
    ['the development default', DEVELOPMENT_SECRET],
    ['a change-me placeholder', 'change-me-please-change-me-0123456789'],
    ['a short value', 'short-but-16-chars'],
  ])('refuses %s', (_what, value) => {
    expect(weakSecrets({ NODE_ENV: 'production', JWT_SECRET: value }, ['JWT_SECRET'])).toEqual([
      'JWT_SECRET',
    ]);
  });

  it('accepts a long random value in production, and anything outside production', () => {
    expect(weakSecrets({ NODE_ENV: 'production', JWT_SECRET: strong }, ['JWT_SECRET'])).toEqual([]);
    expect(weakSecrets({ NODE_ENV: 'development', JWT_SECRET: DEVELOPMENT_SECRET }, ['JWT_SECRET'])).toEqual(
      [],
    );
  });
});

describe('baseEnv', () => {
  const schema = z.object(baseEnv);
  it('defaults to one stream replica and a 15 s shutdown, and reads both from the environment', () => {
    expect(loadConfig('t', schema, {})).toMatchObject({
      NATS_STREAM_REPLICAS: 1,
      SHUTDOWN_TIMEOUT_SECONDS: 15,
    });
    expect(
      loadConfig('t', schema, { NATS_STREAM_REPLICAS: '3', SHUTDOWN_TIMEOUT_SECONDS: '870' }),
    ).toMatchObject({ NATS_STREAM_REPLICAS: 3, SHUTDOWN_TIMEOUT_SECONDS: 870 });
  });
});
