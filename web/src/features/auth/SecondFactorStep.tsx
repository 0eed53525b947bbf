// Sign-in's second step (two-factor sign-in on): a code from the authenticator app, or a recovery code.
import { useState, type FormEvent } from 'react';
import { Button, Field, Input, Stack } from '@chakra-ui/react';
import { useLoginSecondFactorMutation, type SessionAnswer } from '../../api/generated';
import { apiErrorMessage, httpStatus } from '../../lib/errors';
import { FormAlert } from '../shell/FormAlert';

export const MSG_CODE_REQUIRED = 'Enter the code from your authenticator app';
export const MSG_RECOVERY_REQUIRED = 'Enter one of your recovery codes';

export function SecondFactorStep({
  challenge,
  onSignedIn,
  onRestart,
}: {
  challenge: string;
  onSignedIn: (session: SessionAnswer) => void;
  /** Back to email and password, with a message when the challenge has expired. */
  onRestart: (message?: string) => void;
}) {
  const [recovery, setRecovery] = useState(false);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [verify, { isLoading }] = useLoginSecondFactorMutation();

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!code.trim()) {
      setError(recovery ? MSG_RECOVERY_REQUIRED : MSG_CODE_REQUIRED);
      return;
    }
    try {
      onSignedIn(await verify({ challenge, code: code.trim() }).unwrap());
    } catch (err) {
      const message = apiErrorMessage(err, 'Login failed', 'Invalid code. Please try again.');
      // The challenge expired (5 minutes) or the password changed: the first step again.
      if (httpStatus(err) === 401) onRestart(message);
      else setError(message);
    }
  };

  const switchMode = () => {
    setRecovery((r) => !r);
    setCode('');
    setError(null);
  };

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="5">
        {error && <FormAlert status="error">{error}</FormAlert>}
        <Field.Root invalid={Boolean(error)}>
          <Field.Label>{recovery ? 'Recovery code' : 'Two-factor code'}</Field.Label>
          <Input
            key={recovery ? 'recovery' : 'totp'}
            name="code"
            autoFocus
            autoComplete="one-time-code"
            inputMode={recovery ? 'text' : 'numeric'}
            placeholder={recovery ? 'xxxxx-xxxxx' : '123456'}
            fontFamily="mono"
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
          <Field.HelperText>
            {recovery
              ? 'Each recovery code works once.'
              : 'Open your authenticator app and enter the six-digit code for Coffer.'}
          </Field.HelperText>
        </Field.Root>
        <Button type="submit" colorPalette="brand" w="full" disabled={isLoading}>
          {isLoading ? 'Verifying...' : 'Verify'}
        </Button>
        <Button variant="ghost" size="sm" onClick={switchMode}>
          {recovery ? 'Use your authenticator app' : 'Use a recovery code'}
        </Button>
        <Button variant="outline" w="full" onClick={() => onRestart()}>
          Back to sign in
        </Button>
      </Stack>
    </form>
  );
}
