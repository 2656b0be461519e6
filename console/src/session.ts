import { useEffect, useState } from 'preact/hooks';
import { ApiError, identityApi, useTokenSource, type PublicUser, type TokenAnswer } from './api';

/**
 * The admin's session with identity, one per browser: every tab of the console shares it.
 *
 * Decision (docs/console.md, "One session per browser"): the tokens are kept in localStorage, and a
 * Web Lock lets one tab at a time rotate the refresh token; a tab that takes the lock after another
 * tab rotated finds the new tokens there and uses them without a call. The `storage` event carries
 * every change to the other tabs at once (a renewal, a sign-in, a sign-out). A page load uses the
 * stored access token while it is fresh, so reloads and new tabs neither refresh nor ask for a new
 * code. A refresh whose answer is lost (a reload mid-flight) is answered again by identity within
 * its grace period with the same successor, so the next load still gets in. Reuse detection stays:
 * a spent token presented after the grace period ends the session, in every tab.
 *
 * Why not a refresh cookie (HttpOnly, Secure, SameSite=Strict, scoped to identity's refresh path):
 * in a split deployment the console's origin and identity's are different sites whenever they are
 * not under one registrable domain (two `*.azurewebsites.net` apps are two sites), and there a
 * SameSite=Strict cookie is never sent, so the console could not refresh at all; and a cookie
 * alone would not stop two tabs from racing to rotate it.
 */
export const ADMIN_ROLES = ['admin', 'super_admin'];
const STORAGE_KEY = 'console.session';
const LOCK_NAME = 'console.session.refresh';

export type SessionState =
  | { kind: 'starting' }
  | { kind: 'signed-out'; notice?: string; tone?: 'info' | 'warning' }
  | { kind: 'signed-in'; user: PublicUser; expiresAt: number };

/** What every tab of the browser shares. `expiresAt` is the access token's expiry by this browser's clock (never the server's). */
interface Stored {
  accessToken: string;
  refreshToken: string;
  expiresAt: number;
  lifetimeMs: number;
  user: PublicUser;
}

let state: SessionState = { kind: 'starting' };
let accessToken: string | undefined;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
let inflight: Promise<string | undefined> | undefined;
const listeners = new Set<(s: SessionState) => void>();

function set(next: SessionState) {
  state = next;
  listeners.forEach((l) => l(state));
}

export const isAdmin = (user: Pick<PublicUser, 'role'>) => ADMIN_ROLES.includes(user.role);

export class NotAdminError extends Error {
  constructor(readonly user: PublicUser) {
    super(`${user.email} has the role "${user.role}". The console is for the admin and super_admin roles only.`);
  }
}

/** Renew when a fifth of the lifetime (at least 30 s) is left, so a slow network never meets an expired token. */
const renewMarginMs = (lifetimeMs: number) => Math.max(30_000, lifetimeMs * 0.2);
const fresh = (s: Stored) => s.expiresAt - Date.now() > renewMarginMs(s.lifetimeMs);

function read(): Stored | undefined {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    const value = raw ? (JSON.parse(raw) as Stored) : undefined;
    return value && typeof value.refreshToken === 'string' && typeof value.accessToken === 'string' && value.user ? value : undefined;
  } catch {
    return undefined;
  }
}

const save = (answer: TokenAnswer): Stored => {
  const stored: Stored = {
    accessToken: answer.accessToken,
    refreshToken: answer.refreshToken,
    expiresAt: Date.now() + answer.expiresIn * 1000,
    lifetimeMs: answer.expiresIn * 1000,
    user: answer.user,
  };
  localStorage.setItem(STORAGE_KEY, JSON.stringify(stored));
  return stored;
};

/** This tab takes the stored session: its token, the user, and a timer for the next renewal. */
function adopt(stored: Stored) {
  accessToken = stored.accessToken;
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => void renew(), Math.max(1000, stored.expiresAt - renewMarginMs(stored.lifetimeMs) - Date.now()));
  set({ kind: 'signed-in', user: stored.user, expiresAt: stored.expiresAt });
}

