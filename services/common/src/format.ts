const BYTE_UNITS = ['Bytes', 'KB', 'MB', 'GB', 'TB'] as const;

/** Human size as the product shows it (product §9): '0 Bytes', '1.5 KB', … up to TB, two decimals at most. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return '0 Bytes';
  const i = Math.min(BYTE_UNITS.length - 1, Math.floor(Math.log(bytes) / Math.log(1024)));
  return `${parseFloat((bytes / 1024 ** i).toFixed(2))} ${BYTE_UNITS[i]}`;
}
