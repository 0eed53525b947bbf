// Route guards (spec §4): login-required and admin-only route groups.
import { Navigate, Outlet } from 'react-router';
import { useAppSelector } from '../../app/hooks';
import { LoadingScreen } from '../shell/PageStates';

/** Loading while auth loads; not logged in → /login; banned → /banned; else the page. */
export function RequireAuth() {
  const { loading, isLoggedIn, isBanned } = useAppSelector((s) => s.auth);
  if (loading) return <LoadingScreen />;
  if (!isLoggedIn) return <Navigate to="/login" replace />;
  if (isBanned) return <Navigate to="/banned" replace />;
  return <Outlet />;
}

/** Loading while auth loads; anyone but an admin → /dashboard (which handles visitors and bans). */
export function RequireAdmin() {
  const { loading, isAdmin } = useAppSelector((s) => s.auth);
  if (loading) return <LoadingScreen />;
  if (!isAdmin) return <Navigate to="/dashboard" replace />;
  return <Outlet />;
}
