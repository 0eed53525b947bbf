// What the generated endpoints (generated.ts) do to the cache: the tags they provide and
// invalidate, and the answers that replace cached lists. The store uses `api` from here, so this
// runs before any hook from generated.ts is called.
import { generatedApi } from './generated';

export const api = generatedApi.enhanceEndpoints({
  endpoints: {
    verifyResetToken: { keepUnusedDataFor: 0 },
    getPlans: {
      transformErrorResponse: (error) => {
        console.error('Failed to fetch plans', error);
        return error;
      },
    },
    getProfile: { providesTags: ['Profile'] },
    getUserPlan: { providesTags: ['UserPlan'] },
    updateProfile: { invalidatesTags: ['Profile', 'AuditLogs'] },
    changePassword: { invalidatesTags: ['AuditLogs'] },
    updatePlan: { invalidatesTags: ['Profile', 'UserPlan', 'AuditLogs'] },
    getAuditLogs: { providesTags: ['AuditLogs'] },
    getSystemStatus: { providesTags: ['SystemStatus'] },
    getBackups: { providesTags: ['Backups'] },
    triggerBackup: { invalidatesTags: ['AuditLogs'] },
    deleteBackup: { invalidatesTags: ['Backups', 'Profile', 'AuditLogs'] },
    restoreBackup: { invalidatesTags: ['Restores', 'AuditLogs'] },
    getRestores: { providesTags: ['Restores'] },
    getSettings: { providesTags: ['Settings'] },
    updateSettings: {
      invalidatesTags: ['AuditLogs'],
      // The answer has the GET shape: it becomes the cached settings.
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          dispatch(generatedApi.util.upsertQueryData('getSettings', undefined, data));
        } catch {
          // shown by the caller
        }
      },
    },
    getDatabases: { providesTags: ['Databases'] },
    updateDatabase: {
      // The answer is the whole list.
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          dispatch(generatedApi.util.upsertQueryData('getDatabases', undefined, data));
        } catch {
          // shown by the caller
        }
      },
    },
    manageAgent: { invalidatesTags: ['SystemStatus'] },
    removeAgent: { invalidatesTags: ['SystemStatus'] },
    regenerateApiKey: { invalidatesTags: ['Profile', 'AuditLogs'] },
  },
});