/** Signs this tab out; `forget` also clears the shared session, which signs out every other tab. */
function end(notice?: string, tone: 'info' | 'warning' = 'warning', forget = true) {
  accessToken = undefined;
  clearTimeout(refreshTimer);
  if (forget) localStorage.removeItem(STORAGE_KEY);
  set({ kind: 'signed-out', notice, tone });
}

/** One tab of the browser at a time (a Web Lock; without the API, this tab alone: identity's repeat answer covers a race). */
function exclusively<T>(work: () => Promise<T>): Promise<T> {
  return 'locks' in navigator && navigator.locks ? (navigator.locks.request(LOCK_NAME, work) as Promise<T>) : work();
}

/**
 * Answers a fresh access token: the stored one when another tab has renewed since this tab's
 * token, else the refresh token rotated (under the lock, so the browser rotates it once).
 */
function renew(): Promise<string | undefined> {
  inflight ??= exclusively(async () => {
    const stored = read();
    if (!stored) {
      end(state.kind === 'signed-in' ? 'Your session has ended. Sign in again.' : undefined);
      return undefined;
    }
    if (stored.accessToken !== accessToken && fresh(stored)) {
      adopt(stored);
      return accessToken;
    }
    try {
      const answer = await identityApi.refresh(stored.refreshToken);
      if (!isAdmin(answer.user)) throw new NotAdminError(answer.user);
      adopt(save(answer));
      return accessToken;
    } catch (error) {
      if (error instanceof NotAdminError) {
        await identityApi.logout().catch(() => undefined);
        end(error.message);
      } else if (error instanceof ApiError && error.status === 401) {
        end('Your session has ended. Sign in again.');
      } else {
        // Identity unreachable: keep the session and try again shortly; calls meanwhile show their error.
        clearTimeout(refreshTimer);
        refreshTimer = setTimeout(() => void renew(), 15_000);
      }
      return undefined;
    }
  }).finally(() => {
    inflight = undefined;
  });
  return inflight;
}

useTokenSource({ accessToken: async () => accessToken, renew });

/** Follows what another tab did: a renewal or a sign-in is taken over, a sign-out signs this tab out too. */
function follow() {
  const stored = read();
  if (stored) {
    if (stored.accessToken !== accessToken) adopt(stored);
  } else if (state.kind === 'signed-in') {
    end('Your session has ended in this browser. Sign in again.', 'warning', false);
  }
}

/** At start: take the browser's session if it has one (renewed first when its access token is due). */
export async function resume(): Promise<void> {
  addEventListener('storage', (event) => {
    if (event.key === STORAGE_KEY || event.key === null) follow();
  });
  // A page restored from the back-forward cache shows what it showed when it was left: check it is still signed in.
  addEventListener('pageshow', (event) => {
    if (event.persisted) follow();
  });
  const stored = read();
  if (stored && fresh(stored)) adopt(stored);
  else if (stored) await renew();
  if (state.kind === 'starting') set({ kind: 'signed-out' });
}

export async function requestCode(email: string): Promise<string> {
  return (await identityApi.login(email)).message;
}

/** Verifies the emailed code; a user who is not an admin is signed out again at once (their new session ended). */
export async function signIn(email: string, code: string): Promise<void> {
  const answer = await identityApi.verify(email, code);
  if (!isAdmin(answer.user)) {
    accessToken = answer.accessToken;
    await identityApi.logout().catch(() => undefined);
    accessToken = undefined;
    throw new NotAdminError(answer.user);
  }
  adopt(save(answer));
}

export async function signOut(): Promise<void> {
  try {
    await identityApi.logout();
  } finally {
    end('You are signed out.', 'info');
  }
}

export function useSession(): SessionState {
  const [current, setCurrent] = useState(state);
  useEffect(() => {
    listeners.add(setCurrent);
    setCurrent(state);
    return () => void listeners.delete(setCurrent);
  }, []);
  return current;
}

/** The signed-in admin (only inside the signed-in part of the console). */
export function useSignedInUser(): PublicUser {
  const session = useSession();
  if (session.kind !== 'signed-in') throw new Error('not signed in');
  return session.user;
}
