import type { EventBus, EventMap, StreamName } from '@coffer/common';

/**
 * What storage speaks on JetStream:
 * - publishes `storage.limit.exceeded` (stream STORAGE) when an upload is refused for the plan's
 *   storage limit; the message id is per blob, so a retried upload within the duplicate window
 *   does not report the same refusal twice;
 * - consumes `auth.user.deleted` (stream AUTH, durable consumer `storage`) and removes every blob
 *   of that user but those under the retention lock, which the sweep removes after their date.
 */
export const STORAGE_STREAMS: StreamName[] = ['STORAGE', 'AUTH'];
export const STORAGE_DURABLE = 'storage';

export function limitExceededEvent(data: EventMap['storage.limit.exceeded']) {
  return [
    'storage.limit.exceeded',
    data,
    { id: `storage.limit.exceeded:${data.userId}:${data.blobId}` },
  ] as const;
}

export async function startStorageConsumers(
  events: Pick<EventBus, 'consume'>,
  blobs: { removeUser(userId: string): Promise<number> },
) {
  return [
    await events.consume({
      stream: 'AUTH',
      durable: STORAGE_DURABLE,
      subjects: ['auth.user.deleted'],
      handler: async (event) => {
        const { userId } = event.data as EventMap['auth.user.deleted'];
        await blobs.removeUser(userId);
      },
    }),
  ];
}
