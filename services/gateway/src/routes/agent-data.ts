import { z } from 'zod';
import { AppError, fields, type Logger } from '@coffer/common';
import { AGENT_DATA_ROUTES, agentHeaderKey, keyFingerprintSchema } from '@coffer/contracts';
import type { orchestrator as orchestratorProto } from '@coffer/proto';
import type { Clients } from '../clients.js';
import { grantedBlob, openBlob, putBlob, sendBlob } from '../blobs/streams.js';
import { binary, routeOf, type RouteTable } from '../http/route.js';

const FINGERPRINT = agentHeaderKey('keyFingerprint');
const fingerprint = keyFingerprintSchema.meta({
  description: 'fingerprint of the key the backup was encrypted with',
});
const NOT_ITS_JOB = 'the agent has no job with this id';

/**
 * The agent's data plane (docs/agent-protocol.md): the encrypted backup is streamed from the
 * agent's HTTP body into storage, and back for a restore, never held whole in memory.
 */
export function agentDataRoutes(t: RouteTable, deps: { clients: Clients; log: Logger }) {
  const { orchestrator, storage } = deps.clients;

  t.add({
    ...routeOf(AGENT_DATA_ROUTES.backupUpload),
    operationId: 'uploadBackupData',
    summary: 'Agent: upload the encrypted backup (streamed body); completes the backup when stored',
    tag: 'agent',
    access: 'agent',
    params: z.object({ id: fields.objectId('backup') }),
    headers: z.object({ [FINGERPRINT]: fingerprint }),
    body: binary,
    response: z.object({ size: z.number().meta({ description: 'bytes stored' }) }),
    errors: {
      NOT_FOUND: NOT_ITS_JOB,
      CONFLICT: 'the backup is not in progress, or is stored or being uploaded already',
      LIMIT_REACHED: "the backup would pass the plan's storage limit (code STORAGE_LIMIT_EXCEEDED)",
    },
    handler: async ({ caller, params, headers, req, res }) => {
      const keyFingerprint = headers[FINGERPRINT];
      const grant = await orchestrator.beginUpload({
        userId: caller.id,
        agentId: caller.agentId,
        backupId: params.id,
      });
      let info;
      try {
        info = await putBlob(
          storage.raw,
          {
            ...grantedBlob(grant),
            storageLimit: grant.storageLimit,
            keyFingerprint,
            lockedUntil: grant.lockedUntil,
          },
          req,
          () => req.complete,
        );
      } catch (err) {
        // The job fails with the reason (a no-op if the agent already reported its own).
        const reason =
          err instanceof AppError
            ? err.message
            : 'Upload interrupted: the agent stopped sending before the backup was complete';
        await orchestrator
          .failBackup({ userId: caller.id, agentId: caller.agentId, jobId: params.id, error: reason })
          .catch((e: unknown) =>
            deps.log.warn({ err: e, backupId: params.id }, 'could not record the failed upload'),
          );
        // The rest of the body is not wanted: close the connection once the answer is out.
        res.setHeader('Connection', 'close');
        throw err instanceof AppError ? err : new AppError('BAD_INPUT', reason);
      }
      // Storage's answer is the completion: the orchestrator records it as it is.
      await orchestrator.completeBackup({
        userId: caller.id,
        agentId: caller.agentId,
        backupId: params.id,
        size: info.size,
        keyFingerprint: info.keyFingerprint,
      });
      return { size: info.size };
    },
  });

  // A job's backup file, once the orchestrator grants the agent that job: a restore's, or a
  // verification's (verified backups). Both stream the same stored file.
  const jobDownload = (
    job: 'restore' | 'verification',
    route: { method: 'GET'; path: string },
    operationId: string,
    grant: (caller: { id: string; agentId: string }, id: string) => Promise<orchestratorProto.DownloadGrant>,
  ) =>
    t.add({
      ...routeOf(route),
      operationId,
      summary: `Agent: download the encrypted backup of a ${job} it was asked to run`,
      tag: 'agent',
      access: 'agent',
      params: z.object({ id: fields.objectId(job) }),
      response: binary,
      errors: {
        NOT_FOUND: NOT_ITS_JOB,
        CONFLICT: `the ${job} is not in progress, or its backup no longer exists`,
      },
      handler: async ({ caller, params, req, res }) => {
        const blob = await openBlob(storage.raw, grantedBlob(await grant(caller, params.id)));
        await sendBlob(req, res, blob);
      },
    });

  jobDownload('restore', AGENT_DATA_ROUTES.restoreDownload, 'downloadRestoreData', (caller, restoreId) =>
    orchestrator.beginDownload({ userId: caller.id, agentId: caller.agentId, restoreId }),
  );
  jobDownload(
    'verification',
    AGENT_DATA_ROUTES.verificationDownload,
    'downloadVerificationData',
    (caller, verificationId) =>
      orchestrator.beginVerificationDownload({ userId: caller.id, agentId: caller.agentId, verificationId }),
  );
}
