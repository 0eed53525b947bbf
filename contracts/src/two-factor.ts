// Two-factor sign-in at the edge: the headers a step-up travels in and the shape of the codes, so
// the gateway, the web app and the tests agree (docs/architecture.md "Two-factor sign-in").

/** A current TOTP code sent with a request that needs step-up (scripts and the API). */
export const STEP_UP_CODE_HEADER = 'X-Coffer-2FA';
/** A step-up token from POST /api/auth/step-up (the web app: one code covers a few minutes). */
export const STEP_UP_TOKEN_HEADER = 'X-Coffer-Step-Up';
/** The `typ` claim of a step-up token: a session token never has one. */
export const STEP_UP_TOKEN_TYPE = 'coffer-step-up';

/** The `typ` claim of the challenge POST /api/auth/login answers when the second step is due. */
export const SIGN_IN_CHALLENGE_TYPE = 'coffer-2fa-challenge';

/** Six digits from an authenticator app. */
export const TOTP_CODE = /^\d{6}$/;
/** How many single-use recovery codes an enrolment (or a regeneration) gives. */
export const RECOVERY_CODE_COUNT = 10;

/** A code as typed: spaces and hyphens dropped, lower case (recovery codes are shown as xxxxx-xxxxx). */
export const normaliseSecondFactorCode = (code: string) => code.replace(/[\s-]/g, '').toLowerCase();
