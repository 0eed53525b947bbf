import { useState, type FormEvent } from 'react';
import { Button, Card, Field, Group, Input, Stack, Text } from '@chakra-ui/react';
import { useAppDispatch } from '../../app/hooks';
import { useChangePasswordMutation, type Profile } from '../../api/generated';
import { apiErrorMessage } from '../../lib/errors';
import { renewSessionToken } from '../auth/sessionActions';
import { MSG_PASSWORD_MIN, PASSWORD_MIN } from '../auth/validation';
import { FormAlert } from '../shell/FormAlert';
import { TextFields, type FieldSpec } from '../shell/TextField';
import { useFormValues } from '../shell/useFormValues';
import { TwoFactorCard } from './TwoFactorCard';

const MSG_NEW_PASSWORDS_DIFFER = 'New passwords do not match';

function ApiKeyCard({ apiKey }: { apiKey: string }) {
  const [visible, setVisible] = useState(false);
  return (
    <Card.Root>
      <Card.Header>
        <Card.Title>API Key</Card.Title>
        <Card.Description>Your agents authenticate with this key. Keep it secret.</Card.Description>
      </Card.Header>
      <Card.Body>
        <Field.Root>
          <Field.Label srOnly>API Key</Field.Label>
          <Group attached w="full">
            <Input
              readOnly
              type={visible ? 'text' : 'password'}
              value={apiKey ?? ''}
              fontFamily="mono"
              aria-label="API Key"
              data-testid="api-key"
            />
            <Button variant="outline" onClick={() => setVisible((v) => !v)} minW="20">
              {visible ? 'Hide' : 'Show'}
            </Button>
          </Group>
        </Field.Root>
      </Card.Body>
    </Card.Root>
  );
}

type PasswordField = 'currentPassword' | 'newPassword' | 'confirmPassword';
type Result = { status: 'success' | 'error'; message: string } | null;
const EMPTY: Record<PasswordField, string> = { currentPassword: '', newPassword: '', confirmPassword: '' };
const PASSWORD_FIELDS: FieldSpec<PasswordField>[] = [
  { name: 'currentPassword', label: 'Current Password', type: 'password', autoComplete: 'current-password' },
  { name: 'newPassword', label: 'New Password', type: 'password', autoComplete: 'new-password' },
  { name: 'confirmPassword', label: 'Confirm New Password', type: 'password', autoComplete: 'new-password' },
];

function ChangePasswordCard() {
  const [values, setField, setValues] = useFormValues<PasswordField>(EMPTY);
  const [result, setResult] = useState<Result>(null);
  const [changePassword, { isLoading }] = useChangePasswordMutation();
  const dispatch = useAppDispatch();

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setResult(null);
    if (values.newPassword !== values.confirmPassword) {
      setResult({ status: 'error', message: MSG_NEW_PASSWORDS_DIFFER });
      return;
    }
    if (values.newPassword.length < PASSWORD_MIN) {
      setResult({ status: 'error', message: MSG_PASSWORD_MIN });
      return;
    }
    try {
      const { token } = await changePassword({
        currentPassword: values.currentPassword,
        newPassword: values.newPassword,
      }).unwrap();
      // Every other session has just ended; this one continues with the token it was given.
      dispatch(renewSessionToken(token));
      setValues(EMPTY);
      setResult({ status: 'success', message: 'Password updated successfully!' });
    } catch (err) {
      setResult({
        status: 'error',
        message: apiErrorMessage(err, 'Failed to update password', 'An error occurred updating password'),
      });
    }
  };

  return (
    <Card.Root>
      <Card.Header>
        <Card.Title>Change Password</Card.Title>
        <Card.Description>Use at least {PASSWORD_MIN} characters.</Card.Description>
      </Card.Header>
      <Card.Body>
        <form onSubmit={onSubmit} noValidate>
          <Stack gap="5">
            {result && <FormAlert status={result.status}>{result.message}</FormAlert>}
            <TextFields fields={PASSWORD_FIELDS} values={values} onChange={setField} />
            <Button type="submit" colorPalette="brand" alignSelf="flex-start" loading={isLoading}>
              Update Password
            </Button>
          </Stack>
        </form>
      </Card.Body>
    </Card.Root>
  );
}

export function SecurityTab({ profile }: { profile: Profile }) {
  return (
    <Stack gap="6" maxW="2xl">
      <ApiKeyCard apiKey={profile.apiKey} />
      <TwoFactorCard />
      <ChangePasswordCard />
      <Text fontSize="sm" color="fg.muted">
        Backup encryption keys never leave your servers; they are managed by the agent, not by your account.
      </Text>
    </Stack>
  );
}
