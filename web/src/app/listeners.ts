// Reactions to rejected API calls (product §4, §6): a banned account goes to /banned; an inactive one
// is signed out with the server's reason; a 401, or a 401/403 with an expired token, ends the
// session with 'Session expired'.
import { createListenerMiddleware } from '@reduxjs/toolkit';
import type { AccountBannedError } from '../api/generated';
import { api as cachedApi } from '../api/cache';
import { requestRejected } from '../features/auth/authSlice';
import { accountBanned, endSession } from '../features/auth/sessionActions';
import { isTokenExpired } from '../features/auth/token';
import type { AppDispatch, RootState } from './store';

export const listenerMiddleware = createListenerMiddleware();
const startListening = listenerMiddleware.startListening.withTypes<RootState, AppDispatch>();

const codeOf = (body: unknown) =>
  typeof body === 'object' && body !== null ? (body as { code?: unknown }).code : undefined;

function isBannedBody(body: unknown): body is AccountBannedError {
  return codeOf(body) === 'ACCOUNT_BANNED';
}

startListening({
  actionCreator: requestRejected,
  effect: (action, api) => {
    const { isLoggedIn, token } = api.getState().auth;
    if (!isLoggedIn) return;
    const { status, body } = action.payload;
    if (status === 403 && isBannedBody(body)) {
      api.dispatch(accountBanned(body));
      return;
    }
    // An admin who must set up two-factor sign-in first: the route guard reads the fresh status
    // and sends them to Profile → Security.
    if (status === 403 && codeOf(body) === 'TWO_FACTOR_ENROLMENT_REQUIRED') {
      api.dispatch(cachedApi.util.invalidateTags(['TwoFactor']));
      return;
    }
    if (status === 403 && codeOf(body) === 'ACCOUNT_INACTIVE') {
      api.dispatch(endSession('inactive', (body as { message?: string }).message));
      return;
    }
    if (status === 401 || isTokenExpired(token)) {
      api.dispatch(endSession('expired'));
    }
  },
});
