import { baseApi } from '../../api/baseApi';
import type { AuditLogsResponse } from '../../api/types';

export interface AuditLogsArgs {
  page: number;
  /** empty string means all actions */
  action: string;
}

export const auditApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    getAuditLogs: build.query<AuditLogsResponse, AuditLogsArgs>({
      query: ({ page, action }) => `/user/audit-logs?page=${page}&action=${encodeURIComponent(action)}`,
      providesTags: ['AuditLogs'],
    }),
    getAuditActions: build.query<string[], void>({
      query: () => '/user/audit-actions',
    }),
  }),
});

export const { useGetAuditLogsQuery, useGetAuditActionsQuery } = auditApi;
