import { z } from 'zod';
import { LIMITS, RESTORE_CONFIRMATIONS } from '@coffer/contracts';
import { fields } from '@coffer/common';
import type { Clients } from '../clients.js';
import { grantedBlob, openBlob, sendBlob } from '../blobs/streams.js';
import { codeOf, errorBody } from '../http/errors.js';
import { listPage } from '../http/paging.js';
import { binary, messageBody, type RouteTable } from '../http/route.js';
import { backupView, restoreView, toBackup, toRestore } from '../views.js';

const backupParam = z.object({ id: fields.objectId('backup') });

const databaseName = z
  .string({ error: 'databaseName is required' })
  .trim()
  .min(1, 'databaseName is required')
  .max(120, 'databaseName must be at most 120 characters');

const backupRateLimited = errorBody
  .extend({
    code: codeOf('BACKUP_RATE_LIMITED'),
    nextBackupAvailable: z.string().meta({ description: 'ISO date of the next allowed manual backup' }),
  })
  .meta({ id: 'BackupRateLimitedError' });

const NOT_YOURS = 'the caller has no backup with this id';
const DATABASE_NOT_READY = 'the database is not enabled (code DATABASE_INACTIVE)';
const NO_AGENT = 'no connected agent reports the database (code AGENT_UNAVAILABLE)';

/** The name a downloaded backup is saved under (product §7). */
export const downloadFileName = (databaseName: string, createdAt: string) =>
  `backup-${databaseName}-${createdAt}.enc.coffer`;

