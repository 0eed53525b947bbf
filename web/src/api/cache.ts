// What the generated endpoints (generated.ts) do to the cache: the tags they provide and
// invalidate, and the answers that replace cached lists. The store uses `api` from here, so this
// runs before any hook from generated.ts is called.
import { generatedApi } from './generated';

export const api = generatedApi.enhanceEndpoints({
  // The knowledge base's reads all show articles: any admin change refreshes every one of them.
  addTagTypes: [
    'Billing',
    'Articles',
    'AdminUsers',
    'AdminStats',
    'AdminAgents',
    'TwoFactor',
    'SecurityPolicy',
  ],
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
    getBilling: { providesTags: ['Billing'] },
    getTwoFactor: { providesTags: ['TwoFactor'] },
    enableTwoFactor: { invalidatesTags: ['TwoFactor', 'AuditLogs'] },
    disableTwoFactor: { invalidatesTags: ['TwoFactor', 'AuditLogs'] },
    regenerateRecoveryCodes: { invalidatesTags: ['TwoFactor', 'AuditLogs'] },
    adminGetSecuritySettings: { providesTags: ['SecurityPolicy'] },
    adminUpdateSecuritySettings: { invalidatesTags: ['SecurityPolicy', 'TwoFactor', 'AuditLogs'] },
    // A smaller plan clamps the schedule and deactivates databases over its limit.
    updatePlan: { invalidatesTags: ['Profile', 'UserPlan', 'AuditLogs', 'Billing', 'Settings', 'Databases'] },
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
      invalidatesTags: ['AuditLogs'],
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
    updateDatabaseVerify: {
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
    verifyBackup: { invalidatesTags: ['Backups'] },
    manageAgent: { invalidatesTags: ['SystemStatus', 'AuditLogs'] },
    removeAgent: { invalidatesTags: ['SystemStatus', 'AuditLogs'] },
    setRetentionLock: {
      invalidatesTags: ['AuditLogs'],
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          dispatch(generatedApi.util.upsertQueryData('getSettings', undefined, data));
        } catch {
          // shown by the caller
        }
      },
    },
    // Both answer with the GET shape: it becomes the cached settings.
    resendNotificationEmailConfirmation: {
      invalidatesTags: ['AuditLogs'],
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          dispatch(generatedApi.util.upsertQueryData('getSettings', undefined, data));
        } catch {
          // shown by the caller
        }
      },
    },
    cancelNotificationEmailChange: {
      invalidatesTags: ['AuditLogs'],
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          dispatch(generatedApi.util.upsertQueryData('getSettings', undefined, data));
        } catch {
          // shown by the caller
        }
      },
    },
    confirmNotificationEmail: { invalidatesTags: ['Settings', 'AuditLogs'] },
    regenerateApiKey: { invalidatesTags: ['Profile', 'AuditLogs'] },
    listArticles: { providesTags: ['Articles'] },
    listArticleCategories: { providesTags: ['Articles'] },
    listArticleTags: { providesTags: ['Articles'] },
    getArticle: { providesTags: ['Articles'] },
    listAllArticles: { providesTags: ['Articles'] },
    createArticle: {
      invalidatesTags: ['Articles'],
      // The editor moves to /admin/kb/{newId} and picks the article from this list: it must be
      // there before the refetch the invalidation starts has answered.
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          dispatch(
            generatedApi.util.updateQueryData('listAllArticles', undefined, (draft) => {
              if (!draft.some((a) => a._id === data._id)) draft.unshift(data);
            }),
          );
        } catch {
          // shown by the caller
        }
      },
    },
    updateArticle: {
      invalidatesTags: ['Articles'],
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          dispatch(
            generatedApi.util.updateQueryData('listAllArticles', undefined, (draft) =>
              draft.map((a) => (a._id === data._id ? data : a)),
            ),
          );
        } catch {
          // shown by the caller
        }
      },
    },
    deleteArticle: { invalidatesTags: ['Articles'] },
    // Admin console (/admin). An admin may edit their own account there too: their profile,
    // plan and audit log follow.
    adminListUsers: { providesTags: ['AdminUsers'] },
    adminBackupStats: { providesTags: ['AdminStats'] },
    adminListUserAgents: { providesTags: ['AdminAgents'] },
    adminUpdateUser: {
      invalidatesTags: ['AdminUsers', 'Profile', 'UserPlan', 'AuditLogs'],
      // The answer is the updated user: the list shows it before the refetch answers.
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          dispatch(
            generatedApi.util.updateQueryData('adminListUsers', undefined, (draft) =>
              draft.map((u) => (u._id === data._id ? data : u)),
            ),
          );
        } catch {
          // shown by the caller
        }
      },
    },
    adminSetBan: {
      invalidatesTags: ['AdminUsers'],
      async onQueryStarted({ id }, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          dispatch(
            generatedApi.util.updateQueryData('adminListUsers', undefined, (draft) =>
              draft.map((u) => (u._id === id ? { ...u, ...data } : u)),
            ),
          );
        } catch {
          // shown by the caller
        }
      },
    },
    adminDeleteUser: { invalidatesTags: ['AdminUsers', 'AdminStats', 'AdminAgents'] },
    adminDeleteAgent: { invalidatesTags: ['AdminAgents', 'SystemStatus'] },
  },
});
