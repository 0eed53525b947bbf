import { useEffect, useRef, useState, type PointerEvent } from 'react';
import { Portal, Spinner, Stack, Toast, Toaster as ChakraToaster, type ToastOptions } from '@chakra-ui/react';
import { TOAST_SWIPE_THRESHOLD_PX, toaster } from './toaster';

export const TOAST_REGION_LABEL = 'Notifications (F8)';

export function Toaster() {
  // F8 moves focus to the notification region (the toaster's own hotkey does the same; this also
  // covers the region while it is empty and keeps the behaviour independent of library defaults).
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'F8') return;
      const region = document.querySelector<HTMLElement>(`[aria-label="${TOAST_REGION_LABEL}"]`);
      if (!region) return;
      event.preventDefault();
      region.focus();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, []);

  return (
    <Portal>
      <ChakraToaster toaster={toaster} aria-label={TOAST_REGION_LABEL} insetInline={{ mdDown: '4' }}>
        {(toast) => <ToastCard toast={toast} />}
      </ChakraToaster>
    </Portal>
  );
}

function ToastCard({ toast }: { toast: ToastOptions }) {
  const swipe = useSwipeToDismiss(() => toaster.dismiss(toast.id));
  return (
    <Toast.Root
      width={{ md: 'sm' }}
      data-testid="toast"
      // Horizontal drags are ours (swipe to dismiss); vertical ones still scroll the page on touch.
      touchAction="pan-y"
      transform={swipe.offset ? `translateX(${swipe.offset}px)` : undefined}
      opacity={swipe.offset ? Math.max(0.4, 1 - Math.abs(swipe.offset) / 200) : undefined}
      {...swipe.handlers}
    >
      {toast.type === 'loading' ? <Spinner size="sm" color="brand.solid" /> : <Toast.Indicator />}
      <Stack gap="1" flex="1" maxWidth="100%">
        {toast.title && <Toast.Title>{toast.title}</Toast.Title>}
        {toast.description && <Toast.Description>{toast.description}</Toast.Description>}
      </Stack>
      {toast.action && <Toast.ActionTrigger>{toast.action.label}</Toast.ActionTrigger>}
      {toast.closable && <Toast.CloseTrigger />}
    </Toast.Root>
  );
}

/** Movement below this is a click (the close button must keep working), not the start of a swipe. */
const SWIPE_START_PX = 5;

/**
 * Swipe a toast sideways to dismiss it (product §9: threshold 50 px). The toast follows the pointer;
 * released short of the threshold it springs back. The pointer is captured only once the drag is a
 * swipe, so a plain click still reaches the buttons inside.
 */
function useSwipeToDismiss(onDismiss: () => void) {
  const start = useRef<{ x: number; pointerId: number; swiping: boolean } | null>(null);
  const [offset, setOffset] = useState(0);

  const end = (e: PointerEvent<HTMLElement>, cancelled: boolean) => {
    const s = start.current;
    if (!s || s.pointerId !== e.pointerId) return;
    start.current = null;
    const dx = e.clientX - s.x;
    if (!cancelled && s.swiping && Math.abs(dx) >= TOAST_SWIPE_THRESHOLD_PX) onDismiss();
    else setOffset(0);
  };

  return {
    offset,
    handlers: {
      onPointerDown: (e: PointerEvent<HTMLElement>) => {
        if (e.button !== 0) return;
        start.current = { x: e.clientX, pointerId: e.pointerId, swiping: false };
      },
      onPointerMove: (e: PointerEvent<HTMLElement>) => {
        const s = start.current;
        if (!s || s.pointerId !== e.pointerId) return;
        const dx = e.clientX - s.x;
        if (!s.swiping) {
          if (Math.abs(dx) < SWIPE_START_PX) return;
          s.swiping = true;
          e.currentTarget.setPointerCapture(e.pointerId);
        }
        setOffset(dx);
      },
      onPointerUp: (e: PointerEvent<HTMLElement>) => end(e, false),
      onPointerCancel: (e: PointerEvent<HTMLElement>) => end(e, true),
    },
  };
}
