import type { EventBus } from '@coffer/common';

/**
 * What kb publishes (all on the KB stream): kb.article.created, updated, deleted, published and
 * unpublished, each carrying the admin who acted (the audit service writes them to that admin's
 * log). kb consumes no events.
 */
export type KbEvents = Pick<EventBus, 'publish'>;
export const KB_STREAMS = ['KB'] as const;
