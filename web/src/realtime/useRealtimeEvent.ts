import { useEffect, useRef } from 'react';
import type { BrowserEventName, BrowserEventPayload } from '@coffer/contracts';
import { onRealtime } from './socket';

/** Calls the latest `handler` for every `event` while the component is mounted. */
export function useRealtimeEvent<E extends BrowserEventName>(
  event: E,
  handler: (payload: BrowserEventPayload<E>) => void,
): void {
  const ref = useRef(handler);
  useEffect(() => {
    ref.current = handler;
  });
  useEffect(() => onRealtime(event, (payload) => ref.current(payload)), [event]);
}
