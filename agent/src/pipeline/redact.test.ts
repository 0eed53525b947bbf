import { redact, redactorFor } from './redact.js';

describe('redact', () => {
  it('masks the password of any mongodb URI, keeping user and hosts', () => {
    expect(
      redact('Failed: error connecting to mongodb://admin:hunter2@db1:27017,db2/shop?tls=true: timeout'),
    ).toBe('Failed: error connecting to mongodb://admin:****@db1:27017,db2/shop?tls=true: timeout');
    expect(redact('mongodb+srv://u:p@cluster0.x.net/')).toBe('mongodb+srv://u:****@cluster0.x.net/');
    expect(redact('MONGODB://U:P@H/')).toBe('MONGODB://U:****@H/');
  });

  it('handles a raw @ in a password and several URIs in one text', () => {
    expect(redact('a mongodb://u:p@ss@h/x and mongodb://v:q@k/y')).toBe(
      'a mongodb://u:****@h/x and mongodb://v:****@k/y',
    );
  });

  it('leaves URIs without a password and ordinary text alone', () => {
    const text = 'writing shop.orders to archive; mongodb://h:1/shop; user@example.com';
    expect(redact(text)).toBe(text);
  });

  it('masks given secrets wherever they appear, longest first', () => {
    expect(redact('auth failed for password s3cr3t (s3cr3t-long)', ['s3cr3t', 's3cr3t-long'])).toBe(
      'auth failed for password **** (****)',
    );
  });

  it('redactorFor masks the password of one URI in raw and percent-encoded form', () => {
    const scrub = redactorFor('mongodb://app:p%40ss%3Aword@h/db');
    expect(scrub('password p@ss:word rejected; p%40ss%3Aword too')).toBe('password **** rejected; **** too');
    expect(scrub('uri mongodb://app:p%40ss%3Aword@h/db')).toBe('uri mongodb://app:****@h/db');
  });
});
