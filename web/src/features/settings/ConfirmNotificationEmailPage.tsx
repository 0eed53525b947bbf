// The page a confirmation link opens (/confirm-notification-email/:token): it confirms the new
// notification address once, on arrival, and says what happened. Public: the link may be opened
// on a device where the user is not signed in.
import { useEffect, useRef, useState } from 'react';
import { Link, Spinner, Stack, Text } from '@chakra-ui/react';
import { Link as RouterLink, useParams } from 'react-router';
import { useConfirmNotificationEmailMutation } from '../../api/generated';
import { apiErrorMessage } from '../../lib/errors';
import { AuthLayout } from '../auth/AuthLayout';
import { FormAlert } from '../shell/FormAlert';

type State = { status: 'confirming' } | { status: 'success' | 'error'; message: string };

const NOT_REACHED = 'Could not reach Coffer to confirm the address. Please try the link again.';

export function ConfirmNotificationEmailPage() {
  const { token = '' } = useParams();
  const [confirm] = useConfirmNotificationEmailMutation();
  const [state, setState] = useState<State>({ status: 'confirming' });
  // The token works once: React's development double effects must not spend it twice.
  const sent = useRef(false);

  useEffect(() => {
    if (sent.current) return;
    sent.current = true;
    confirm({ token })
      .unwrap()
      .then((res) => setState({ status: 'success', message: res.message }))
      .catch((err: unknown) =>
        setState({ status: 'error', message: apiErrorMessage(err, NOT_REACHED, NOT_REACHED) }),
      );
  }, [confirm, token]);

  return (
    <AuthLayout title="Notification email">
      {state.status === 'confirming' ? (
        <Stack align="center" gap="3" py="6">
          <Spinner color="brand.solid" />
          <Text color="fg.muted">Confirming your notification email...</Text>
        </Stack>
      ) : (
        <Stack gap="5">
          <FormAlert status={state.status}>{state.message}</FormAlert>
          <Link asChild color="brand.fg" fontWeight="medium" alignSelf="center">
            <RouterLink to="/settings?tab=notifications">Open notification settings</RouterLink>
          </Link>
        </Stack>
      )}
    </AuthLayout>
  );
}
