// Session side effects in one place: storage, realtime connection, API cache, toasts, routing.
import type { AppThunk } from '../../app/store';
import { navigateTo } from '../../app/navigation';
import { baseApi } from '../../api/baseApi';
import { api } from '../../api/cache';
import type { AccountBannedError, SessionAnswer, SessionUser } from '../../api/generated';
import { connectSocket, disconnectSocket } from '../../realtime/socket';
import { notify } from '../shell/toaster';
import { authReady, sessionEnded, sessionStarted, userPatched } from './authSlice';
import { clearSession, patchStoredUser, readSession, writeSession } from './session';
import { forgetStepUp } from './stepUp';
import { isTokenExpired } from './token';

/** After login or register: save the session and open the realtime connection. */
export const startSession =
  ({ token, user }: Pick<SessionAnswer, 'token' | 'user'>): AppThunk =>
  (dispatch) => {
    writeSession(token, user);
    dispatch(baseApi.util.resetApiState());
    dispatch(sessionStarted({ token, user }));
    connectSocket(token);
  };

/** At start-up: a valid saved session logs in; an expired one is cleared and the user sent to /login. */
export const restoreSession = (): AppThunk => (dispatch) => {
  const record = readSession();
  if (!record) {
    clearSession();
    dispatch(authReady());
    return;
  }
  if (isTokenExpired(record.token)) {
    clearSession();
    dispatch(sessionEnded());
    navigateTo('/login', { replace: true });
    return;
  }
  dispatch(sessionStarted({ token: record.token, user: record.user }));
  connectSocket(record.token);
};

/**
 * Manual logout ('Signed out'), expiry ('Session expired', otherwise silent), or an account an
 * administrator set inactive (the server's reason; before, every call failed without a word).
 */
export const endSession =
  (reason: 'logout' | 'expired' | 'inactive', serverMessage?: string): AppThunk =>
  (dispatch) => {
    clearSession();
    disconnectSocket();
    forgetStepUp();
    dispatch(sessionEnded());
    if (reason === 'logout') {
      notify({ title: 'Signed out', description: 'You have been signed out.', type: 'info' });
    } else if (reason === 'inactive') {
      notify({
        title: 'Account inactive',
        description: serverMessage ?? 'Your account is inactive. Please contact support.',
        type: 'error',
      });
    } else {
      notify({ title: 'Session expired', description: 'Please sign in again.', type: 'error' });
    }
    navigateTo('/login', { replace: true });
    dispatch(baseApi.util.resetApiState());
  };

/** How long Log out waits for the server before it signs out here regardless. */
const LOGOUT_WAIT_MS = 3000;

/**
 * Log out: the server ends this session (a copy of its token stops working too), then it ends here
 * as `endSession('logout')` does, whether or not the server could be told.
 */
export const logOut = (): AppThunk<Promise<void>> => async (dispatch) => {
  const call = dispatch(api.endpoints.logout.initiate());
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, LOGOUT_WAIT_MS);
  });
  await Promise.race([
    call.unwrap().catch((err: unknown) => console.warn('the server could not end the session', err)),
    waited,
  ]);
  clearTimeout(timer);
  dispatch(endSession('logout'));
};

/** Periodic check (every 30 s) and the 401/403 check share this. */
export const checkSessionExpiry = (): AppThunk => (dispatch, getState) => {
  const { isLoggedIn, token } = getState().auth;
  if (isLoggedIn && isTokenExpired(token)) dispatch(endSession('expired'));
};

/**
 * The same user with a fresh token: changing the password ends every session issued before it,
 * this one's too, and the answer carries the token this browser goes on with.
 */
export const renewSessionToken =
  (token: string): AppThunk =>
  (dispatch, getState) => {
    const { user } = getState().auth;
    if (!user) return;
    writeSession(token, user);
    dispatch(sessionStarted({ token, user }));
    // The realtime connection was opened with the old token: it would be refused on its next reconnect.
    disconnectSocket();
    connectSocket(token);
  };

/** Merge fields into the signed-in user, in the store and in the saved record. */
export const patchSessionUser =
  (patch: Partial<SessionUser>): AppThunk =>
  (dispatch) => {
    patchStoredUser(patch);
    dispatch(userPatched(patch));
  };

/** A 403 with code ACCOUNT_BANNED: record the ban and show the suspended page. */
export const accountBanned =
  (body: AccountBannedError): AppThunk =>
  (dispatch) => {
    dispatch(
      patchSessionUser({
        isBanned: true,
        banReason: body.banReason ?? null,
        bannedAt: body.bannedAt ?? null,
      }),
    );
    navigateTo('/banned', { replace: true });
  };