/** RFC 6266 Content-Disposition with an ASCII fallback and the exact UTF-8 name. */
function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** /api/backups/*: list, trigger, inspect, delete, download and restore backups (product §7). */
export function backupRoutes(t: RouteTable, deps: { clients: Clients }) {
  const { orchestrator, storage } = deps.clients;

  t.add({
    method: 'get',
    path: '/api/backups',
    operationId: 'getBackups',
    summary: "The caller's backups, newest first (the newest 500, or a page: limit, before)",
    tag: 'backups',
    access: 'user',
    query: listPage('backup'),
    response: z.array(backupView),
    errors: { NOT_FOUND: 'before names no backup of the caller (the list is loaded again)' },
    handler: async ({ caller, query }) =>
      (await orchestrator.listBackups({ userId: caller.id, ...query })).backups.map(toBackup),
  });

  t.add({
    method: 'post',
    path: '/api/backups',
    operationId: 'triggerBackup',
    summary: 'Start a manual backup of a database (429 with nextBackupAvailable inside the plan interval)',
    tag: 'backups',
    access: 'user',
    status: 201,
    body: z.object({ databaseName }),
    response: backupView,
    errors: {
      NOT_FOUND: 'no agent has reported a database of this name',
      FORBIDDEN: DATABASE_NOT_READY,
      LIMIT_REACHED: {
        when: "the plan's interval since the last backup has not passed",
        body: backupRateLimited,
      },
      UNAVAILABLE: NO_AGENT,
    },
    handler: async ({ caller, body }) =>
      toBackup(await orchestrator.triggerBackup({ userId: caller.id, databaseName: body.databaseName })),
  });

  // Registered before /api/backups/:id so 'restores' is never read as an id.
  t.add({
    method: 'get',
    path: '/api/backups/restores/all',
    operationId: 'getRestores',
    summary: "The caller's restores, newest first (the newest 200, or a page: limit, before)",
    tag: 'backups',
    access: 'user',
    query: listPage('restore'),
    response: z.array(restoreView),
    errors: { NOT_FOUND: 'before names no restore of the caller (the list is loaded again)' },
    handler: async ({ caller, query }) =>
      (await orchestrator.listRestores({ userId: caller.id, ...query })).restores.map(toRestore),
  });

  t.add({
    method: 'get',
    path: '/api/backups/:id',
    operationId: 'getBackup',
    summary: 'One backup',
    tag: 'backups',
    access: 'user',
    params: backupParam,
    response: backupView,
    errors: { NOT_FOUND: NOT_YOURS },
    handler: async ({ caller, params }) =>
      toBackup(await orchestrator.getBackup({ userId: caller.id, backupId: params.id })),
  });

  t.add({
    method: 'delete',
    path: '/api/backups/:id',
    operationId: 'deleteBackup',
    summary: 'Delete a finished backup and its file (needs step-up with two-factor sign-in on)',
    tag: 'backups',
    access: 'user',
    stepUp: true,
    params: backupParam,
    response: messageBody,
    errors: {
      NOT_FOUND: NOT_YOURS,
      CONFLICT:
        'the backup is still running, or being restored, or under the retention lock until its lockedUntil (code BACKUP_LOCKED)',
    },
    handler: async ({ caller, params }) => {
      await orchestrator.deleteBackup({ userId: caller.id, backupId: params.id });
      return { message: 'Backup deleted successfully' };
    },
  });

  t.add({
    method: 'get',
    path: '/api/backups/:id/download',
    operationId: 'downloadBackup',
    summary: 'Download the encrypted backup file (streamed, with Content-Length)',
    tag: 'backups',
    access: 'user',
    params: backupParam,
    response: binary,
    errors: { NOT_FOUND: NOT_YOURS, CONFLICT: 'the backup has not completed' },
    handler: async ({ caller, params, res, req }) => {
      // The orchestrator decides (the caller's, completed) and names the file; this only streams.
      const grant = await orchestrator.beginBackupDownload({ userId: caller.id, backupId: params.id });
      const blob = await openBlob(storage.raw, grantedBlob(grant));
      await sendBlob(req, res, blob, {
        'Content-Disposition': attachment(downloadFileName(grant.databaseName, grant.createdAt)),
      });
    },
  });

  t.add({
    method: 'post',
    path: '/api/backups/:id/verify',
    operationId: 'verifyBackup',
    summary:
      'Verify a completed backup now: its agent restores it into a scratch database, compares it with what it dumped, and drops the scratch database',
    tag: 'backups',
    access: 'user',
    status: 202,
    params: backupParam,
    response: backupView,
    errors: {
      NOT_FOUND: NOT_YOURS,
      CONFLICT:
        'the backup has not completed, has no summary to compare with, or a verification or restore of its database is running',
      UNAVAILABLE: NO_AGENT,
    },
    handler: async ({ caller, params }) =>
      toBackup(await orchestrator.requestVerification({ userId: caller.id, backupId: params.id })),
  });

  t.add({
    method: 'post',
    path: '/api/backups/:id/restore',
    operationId: 'restoreBackup',
    summary: 'Restore a completed backup into its database (the agent drops and replaces the collections)',
    tag: 'backups',
    access: 'user',
    status: 202,
    params: backupParam,
    body: z.object({
      databaseName,
      confirm: z
        .array(z.enum(RESTORE_CONFIRMATIONS))
        .max(RESTORE_CONFIRMATIONS.length)
        .optional()
        .describe(
          "what the user confirmed beyond the restore itself: 'empty-backup' lets the agent restore a backup that holds no documents over a database that holds some (it refuses otherwise)",
        ),
      targetDatabaseName: databaseName
        .optional()
        .describe("restore into this database of the account instead of the backup's own (restore anywhere)"),
      targetAgentId: fields
        .objectId('agent')
        .optional()
        .describe(
          'restore on this agent of the account (it must report the target database and hold the key the backup was made with)',
        ),
      collections: z
        .array(z.string().min(1).max(LIMITS.collectionName))
        .min(1, 'Choose at least one collection')
        .max(LIMITS.collectionsPerBackup)
        .optional()
        .describe(
          'restore only these collections of the backup (the others in the target are left as they are)',
        ),
    }),
    response: messageBody.extend({ restore: restoreView }),
    errors: {
      BAD_INPUT:
        'the database name is not the one the backup was taken of, or a chosen collection is not in the backup',
      NOT_FOUND: "the backup, the target database or the target agent is not the caller's",
      FORBIDDEN: DATABASE_NOT_READY,
      CONFLICT: 'the backup has not completed, or a restore of its database is running',
      UNAVAILABLE: NO_AGENT,
    },
    handler: async ({ caller, params, body }) => {
      const restore = await orchestrator.requestRestore({
        userId: caller.id,
        backupId: params.id,
        databaseName: body.databaseName,
        confirm: body.confirm ?? [],
        targetDatabaseName: body.targetDatabaseName,
        targetAgentId: body.targetAgentId,
        collections: body.collections ?? [],
      });
      return { message: 'Restore requested', restore: toRestore(restore) };
    },
  });
}
