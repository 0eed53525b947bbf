import { useState, type FormEvent } from 'react';
import { Button, Card, Stack } from '@chakra-ui/react';
import { useAppDispatch } from '../../app/hooks';
import { useUpdateProfileMutation, type Profile } from '../../api/generated';
import { apiErrorMessage } from '../../lib/errors';
import { patchSessionUser } from '../auth/sessionActions';
import { FormAlert } from '../shell/FormAlert';
import { TextFields, type FieldSpec } from '../shell/TextField';
import { useFormValues } from '../shell/useFormValues';

type Result = { status: 'success' | 'error'; message: string } | null;

type AccountField = 'name' | 'email' | 'currentPassword';
const FIELDS: FieldSpec<AccountField>[] = [
  { name: 'name', label: 'Full Name', autoComplete: 'name' },
  { name: 'email', label: 'Email Address', type: 'email', autoComplete: 'email' },
  // Asked for only when the e-mail changes: it is what a stolen session alone must not be able to do.
  {
    name: 'currentPassword',
    label: 'Current Password',
    helper: 'Needed to change your email. Your previous address is told of the change.',
    type: 'password',
    autoComplete: 'current-password',
  },
];

export function AccountTab({ profile }: { profile: Profile }) {
  const [values, setField] = useFormValues<AccountField>({
    name: profile.name ?? '',
    email: profile.email ?? '',
    currentPassword: '',
  });
  const { name, email, currentPassword } = values;
  const emailChanges = email.trim().toLowerCase() !== (profile.email ?? '').toLowerCase();
  const [result, setResult] = useState<Result>(null);
  const [updateProfile, { isLoading }] = useUpdateProfileMutation();
  const dispatch = useAppDispatch();

  // Only the email input type validates (product §5): the browser checks it on submit.
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setResult(null);
    try {
      const res = await updateProfile(
        emailChanges ? { name, email, currentPassword } : { name, email },
      ).unwrap();
      const user = res.user;
      dispatch(patchSessionUser({ name: user?.name ?? name, email: user?.email ?? email }));
      setField('currentPassword', '');
      setResult({ status: 'success', message: 'Profile updated successfully!' });
    } catch (err) {
      setResult({
        status: 'error',
        message: apiErrorMessage(err, 'Failed to update profile', 'An error occurred updating profile'),
      });
    }
  };

  return (
    <Card.Root maxW="2xl">
      <Card.Header>
        <Card.Title>Account Information</Card.Title>
        <Card.Description>Update your name and the email address you sign in with.</Card.Description>
      </Card.Header>
      <Card.Body>
        <form onSubmit={onSubmit}>
          <Stack gap="5">
            {result && <FormAlert status={result.status}>{result.message}</FormAlert>}
            <TextFields
              fields={FIELDS.filter((f) => f.name !== 'currentPassword' || emailChanges)}
              values={values}
              onChange={setField}
            />
            <Button type="submit" colorPalette="brand" alignSelf="flex-start" loading={isLoading}>
              Save Changes
            </Button>
          </Stack>
        </form>
      </Card.Body>
    </Card.Root>
  );
}
