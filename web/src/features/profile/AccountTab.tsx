import { useState, type FormEvent } from 'react';
import { Button, Card, Stack } from '@chakra-ui/react';
import { useAppDispatch } from '../../app/hooks';
import { useUpdateProfileMutation, type Profile } from '../../api/generated';
import { apiErrorMessage } from '../../lib/errors';
import { patchSessionUser } from '../auth/sessionActions';
import { FormAlert } from '../shell/FormAlert';
import { TextField } from '../shell/TextField';

type Result = { status: 'success' | 'error'; message: string } | null;

export function AccountTab({ profile }: { profile: Profile }) {
  const [name, setName] = useState(profile.name ?? '');
  const [email, setEmail] = useState(profile.email ?? '');
  // Asked for only when the e-mail changes: it is what a stolen session alone must not be able to do.
  const [currentPassword, setCurrentPassword] = useState('');
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
      setCurrentPassword('');
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
            <TextField
              label="Full Name"
              name="name"
              autoComplete="name"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
            <TextField
              label="Email Address"
              name="email"
              type="email"
              autoComplete="email"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
            {emailChanges && (
              <TextField
                label="Current Password"
                helper="Needed to change your email. Your previous address is told of the change."
                name="currentPassword"
                type="password"
                autoComplete="current-password"
                value={currentPassword}
                onChange={(e) => setCurrentPassword(e.target.value)}
              />
            )}
            <Button type="submit" colorPalette="brand" alignSelf="flex-start" loading={isLoading}>
              Save Changes
            </Button>
          </Stack>
        </form>
      </Card.Body>
    </Card.Root>
  );
}
