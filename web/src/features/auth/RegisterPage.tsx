import { useState, type FormEvent } from 'react';
import { Button, Link, Stack, Text } from '@chakra-ui/react';
import { Link as RouterLink, useNavigate } from 'react-router';
import { useAppDispatch } from '../../app/hooks';
import { apiErrorMessage } from '../../lib/errors';
import { FormAlert } from '../shell/FormAlert';
import { TextFields, type FieldSpec } from '../shell/TextField';
import { useFormValues } from '../shell/useFormValues';
import { useRegisterMutation } from '../../api/generated';
import { AuthLayout } from './AuthLayout';
import { startSession } from './sessionActions';
import {
  hasErrors,
  isValidEmail,
  MSG_EMAIL,
  MSG_NAME_MIN,
  MSG_PASSWORD_MIN,
  MSG_PASSWORDS_DIFFER,
  NAME_MIN,
  PASSWORD_MIN,
  type FieldErrors,
} from './validation';

type RegisterField = 'name' | 'email' | 'password' | 'confirmPassword';

const FIELDS: FieldSpec<RegisterField>[] = [
  { name: 'name', label: 'Full name', autoComplete: 'name' },
  { name: 'email', label: 'Email address', type: 'email', autoComplete: 'email' },
  { name: 'password', label: 'Password', type: 'password', autoComplete: 'new-password' },
  { name: 'confirmPassword', label: 'Confirm password', type: 'password', autoComplete: 'new-password' },
];

export function RegisterPage() {
  const [values, setField] = useFormValues<RegisterField>({
    name: '',
    email: '',
    password: '',
    confirmPassword: '',
  });
  const [errors, setErrors] = useState<FieldErrors<RegisterField>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [register, { isLoading }] = useRegisterMutation();
  const dispatch = useAppDispatch();
  const navigate = useNavigate();

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const next: FieldErrors<RegisterField> = {
      name: values.name.trim().length >= NAME_MIN ? undefined : MSG_NAME_MIN,
      email: isValidEmail(values.email) ? undefined : MSG_EMAIL,
      password: values.password.length >= PASSWORD_MIN ? undefined : MSG_PASSWORD_MIN,
      confirmPassword: values.confirmPassword === values.password ? undefined : MSG_PASSWORDS_DIFFER,
    };
    setErrors(next);
    setFormError(null);
    if (hasErrors(next)) return;
    try {
      const res = await register({
        name: values.name.trim(),
        email: values.email.trim(),
        password: values.password,
      }).unwrap();
      dispatch(startSession(res));
      navigate(res.user?.isBanned ? '/banned' : '/dashboard', { replace: true });
    } catch (err) {
      setFormError(
        apiErrorMessage(
          err,
          'Registration failed',
          'An error occurred during registration. Please try again.',
        ),
      );
    }
  };

  return (
    <AuthLayout
      title="Create your account"
      subtitle="Start protecting your MongoDB databases in minutes"
      footer={
        <>
          Already have an account?{' '}
          <Link asChild color="brand.fg" fontWeight="medium">
            <RouterLink to="/login">Sign in</RouterLink>
          </Link>
        </>
      }
    >
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="5">
          {formError && <FormAlert status="error">{formError}</FormAlert>}
          <TextFields fields={FIELDS} values={values} errors={errors} onChange={setField} />
          <Text fontSize="sm" color="fg.muted">
            By creating an account you agree to the{' '}
            <Link asChild color="brand.fg">
              <RouterLink to="/terms">Terms of Service</RouterLink>
            </Link>{' '}
            and{' '}
            <Link asChild color="brand.fg">
              <RouterLink to="/privacy">Privacy Policy</RouterLink>
            </Link>
            .
          </Text>
          <Button type="submit" colorPalette="brand" w="full" disabled={isLoading}>
            {isLoading ? 'Creating account...' : 'Create account'}
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}
