import { useEffect, useRef } from 'react';
import type { RealtimeEventName, RealtimePayload } from './events';
import { onRealtime } from './socket';

/** Calls the latest `handler` for every `event` while the component is mounted. */
export function useRealtimeEvent<E extends RealtimeEventName>(
  event: E,
  handler: (payload: RealtimePayload<E>) => void,
): void {
  const ref = useRef(handler);
  useEffect(() => {
    ref.current = handler;
  });
  useEffect(() => onRealtime(event, (payload) => ref.current(payload)), [event]);
}
