// The suspended page asks the server whether the ban still holds (issue 21, walk 3): the page was
// decided from the sign-in data saved in the browser, so an unbanned user stayed 'Account
// Suspended' until they signed out and in. Any signed-in call answers 403 ACCOUNT_BANNED while the
// ban lasts (the session listener keeps the page and its details current) and succeeds once lifted.
import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { api } from '../../api/cache';
import { patchSessionUser } from './sessionActions';

/** As often as the session's own expiry check (product §9: 30 s), and whenever the tab comes back. */
export const SUSPENSION_RECHECK_MS = 30_000;

export function useSuspensionRecheck() {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const { isLoggedIn, isBanned } = useAppSelector((s) => s.auth);

  useEffect(() => {
    if (!isLoggedIn || !isBanned) return;
    let cancelled = false;
    const ask = async () => {
      const res = await dispatch(
        api.endpoints.getProfile.initiate(undefined, { forceRefetch: true, subscribe: false }),
      );
      if (cancelled || !res.data) return; // still banned (or unreachable): the page stays
      dispatch(patchSessionUser({ isBanned: false, banReason: null, bannedAt: null }));
      navigate('/dashboard', { replace: true });
    };
    void ask();
    const id = window.setInterval(() => void ask(), SUSPENSION_RECHECK_MS);
    const onVisible = () => {
      if (document.visibilityState === 'visible') void ask();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      cancelled = true;
      window.clearInterval(id);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [dispatch, navigate, isLoggedIn, isBanned]);
}
