// /api/settings/* and agent management (spec §7).
import { baseApi } from '../../api/baseApi';
import type {
  AgentAction,
  Database,
  MessageResponse,
  RegenerateApiKeyResponse,
  Settings,
  UpdateSettingsRequest,
} from '../../api/types';

export const settingsApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    getSettings: build.query<Settings, void>({
      query: () => '/settings',
      providesTags: ['Settings'],
    }),
    updateSettings: build.mutation<Settings, UpdateSettingsRequest>({
      query: (body) => ({ url: '/settings', method: 'PUT', body }),
      invalidatesTags: ['AuditLogs'],
      // The answer has the GET shape: it becomes the cached settings.
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          if (data && typeof data === 'object' && 'frequency' in data) {
            dispatch(settingsApi.util.upsertQueryData('getSettings', undefined, data));
          }
        } catch {
          // shown by the caller
        }
      },
    }),
    getDatabases: build.query<Database[], void>({
      query: () => '/settings/databases',
      providesTags: ['Databases'],
    }),
    updateDatabase: build.mutation<Database[], { id: string; isActive: boolean }>({
      query: ({ id, isActive }) => ({
        url: `/settings/databases/${encodeURIComponent(id)}`,
        method: 'PUT',
        body: { isActive },
      }),
      // The answer is the whole list.
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          if (Array.isArray(data))
            dispatch(settingsApi.util.upsertQueryData('getDatabases', undefined, data));
        } catch {
          // shown by the caller
        }
      },
    }),
    manageAgent: build.mutation<MessageResponse, { agentId: string; action: AgentAction }>({
      query: ({ agentId, action }) => ({
        url: `/agents/manage/${encodeURIComponent(agentId)}`,
        method: 'POST',
        body: { action },
      }),
      invalidatesTags: ['SystemStatus'],
    }),
    regenerateApiKey: build.mutation<RegenerateApiKeyResponse, void>({
      query: () => ({ url: '/settings/regenerate-api-key', method: 'POST' }),
      invalidatesTags: ['Profile', 'AuditLogs'],
    }),
    sendTestNotification: build.mutation<MessageResponse, void>({
      query: () => ({ url: '/settings/test-notification', method: 'POST' }),
    }),
  }),
});

export const {
  useGetSettingsQuery,
  useUpdateSettingsMutation,
  useGetDatabasesQuery,
  useUpdateDatabaseMutation,
  useManageAgentMutation,
  useRegenerateApiKeyMutation,
  useSendTestNotificationMutation,
} = settingsApi;
