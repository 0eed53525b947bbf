import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { SessionUser } from '../../api/generated';

export interface AuthState {
  token: string | null;
  user: SessionUser | null;
  isLoggedIn: boolean;
  /** true until the saved session has been read at start-up */
  loading: boolean;
  isBanned: boolean;
  /** true only when logged in and role === 'admin' */
  isAdmin: boolean;
}

const initialState: AuthState = {
  token: null,
  user: null,
  isLoggedIn: false,
  loading: true,
  isBanned: false,
  isAdmin: false,
};

function deriveFlags(state: AuthState): void {
  state.isLoggedIn = Boolean(state.token && state.user);
  state.isBanned = state.isLoggedIn && Boolean(state.user?.isBanned);
  state.isAdmin = state.isLoggedIn && state.user?.role === 'admin';
}

/** What a rejected API call reported; side effects happen in the session listener. */
export interface RequestRejected {
  status: 401 | 403;
  body: unknown;
}

const authSlice = createSlice({
  name: 'auth',
  initialState,
  reducers: {
    sessionStarted(state, action: PayloadAction<{ token: string; user: SessionUser }>) {
      state.token = action.payload.token;
      state.user = action.payload.user;
      state.loading = false;
      deriveFlags(state);
    },
    sessionEnded(state) {
      Object.assign(state, initialState, { loading: false });
    },
    authReady(state) {
      state.loading = false;
    },
    userPatched(state, action: PayloadAction<Partial<SessionUser>>) {
      if (!state.user) return;
      state.user = { ...state.user, ...action.payload };
      deriveFlags(state);
    },
    // Intentionally no state change: handled by the session listener (see app/listeners.ts).
    requestRejected(_state, _action: PayloadAction<RequestRejected>) {},
  },
});

export const { sessionStarted, sessionEnded, authReady, userPatched, requestRejected } = authSlice.actions;
export const authReducer = authSlice.reducer;
