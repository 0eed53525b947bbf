import { configureStore, type ThunkAction, type UnknownAction } from '@reduxjs/toolkit';
import { baseApi } from '../api/baseApi';
import { authReducer } from '../features/auth/authSlice';
import { listenerMiddleware } from './listeners';

export const store = configureStore({
  reducer: {
    auth: authReducer,
    [baseApi.reducerPath]: baseApi.reducer,
  },
  middleware: (getDefault) => getDefault().prepend(listenerMiddleware.middleware).concat(baseApi.middleware),
});

export type RootState = ReturnType<typeof store.getState>;
export type AppDispatch = typeof store.dispatch;
export type AppThunk<R = void> = ThunkAction<R, RootState, unknown, UnknownAction>;
