import { useEffect, useState, type FormEvent } from 'react';
import { Button, Link, Spinner, Stack, Text } from '@chakra-ui/react';
import { Link as RouterLink, useNavigate, useParams } from 'react-router';
import { apiErrorMessage, isHttpError } from '../../lib/errors';
import { FormAlert } from '../shell/FormAlert';
import { TextFields, type FieldSpec } from '../shell/TextField';
import { useFormValues } from '../shell/useFormValues';
import { useResetPasswordMutation, useVerifyResetTokenQuery } from '../../api/generated';
import { AuthLayout } from './AuthLayout';
import {
  MSG_PASSWORD_MIN,
  MSG_PASSWORDS_DIFFER,
  PASSWORD_MIN,
  hasErrors,
  type FieldErrors,
} from './validation';

export const RESET_REDIRECT_MS = 3000;

function VerifyingState() {
  return (
    <Stack align="center" gap="3" py="6">
      <Spinner color="brand.solid" />
      <Text color="fg.muted">Verifying reset token...</Text>
    </Stack>
  );
}

function InvalidState({ message }: { message: string }) {
  return (
    <Stack gap="5">
      <FormAlert status="error">{message}</FormAlert>
      <Link asChild color="brand.fg" fontWeight="medium" alignSelf="center">
        <RouterLink to="/forgot-password">Request a new password reset</RouterLink>
      </Link>
    </Stack>
  );
}

function SuccessState({ message }: { message: string }) {
  return (
    <Stack gap="4" textAlign="center">
      <FormAlert status="success">{message}</FormAlert>
      <Text color="fg.muted">Redirecting to login page...</Text>
      <Link asChild color="brand.fg" fontWeight="medium" alignSelf="center">
        <RouterLink to="/login">Go to login</RouterLink>
      </Link>
    </Stack>
  );
}

type ResetField = 'password' | 'confirmPassword';
const FIELDS: FieldSpec<ResetField>[] = [
  { name: 'password', label: 'New Password', type: 'password', autoComplete: 'new-password' },
  { name: 'confirmPassword', label: 'Confirm Password', type: 'password', autoComplete: 'new-password' },
];

function ResetForm({ token, onDone }: { token: string; onDone: (message: string) => void }) {
  const [values, setField] = useFormValues<ResetField>({ password: '', confirmPassword: '' });
  const { password, confirmPassword } = values;
  const [errors, setErrors] = useState<FieldErrors<ResetField>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [resetPassword, { isLoading }] = useResetPasswordMutation();

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const next = {
      password: password.length >= PASSWORD_MIN ? undefined : MSG_PASSWORD_MIN,
      confirmPassword: confirmPassword === password ? undefined : MSG_PASSWORDS_DIFFER,
    };
    setErrors(next);
    setFormError(null);
    if (hasErrors(next)) return;
    try {
      const res = await resetPassword({ token, body: { password } }).unwrap();
      onDone(res.message || 'Password has been reset successfully');
    } catch (err) {
      setFormError(apiErrorMessage(err, 'Failed to reset password', 'Failed to reset password'));
    }
  };

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="5">
        <Text fontWeight="semibold" fontSize="lg">
          Create new password
        </Text>
        {formError && <FormAlert status="error">{formError}</FormAlert>}
        <TextFields fields={FIELDS} values={values} errors={errors} onChange={setField} />
        <Button type="submit" colorPalette="brand" w="full" disabled={isLoading}>
          {isLoading ? 'Resetting...' : 'Reset Password'}
        </Button>
      </Stack>
    </form>
  );
}

export function ResetPasswordPage() {
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const [successMessage, setSuccessMessage] = useState<string | null>(null);
  const verify = useVerifyResetTokenQuery(token, { skip: !token, refetchOnMountOrArgChange: true });

  useEffect(() => {
    if (!successMessage) return;
    const id = window.setTimeout(() => navigate('/login', { replace: true }), RESET_REDIRECT_MS);
    return () => window.clearTimeout(id);
  }, [successMessage, navigate]);

  let body;
  if (successMessage) {
    body = <SuccessState message={successMessage} />;
  } else if (!token) {
    body = <InvalidState message="Invalid reset token" />;
  } else if (verify.isLoading || verify.isFetching) {
    body = <VerifyingState />;
  } else if (verify.isError) {
    body = (
      <InvalidState
        message={
          isHttpError(verify.error)
            ? apiErrorMessage(
                verify.error,
                'Invalid or expired reset token',
                'Invalid or expired reset token',
              )
            : 'An error occurred verifying the token'
        }
      />
    );
  } else if (verify.data && verify.data.valid === false) {
    body = <InvalidState message={verify.data.message || 'Invalid or expired reset token'} />;
  } else {
    body = <ResetForm token={token} onDone={setSuccessMessage} />;
  }

  return (
    <AuthLayout
      title="Reset your password"
      footer={
        successMessage ? undefined : (
          <Link asChild color="brand.fg" fontWeight="medium">
            <RouterLink to="/login">Back to login</RouterLink>
          </Link>
        )
      }
    >
      {body}
    </AuthLayout>
  );
}
