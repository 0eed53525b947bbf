import type { AuditStore, StoredAuditEntry } from '../store.js';
import { isAuditAction, type AuditAction } from './actions.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface LogPage {
  logs: StoredAuditEntry[];
  total: number;
  page: number;
  /** Number of pages, at least 1 so "Page 1 of 1" reads right for an empty log. */
  pages: number;
}

/** Reading a user's own audit trail. Every query is scoped to that user. */
export function auditLogs(deps: { store: Pick<AuditStore, 'page' | 'distinctActions'> }) {
  return {
    async list(input: {
      userId: string;
      page: number;
      pageSize: number;
      action?: AuditAction;
    }): Promise<LogPage> {
      const { entries, total } = await deps.store.page(
        { userId: input.userId, action: input.action },
        (input.page - 1) * input.pageSize,
        input.pageSize,
      );
      return {
        logs: entries,
        total,
        page: input.page,
        pages: Math.max(1, Math.ceil(total / input.pageSize)),
      };
    },

    /** The actions present in the user's log, for the filter menu, in alphabetical order. */
    async actions(userId: string): Promise<AuditAction[]> {
      return (await deps.store.distinctActions(userId)).filter(isAuditAction).sort();
    },
  };
}
export type AuditLogs = ReturnType<typeof auditLogs>;
