// Route guards (product §4): login-required and admin-only route groups.
import { Navigate, Outlet, useLocation } from 'react-router';
import { useGetTwoFactorQuery } from '../../api/generated';
import { useAppSelector } from '../../app/hooks';
import { LoadingScreen } from '../shell/PageStates';

const ENROL_AT = '/profile?tab=security';

/**
 * An admin the site requires to use two-factor sign-in and who has not set it up goes to Profile →
 * Security before anything else (the API refuses admin operations until then).
 */
function useAdminMustEnrol(): boolean {
  const isAdmin = useAppSelector((s) => s.auth.isAdmin);
  const { data } = useGetTwoFactorQuery(undefined, { skip: !isAdmin });
  const { pathname } = useLocation();
  return isAdmin && Boolean(data?.enrolmentRequired) && pathname !== '/profile';
}

/** Loading while auth loads; not logged in → /login; banned → /banned; else the page. */
export function RequireAuth() {
  const { loading, isLoggedIn, isBanned } = useAppSelector((s) => s.auth);
  const mustEnrol = useAdminMustEnrol();
  if (loading) return <LoadingScreen />;
  if (!isLoggedIn) return <Navigate to="/login" replace />;
  if (isBanned) return <Navigate to="/banned" replace />;
  if (mustEnrol) return <Navigate to={ENROL_AT} replace />;
  return <Outlet />;
}

/** Loading while auth loads; anyone but an admin → /dashboard (which handles visitors and bans). */
export function RequireAdmin() {
  const { loading, isAdmin } = useAppSelector((s) => s.auth);
  const mustEnrol = useAdminMustEnrol();
  if (loading) return <LoadingScreen />;
  if (!isAdmin) return <Navigate to="/dashboard" replace />;
  if (mustEnrol) return <Navigate to={ENROL_AT} replace />;
  return <Outlet />;
}
