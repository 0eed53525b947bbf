import { baseApi } from '../../api/baseApi';
import type { SystemStatus } from '../../api/types';

export const dashboardApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    getSystemStatus: build.query<SystemStatus, void>({
      query: () => '/settings/system-status',
      providesTags: ['SystemStatus'],
    }),
    // Only whether the answer is OK is read (spec §7).
    checkServerStatus: build.mutation<unknown, void>({
      query: () => ({ url: '/agents/server-status', method: 'GET' }),
    }),
  }),
});

export const { useGetSystemStatusQuery, useCheckServerStatusMutation } = dashboardApi;
