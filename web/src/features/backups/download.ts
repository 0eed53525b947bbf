// Backup download (product §7, §8): streamed with fetch so a progress toast can show MB and percent,
// then saved under the server's Content-Disposition name or backup-{db}-{ISO createdAt}.enc.coffer.
import type { AppThunk } from '../../app/store';
import type { Backup } from '../../api/generated';
import { backupFilename, filenameFromContentDisposition, formatMegabytes } from '../../lib/download';
import { requestRejected } from '../auth/authSlice';
import { notify, updateToast } from '../shell/toaster';

/** Toast updates at most this often while bytes arrive. */
const PROGRESS_UPDATE_MS = 200;

function progressText(received: number, total: number): string {
  if (total > 0) {
    const percent = Math.min(100, Math.round((received / total) * 100));
    return `${formatMegabytes(received)} of ${formatMegabytes(total)} (${percent}%)`;
  }
  return formatMegabytes(received);
}

function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Give the browser a moment to start the save before the URL goes away.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

async function readBody(res: Response): Promise<unknown> {
  try {
    return await res.json();
  } catch {
    return undefined;
  }
}

export const downloadBackup =
  (backup: Pick<Backup, '_id' | 'databaseName' | 'createdAt'>): AppThunk<Promise<boolean>> =>
  async (dispatch, getState) => {
    const toastId = notify({ title: 'Downloading...', description: progressText(0, 0), type: 'loading' });
    try {
      const token = getState().auth.token;
      const res = await fetch(`/api/backups/${encodeURIComponent(backup._id)}/download`, {
        headers: token ? { Authorization: `Bearer ${token}` } : {},
      });
      if (!res.ok) {
        // Same handling as every other protected call: a 401/403 lets the session listener decide.
        if (res.status === 401 || res.status === 403) {
          dispatch(requestRejected({ status: res.status, body: await readBody(res) }));
        }
        throw new Error(`download answered ${res.status}`);
      }
      const total = Number(res.headers.get('Content-Length')) || 0;
      const filename =
        filenameFromContentDisposition(res.headers.get('Content-Disposition')) ??
        backupFilename(backup.databaseName, backup.createdAt);

      const chunks: Uint8Array<ArrayBuffer>[] = [];
      let received = 0;
      if (res.body) {
        const reader = res.body.getReader();
        let lastUpdate = 0;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          chunks.push(value);
          received += value.byteLength;
          const now = Date.now();
          if (now - lastUpdate >= PROGRESS_UPDATE_MS) {
            lastUpdate = now;
            updateToast(toastId, {
              title: 'Downloading...',
              description: progressText(received, total),
              type: 'loading',
            });
          }
        }
      } else {
        const buf = new Uint8Array(await res.arrayBuffer());
        chunks.push(buf);
        received = buf.byteLength;
      }
      if (total > 0 && received !== total)
        throw new Error(`download incomplete: ${received} of ${total} bytes`);
      saveBlob(new Blob(chunks, { type: 'application/octet-stream' }), filename);
      notify({ title: 'Success', description: 'Download complete', type: 'success' });
      return true;
    } catch (err) {
      console.error('Backup download failed', err);
      notify({ title: 'Error', description: 'Failed to download backup', type: 'error' });
      return false;
    }
  };
