import { useState, type FormEvent } from 'react';
import { Button, Card, Field, Input, Stack } from '@chakra-ui/react';
import { useAppDispatch } from '../../app/hooks';
import { useUpdateProfileMutation, type Profile } from '../../api/generated';
import { apiErrorMessage } from '../../lib/errors';
import { patchSessionUser } from '../auth/sessionActions';
import { FormAlert } from '../shell/FormAlert';

type Result = { status: 'success' | 'error'; message: string } | null;

export function AccountTab({ profile }: { profile: Profile }) {
  const [name, setName] = useState(profile.name ?? '');
  const [email, setEmail] = useState(profile.email ?? '');
  const [result, setResult] = useState<Result>(null);
  const [updateProfile, { isLoading }] = useUpdateProfileMutation();
  const dispatch = useAppDispatch();

  // Only the email input type validates (spec §5): the browser checks it on submit.
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setResult(null);
    try {
      const res = await updateProfile({ name, email }).unwrap();
      const user = res.user;
      dispatch(patchSessionUser({ name: user?.name ?? name, email: user?.email ?? email }));
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
            <Field.Root>
              <Field.Label>Full Name</Field.Label>
              <Input name="name" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
            </Field.Root>
            <Field.Root>
              <Field.Label>Email Address</Field.Label>
              <Input
                name="email"
                type="email"
                autoComplete="email"
                value={email}
                onChange={(e) => setEmail(e.target.value)}
              />
            </Field.Root>
            <Button type="submit" colorPalette="brand" alignSelf="flex-start" loading={isLoading}>
              Save Changes
            </Button>
          </Stack>
        </form>
      </Card.Body>
    </Card.Root>
  );
}
