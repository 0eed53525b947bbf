import { cursorOf } from '@coffer/common';
import { LIST_NEWEST } from '@coffer/contracts';
import type { AuditStore, StoredAuditEntry } from '../store.js';
import { isAuditAction, type AuditAction } from './actions.js';

/** The page the web app shows and the gateway asks for (contracts: LIST_NEWEST). */
export const DEFAULT_PAGE_SIZE = LIST_NEWEST.auditLog;
export const MAX_PAGE_SIZE = 100;

export interface LogPage {
  logs: StoredAuditEntry[];
  total: number;
  page: number;
  /** Number of pages, at least 1 so "Page 1 of 1" reads right for an empty log. */
  pages: number;
}

/** Reading a user's own audit trail. Every query is scoped to that user. */
export function auditLogs(deps: { store: Pick<AuditStore, 'page' | 'get' | 'distinctActions'> }) {
  return {
    /**
     * One page of the log: the `page`th of `pageSize` entries (the spec's call), or the `pageSize`
     * entries older than the entry `before` names (services/common/src/paging.ts), numbered by
     * how many entries are newer, so "Page X of Y" reads right either way.
     */
    async list(input: {
      userId: string;
      page: number;
      pageSize: number;
      action?: AuditAction;
      before?: string;
    }): Promise<LogPage> {
      const cursor = await cursorOf(deps.store, input.userId, input.before, 'audit entry');
      const { entries, total, newer } = await deps.store.page(
        { userId: input.userId, action: input.action },
        cursor ?? (input.page - 1) * input.pageSize,
        input.pageSize,
      );
      return {
        logs: entries,
        total,
        page: Math.floor(newer / input.pageSize) + 1,
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
