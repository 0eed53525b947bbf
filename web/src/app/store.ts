import { configureStore, type ThunkAction, type UnknownAction } from '@reduxjs/toolkit';
import { api } from '../api/cache';
import { authReducer } from '../features/auth/authSlice';
import { followAgents } from '../realtime/liveCache';
import { listenerMiddleware } from './listeners';

export const store = configureStore({
  reducer: {
    auth: authReducer,
    [api.reducerPath]: api.reducer,
  },
  middleware: (getDefault) => getDefault().prepend(listenerMiddleware.middleware).concat(api.middleware),
});

followAgents(store.dispatch);

export type RootState = ReturnType<typeof store.getState>;
export type AppDispatch = typeof store.dispatch;
export type AppThunk<R = void> = ThunkAction<R, RootState, unknown, UnknownAction>;
