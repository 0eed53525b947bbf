// Client-side checks and their exact messages (product §5).
export const PASSWORD_MIN = 6;
export const NAME_MIN = 2;

export const MSG_EMAIL = 'Please enter a valid email address';
export const MSG_PASSWORD_MIN = 'Password must be at least 6 characters';
export const MSG_NAME_MIN = 'Name must be at least 2 characters';
export const MSG_PASSWORDS_DIFFER = "Passwords don't match";

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isValidEmail(email: string): boolean {
  return EMAIL_RE.test(email.trim());
}

export type FieldErrors<K extends string> = Partial<Record<K, string>>;

export function hasErrors(errors: Record<string, string | undefined>): boolean {
  return Object.values(errors).some(Boolean);
}
