// Step-up (two-factor sign-in on): an action the API answers with 403 STEP_UP_REQUIRED is retried
// once the user has given their code in the step-up dialog. The step-up token the code buys is kept
// in memory only (never in storage) and sent with requests until it expires, so one code covers a
// few minutes of actions. Any route that asks for step-up works this way without code of its own.
import { useSyncExternalStore } from 'react';
import { STEP_UP_TOKEN_HEADER } from '@coffer/contracts';

let held: { token: string; expiresAt: number } | null = null;
let pending: { promise: Promise<boolean>; settle: (ok: boolean) => void } | null = null;
const listeners = new Set<() => void>();
const changed = () => listeners.forEach((l) => l());

/** The header to send while a step-up token is valid (a little margin before its expiry). */
export function addStepUpHeader(headers: Headers): void {
  if (held && held.expiresAt - 10_000 > Date.now()) headers.set(STEP_UP_TOKEN_HEADER, held.token);
}

export function isStepUpRequired(error: unknown): boolean {
  const data = (error as { data?: { code?: unknown } } | undefined)?.data;
  return data?.code === 'STEP_UP_REQUIRED';
}

/** Opens the dialog (once for any number of waiting requests); true when the user confirmed. */
export function requestStepUp(): Promise<boolean> {
  held = null;
  if (!pending) {
    let settle!: (ok: boolean) => void;
    const promise = new Promise<boolean>((resolve) => {
      settle = resolve;
    });
    pending = { promise, settle };
    changed();
  }
  return pending.promise;
}

function finish(ok: boolean) {
  const p = pending;
  pending = null;
  changed();
  p?.settle(ok);
}

/** The dialog's answers: a token from POST /api/auth/step-up, or a cancel. */
export function stepUpGiven(token: string, expiresAt: string): void {
  held = { token, expiresAt: new Date(expiresAt).getTime() };
  finish(true);
}
export const stepUpCancelled = () => finish(false);

/** Signing out forgets the token. */
export function forgetStepUp(): void {
  held = null;
  if (pending) finish(false);
}

/** Whether the dialog should be open. */
export const useStepUpPending = () =>
  useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => pending !== null,
  );
