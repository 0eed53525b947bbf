import { useState, type FormEvent } from 'react';
import { Button, Flex, Link, Separator, Stack, Text } from '@chakra-ui/react';
import { Link as RouterLink, useNavigate } from 'react-router';
import { useAppDispatch } from '../../app/hooks';
import { apiErrorMessage } from '../../lib/errors';
import { FormAlert } from '../shell/FormAlert';
import { TextFields, type FieldSpec } from '../shell/TextField';
import { useFormValues } from '../shell/useFormValues';
import { useLoginMutation, type SessionAnswer } from '../../api/generated';
import { AuthLayout } from './AuthLayout';
import { SecondFactorStep } from './SecondFactorStep';
import { startSession } from './sessionActions';
import {
  hasErrors,
  isValidEmail,
  MSG_EMAIL,
  MSG_PASSWORD_MIN,
  PASSWORD_MIN,
  type FieldErrors,
} from './validation';

type LoginField = 'email' | 'password';
const FIELDS: FieldSpec<LoginField>[] = [
  { name: 'email', label: 'Email', type: 'email', autoComplete: 'email', placeholder: 'you@company.com' },
  {
    name: 'password',
    label: 'Password',
    type: 'password',
    autoComplete: 'current-password',
    labelAside: (
      <Link asChild fontSize="sm" color="brand.fg">
        <RouterLink to="/forgot-password">Forgot your password?</RouterLink>
      </Link>
    ),
  },
];

export function LoginPage() {
  const [values, setField] = useFormValues<LoginField>({ email: '', password: '' });
  const { email, password } = values;
  const [errors, setErrors] = useState<FieldErrors<LoginField>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [login, { isLoading }] = useLoginMutation();
  // Set when the password was right and the account asks for a second factor.
  const [challenge, setChallenge] = useState<string | null>(null);
  const dispatch = useAppDispatch();
  const navigate = useNavigate();

  const signedIn = (res: SessionAnswer) => {
    dispatch(startSession(res));
    navigate(res.user.isBanned ? '/banned' : '/dashboard', { replace: true });
  };

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const next = {
      email: isValidEmail(email) ? undefined : MSG_EMAIL,
      password: password.length >= PASSWORD_MIN ? undefined : MSG_PASSWORD_MIN,
    };
    setErrors(next);
    setFormError(null);
    if (hasErrors(next)) return;
    try {
      const res = await login({ email: email.trim(), password }).unwrap();
      if ('challenge' in res) setChallenge(res.challenge);
      else signedIn(res);
    } catch (err) {
      setFormError(apiErrorMessage(err, 'Login failed', 'Invalid email or password. Please try again.'));
    }
  };

  if (challenge)
    return (
      <AuthLayout title="Two-factor sign-in" subtitle="Confirm it's you with your second factor">
        <SecondFactorStep
          challenge={challenge}
          onSignedIn={signedIn}
          onRestart={(message) => {
            setChallenge(null);
            setField('password', '');
            setFormError(message ?? null);
          }}
        />
      </AuthLayout>
    );

  return (
    <AuthLayout title="Welcome back" subtitle="Sign in to your Coffer account">
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="5">
          {formError && <FormAlert status="error">{formError}</FormAlert>}
          <TextFields fields={FIELDS} values={values} errors={errors} onChange={setField} />
          <Button type="submit" colorPalette="brand" w="full" disabled={isLoading}>
            {isLoading ? 'Signing in...' : 'Sign in'}
          </Button>
          <Flex align="center" gap="3">
            <Separator flex="1" />
            <Text fontSize="sm" color="fg.muted" flexShrink="0">
              New to Coffer?
            </Text>
            <Separator flex="1" />
          </Flex>
          <Button asChild variant="outline" w="full">
            <RouterLink to="/register">Create Account</RouterLink>
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}
