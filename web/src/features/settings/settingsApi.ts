// Settings endpoints used so far; the Settings page itself comes later.
import { baseApi } from '../../api/baseApi';
import type { MessageResponse, RegenerateApiKeyResponse } from '../../api/types';

export const settingsApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    regenerateApiKey: build.mutation<RegenerateApiKeyResponse, void>({
      query: () => ({ url: '/settings/regenerate-api-key', method: 'POST' }),
      invalidatesTags: ['Profile', 'AuditLogs'],
    }),
    sendTestNotification: build.mutation<MessageResponse, void>({
      query: () => ({ url: '/settings/test-notification', method: 'POST' }),
    }),
  }),
});

export const { useRegenerateApiKeyMutation, useSendTestNotificationMutation } = settingsApi;
