// Naming of downloaded backup files (product §7: backup-{databaseName}-{ISO createdAt}.enc.coffer).

export const BACKUP_FILE_EXTENSION = '.enc.coffer';

/** 'backup-{databaseName}-{ISO createdAt}.enc.coffer'; an unreadable date is left as given. */
export function backupFilename(databaseName: string, createdAt: string | number | Date): string {
  const d = new Date(createdAt);
  const iso = Number.isNaN(d.getTime()) ? String(createdAt) : d.toISOString();
  return `backup-${databaseName}-${iso}${BACKUP_FILE_EXTENSION}`;
}

/**
 * The file name of a Content-Disposition header (RFC 6266: `filename*=UTF-8''…` preferred over
 * `filename="…"`), without any path; null when there is none.
 */
export function filenameFromContentDisposition(header: string | null | undefined): string | null {
  if (!header) return null;
  let name: string | null = null;
  const extended = /filename\*\s*=\s*([^;]+)/i.exec(header);
  if (extended?.[1]) {
    const value = extended[1].trim().replace(/^"(.*)"$/, '$1');
    const encoded = value.replace(/^[^']*'[^']*'/, '');
    try {
      name = decodeURIComponent(encoded);
    } catch {
      name = encoded;
    }
  }
  if (!name) {
    const plain = /filename\s*=\s*("((?:\\.|[^"\\])*)"|[^;]+)/i.exec(header);
    if (plain) name = plain[2] !== undefined ? plain[2].replace(/\\(.)/g, '$1') : (plain[1] ?? '').trim();
  }
  if (!name) return null;
  const base = name.split(/[\\/]/).pop()?.trim();
  return base ? base : null;
}

/** Megabytes with one decimal ('12.3 MB') for the download progress toast. */
export function formatMegabytes(bytes: number): string {
  return `${(Math.max(0, bytes) / (1024 * 1024)).toFixed(1)} MB`;
}
