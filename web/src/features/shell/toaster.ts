// One toast at a time (newest replaces the current one), 5000 ms by default, F8 focuses the region,
// swiped 50 px sideways it goes away (Toaster.tsx).
import { createToaster } from '@chakra-ui/react';

export const toaster = createToaster({
  placement: 'bottom-end',
  max: 1,
  duration: 5000,
  hotkey: ['F8'],
  pauseOnPageIdle: true,
});

/** A toast dragged sideways this far is dismissed (product §9). */
export const TOAST_SWIPE_THRESHOLD_PX = 50;

export type ToastType = 'success' | 'error' | 'info' | 'warning' | 'loading';

export interface NotifyOptions {
  title: string;
  description?: string;
  type?: ToastType;
  duration?: number;
}

/** Shows a toast, replacing any visible one (limit 1). Returns the toast id. */
export function notify({ title, description, type = 'info', duration }: NotifyOptions): string {
  toaster.remove();
  return toaster.create({ title, description, type, duration, closable: true });
}

/** Changes a visible toast in place (progress toasts); a dismissed one stays dismissed. */
export function updateToast(id: string, { title, description, type, duration }: NotifyOptions): void {
  if (toaster.isVisible(id)) {
    toaster.update(id, { title, description, type, duration });
  }
}
