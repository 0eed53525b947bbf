// The step-up dialog: opened by an action the API refused with STEP_UP_REQUIRED; the code it takes
// buys a step-up token, and the action is retried (api/baseApi.ts).
import { useState, type FormEvent } from 'react';
import { Button, Dialog, Field, Input, Portal, Stack, Text } from '@chakra-ui/react';
import { useStepUpMutation } from '../../api/generated';
import { apiErrorMessage } from '../../lib/errors';
import { FormAlert } from '../shell/FormAlert';
import { stepUpCancelled, stepUpGiven, useStepUpPending } from './stepUp';

export function StepUpDialog() {
  const open = useStepUpPending();
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [stepUp, { isLoading }] = useStepUpMutation();

  const close = () => {
    setCode('');
    setError(null);
  };

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!code.trim()) {
      setError('Enter the code from your authenticator app');
      return;
    }
    try {
      const res = await stepUp({ code: code.trim() }).unwrap();
      close();
      stepUpGiven(res.stepUpToken, res.expiresAt);
    } catch (err) {
      setError(
        apiErrorMessage(err, 'That code did not work', 'The code could not be checked. Please try again.'),
      );
    }
  };

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(e) => {
        if (!e.open) {
          close();
          stepUpCancelled();
        }
      }}
      placement="center"
      size="sm"
    >
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content data-testid="step-up-dialog">
            <form onSubmit={onSubmit} noValidate>
              <Dialog.Header>
                <Dialog.Title>Confirm with your two-factor code</Dialog.Title>
              </Dialog.Header>
              <Dialog.Body>
                <Stack gap="4">
                  <Text>
                    This action needs your second factor again. Enter the current code from your authenticator
                    app, or one of your recovery codes.
                  </Text>
                  {error && <FormAlert status="error">{error}</FormAlert>}
                  <Field.Root invalid={Boolean(error)}>
                    <Field.Label>Two-factor code</Field.Label>
                    <Input
                      name="stepUpCode"
                      autoFocus
                      autoComplete="one-time-code"
                      fontFamily="mono"
                      value={code}
                      onChange={(e) => setCode(e.target.value)}
                    />
                  </Field.Root>
                </Stack>
              </Dialog.Body>
              <Dialog.Footer>
                <Button
                  variant="outline"
                  onClick={() => {
                    close();
                    stepUpCancelled();
                  }}
                >
                  Cancel
                </Button>
                <Button type="submit" colorPalette="brand" loading={isLoading}>
                  Confirm
                </Button>
              </Dialog.Footer>
            </form>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}
