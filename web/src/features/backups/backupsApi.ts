// Backups and restores (spec §7): list, trigger, poll one, delete, restore, restore history.
import { baseApi } from '../../api/baseApi';
import type { Backup, MessageResponse, Restore, RestoreResponse } from '../../api/types';

export const backupsApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    getBackups: build.query<Backup[], void>({
      query: () => '/backups',
      providesTags: ['Backups'],
    }),
    // Polled after a trigger; read through `initiate` with forceRefetch so each poll is a request.
    getBackup: build.query<Backup, string>({
      query: (id) => `/backups/${encodeURIComponent(id)}`,
    }),
    triggerBackup: build.mutation<Backup, { databaseName: string }>({
      query: (body) => ({ url: '/backups', method: 'POST', body }),
      invalidatesTags: ['AuditLogs'],
    }),
    deleteBackup: build.mutation<MessageResponse, string>({
      query: (id) => ({ url: `/backups/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: ['Backups', 'Profile', 'AuditLogs'],
    }),
    restoreBackup: build.mutation<RestoreResponse, { backupId: string; databaseName: string }>({
      query: ({ backupId, databaseName }) => ({
        url: `/backups/${encodeURIComponent(backupId)}/restore`,
        method: 'POST',
        body: { databaseName },
      }),
      invalidatesTags: ['Restores', 'AuditLogs'],
    }),
    getRestores: build.query<Restore[], void>({
      query: () => '/backups/restores/all',
      providesTags: ['Restores'],
    }),
  }),
});

export const {
  useGetBackupsQuery,
  useTriggerBackupMutation,
  useDeleteBackupMutation,
  useRestoreBackupMutation,
  useGetRestoresQuery,
} = backupsApi;
