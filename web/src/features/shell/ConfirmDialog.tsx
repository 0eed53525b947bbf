// A small confirmation dialog in place of window.confirm: `const [confirm, dialog] = useConfirm()`,
// render `dialog`, then `if (await confirm('Are you sure…?')) …`.
import { useCallback, useRef, useState, type ReactNode } from 'react';
import { Button, Dialog, Portal, Text } from '@chakra-ui/react';

export interface ConfirmOptions {
  title?: string;
  confirmLabel?: string;
  /** red confirm button for destructive actions */
  destructive?: boolean;
  /** more under the question (e.g. a command to run first) */
  details?: ReactNode;
}

interface Pending extends ConfirmOptions {
  message: string;
}

export function useConfirm(): [(message: string, options?: ConfirmOptions) => Promise<boolean>, ReactNode] {
  const [pending, setPending] = useState<Pending | null>(null);
  const resolver = useRef<((ok: boolean) => void) | null>(null);

  const confirm = useCallback((message: string, options: ConfirmOptions = {}) => {
    resolver.current?.(false);
    setPending({ message, ...options });
    return new Promise<boolean>((resolve) => {
      resolver.current = resolve;
    });
  }, []);

  const settle = (ok: boolean) => {
    resolver.current?.(ok);
    resolver.current = null;
    setPending(null);
  };

  const dialog = (
    <Dialog.Root
      open={pending !== null}
      onOpenChange={(e) => {
        if (!e.open) settle(false);
      }}
      role="alertdialog"
      placement="center"
      size="sm"
    >
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content data-testid="confirm-dialog">
            <Dialog.Header>
              <Dialog.Title>{pending?.title ?? 'Please confirm'}</Dialog.Title>
            </Dialog.Header>
            <Dialog.Body>
              <Text>{pending?.message}</Text>
              {pending?.details}
            </Dialog.Body>
            <Dialog.Footer>
              <Button variant="outline" onClick={() => settle(false)}>
                Cancel
              </Button>
              <Button colorPalette={pending?.destructive ? 'red' : 'brand'} onClick={() => settle(true)}>
                {pending?.confirmLabel ?? 'OK'}
              </Button>
            </Dialog.Footer>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );

  return [confirm, dialog];
}
