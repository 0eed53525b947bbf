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

/** A header's name as Node hands it to the gateway (lower case). */
export const agentHeaderKey = <K extends keyof typeof AGENT_HEADERS>(k: K) =>
  AGENT_HEADERS[k].toLowerCase() as Lowercase<(typeof AGENT_HEADERS)[K]>;

/**
 * Routes in OpenAPI form (the gateway declares them from here), and the URL path the agent
 * requests. `{id}` is the job's id.
 */
export const AGENT_DATA_ROUTES = {
  /** Body: the encrypted file (application/octet-stream, chunked). 200 BackupUploadAnswer. */
  backupUpload: { method: 'PUT', path: '/api/agent/backups/{id}/data' },
  /** The encrypted file of the restore's backup, with Content-Length. */
  restoreDownload: { method: 'GET', path: '/api/agent/restores/{id}/data' },
  /** The encrypted file of the verification's backup, with Content-Length. */
  verificationDownload: { method: 'GET', path: '/api/agent/verifications/{id}/data' },
} as const;

const pathWithId = (route: { path: string }, id: string) =>
  route.path.replace('{id}', encodeURIComponent(id));
export const backupUploadPath = (backupId: string) => pathWithId(AGENT_DATA_ROUTES.backupUpload, backupId);
export const restoreDownloadPath = (restoreId: string) =>
  pathWithId(AGENT_DATA_ROUTES.restoreDownload, restoreId);
export const verificationDownloadPath = (verificationId: string) =>
  pathWithId(AGENT_DATA_ROUTES.verificationDownload, verificationId);

/** The answer to a stored upload: the size storage kept. */
export interface BackupUploadAnswer {
  size: number;
}

export const keyFingerprintSchema = z
  .string({ error: 'Invalid key fingerprint' })
  .regex(KEY_FINGERPRINT_PATTERN, 'Invalid key fingerprint');
