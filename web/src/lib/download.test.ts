import { backupFilename, filenameFromContentDisposition, formatMegabytes } from './download';

describe('backupFilename', () => {
  it('is backup-{databaseName}-{ISO createdAt}.enc.coffer', () => {
    expect(backupFilename('production-db', '2025-03-04T05:06:07.089Z')).toBe(
      'backup-production-db-2025-03-04T05:06:07.089Z.enc.coffer',
    );
    expect(backupFilename('shop', Date.UTC(2025, 0, 1))).toBe(
      'backup-shop-2025-01-01T00:00:00.000Z.enc.coffer',
    );
  });

  it('keeps an unreadable date as given', () => {
    expect(backupFilename('db', 'someday')).toBe('backup-db-someday.enc.coffer');
  });
});

describe('filenameFromContentDisposition', () => {
  it('reads quoted, bare and RFC 5987 names', () => {
    expect(
      filenameFromContentDisposition('attachment; filename="backup-db-2025-01-01T00:00:00.000Z.enc.coffer"'),
    ).toBe('backup-db-2025-01-01T00:00:00.000Z.enc.coffer');
    expect(filenameFromContentDisposition('attachment; filename=a.enc.coffer')).toBe('a.enc.coffer');
    expect(
      filenameFromContentDisposition(`attachment; filename="x.bin"; filename*=UTF-8''caf%C3%A9.enc.coffer`),
    ).toBe('café.enc.coffer');
  });

  it('drops paths and answers null without a name', () => {
    expect(filenameFromContentDisposition('attachment; filename="../../etc/passwd"')).toBe('passwd');
    expect(filenameFromContentDisposition('attachment')).toBeNull();
    expect(filenameFromContentDisposition(null)).toBeNull();
    expect(filenameFromContentDisposition('attachment; filename=""')).toBeNull();
  });
});

describe('formatMegabytes', () => {
  it('shows one decimal', () => {
    expect(formatMegabytes(0)).toBe('0.0 MB');
    expect(formatMegabytes(1.5 * 1024 * 1024)).toBe('1.5 MB');
  });
});
