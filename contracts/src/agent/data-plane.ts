// The agent's data plane (docs/agent-protocol.md): plain HTTP with the API key, the encrypted
// backup streamed up, a restore's file streamed down.
import { z } from 'zod';
import { KEY_FINGERPRINT_PATTERN } from '../limits.js';

/** Header names as sent; HTTP header names are case-insensitive (Node lower-cases them). */
export const AGENT_HEADERS = {
  apiKey: 'X-Api-Key',
  agentId: 'X-Coffer-Agent-Id',
  /** On uploads: the fingerprint of the key the file is encrypted with. */
  keyFingerprint: 'X-Coffer-Key-Fingerprint',
} as const;

/** Routes in OpenAPI form, and the URL path the agent requests. */
export const AGENT_DATA_ROUTES = {
  /** Body: the encrypted file (application/octet-stream, chunked). 200 BackupUploadAnswer. */
  backupUpload: { method: 'PUT', path: '/api/agent/backups/{backupId}/data' },
  /** The encrypted file of the restore's backup, with Content-Length. */
  restoreDownload: { method: 'GET', path: '/api/agent/restores/{restoreId}/data' },
  /** The encrypted file of the verification's backup, with Content-Length. */
  verificationDownload: { method: 'GET', path: '/api/agent/verifications/{verificationId}/data' },
} as const;

export const backupUploadPath = (backupId: string) =>
  `/api/agent/backups/${encodeURIComponent(backupId)}/data`;
export const restoreDownloadPath = (restoreId: string) =>
  `/api/agent/restores/${encodeURIComponent(restoreId)}/data`;
export const verificationDownloadPath = (verificationId: string) =>
  `/api/agent/verifications/${encodeURIComponent(verificationId)}/data`;

/** The answer to a stored upload: the size storage kept. */
export interface BackupUploadAnswer {
  size: number;
}

export const keyFingerprintSchema = z.string().regex(KEY_FINGERPRINT_PATTERN, 'Invalid key fingerprint');
