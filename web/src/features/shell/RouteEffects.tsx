// Route-level effects with no UI: page title, scroll position, periodic session check.
import { useEffect } from 'react';
import { useLocation, useMatches } from 'react-router';
import { useAppDispatch } from '../../app/hooks';
import { checkSessionExpiry } from '../auth/sessionActions';

export const PRODUCT_NAME = 'Coffer';
export const SESSION_CHECK_INTERVAL_MS = 30_000;

export interface RouteHandle {
  title?: string;
}

export function pageTitle(page: string): string {
  return `${PRODUCT_NAME} – ${page}`;
}

/** 'Coffer – {page}' from the deepest route that names its page. */
export function TitleManager() {
  const matches = useMatches();
  const title = [...matches]
    .reverse()
    .map((m) => (m.handle as RouteHandle | undefined)?.title)
    .find(Boolean);
  useEffect(() => {
    document.title = title ? pageTitle(title) : PRODUCT_NAME;
  }, [title]);
  return null;
}

/** For pages whose title depends on data (set after TitleManager's route title). */
export function usePageTitle(page: string | undefined): void {
  useEffect(() => {
    if (page) document.title = pageTitle(page);
  }, [page]);
}

/** On navigation scroll to the top, or to the element named by the hash (waiting briefly for it). */
export function ScrollManager() {
  const { pathname, hash, key } = useLocation();
  useEffect(() => {
    if (!hash) {
      window.scrollTo(0, 0);
      return;
    }
    const id = decodeURIComponent(hash.slice(1));
    let tries = 0;
    let timer: number | undefined;
    const attempt = () => {
      const el = document.getElementById(id);
      if (el) el.scrollIntoView({ behavior: 'smooth', block: 'start' });
      else if (tries++ < 30) timer = window.setTimeout(attempt, 100);
    };
    attempt();
    return () => window.clearTimeout(timer);
  }, [pathname, hash, key]);
  return null;
}

/** Checks the token's expiry every 30 s; an expired token ends the session. */
export function SessionWatcher() {
  const dispatch = useAppDispatch();
  useEffect(() => {
    const id = window.setInterval(() => dispatch(checkSessionExpiry()), SESSION_CHECK_INTERVAL_MS);
    return () => window.clearInterval(id);
  }, [dispatch]);
  return null;
}
