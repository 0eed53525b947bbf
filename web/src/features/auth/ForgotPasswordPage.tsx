import { useState, type FormEvent } from 'react';
import { Button, Link, Stack, Text } from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router';
import { apiErrorMessage } from '../../lib/errors';
import { FormAlert } from '../shell/FormAlert';
import { TextField } from '../shell/TextField';
import { useForgotPasswordMutation } from '../../api/generated';
import { AuthLayout } from './AuthLayout';
import { isValidEmail, MSG_EMAIL } from './validation';

const DEFAULT_SENT_MESSAGE = 'If an account with that email exists, a password reset link has been sent.';

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [emailError, setEmailError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [sentMessage, setSentMessage] = useState<string | null>(null);
  const [forgotPassword, { isLoading }] = useForgotPasswordMutation();

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setFormError(null);
    if (!isValidEmail(email)) {
      setEmailError(MSG_EMAIL);
      return;
    }
    setEmailError(null);
    try {
      const res = await forgotPassword({ email: email.trim() }).unwrap();
      // Development servers may hand back the token so the flow can be tried without mail.
      if (import.meta.env.DEV && (res.resetToken || res.resetUrl)) {
        console.log('Password reset token:', res.resetToken, 'URL:', res.resetUrl);
      }
      setSentMessage(res.message || DEFAULT_SENT_MESSAGE);
    } catch (err) {
      setFormError(
        apiErrorMessage(err, 'Failed to send password reset email', 'An error occurred. Please try again.'),
      );
    }
  };

  const tryAnother = () => {
    setSentMessage(null);
    setEmail('');
  };

  return (
    <AuthLayout
      title="Reset your password"
      subtitle="Enter your email and we'll send you a link to choose a new password"
      footer={
        <Link asChild color="brand.fg" fontWeight="medium">
          <RouterLink to="/login">Back to login</RouterLink>
        </Link>
      }
    >
      {sentMessage ? (
        <Stack gap="5">
          <FormAlert status="success">{sentMessage}</FormAlert>
          <Text fontSize="sm" color="fg.muted">
            Check your inbox, and your spam folder if nothing arrives.
          </Text>
          <Button variant="outline" w="full" onClick={tryAnother}>
            Try another email
          </Button>
        </Stack>
      ) : (
        <form onSubmit={onSubmit} noValidate>
          <Stack gap="5">
            {formError && <FormAlert status="error">{formError}</FormAlert>}
            <TextField
              label="Email address"
              error={emailError}
              name="email"
              type="email"
              autoComplete="email"
              placeholder="you@company.com"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
            <Button type="submit" colorPalette="brand" w="full" disabled={isLoading}>
              {isLoading ? 'Sending...' : 'Send reset link'}
            </Button>
          </Stack>
        </form>
      )}
    </AuthLayout>
  );
}
