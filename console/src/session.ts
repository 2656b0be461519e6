import { useEffect, useState } from 'preact/hooks';
import { ApiError, identityApi, useTokenSource, type PublicUser, type TokenAnswer } from './api';

/**
 * The admin's session with identity. The access token lives only in memory; the refresh token is
 * kept in sessionStorage so a reload of this tab stays signed in (it is gone when the tab closes,
 * and the strict Content-Security-Policy leaves no inline or foreign script to read it). The access
 * token is renewed before it expires, and on a 401 from any service; a refused refresh (session
 * ended, revoked, reused, user demoted) signs the console out.
 */
export const ADMIN_ROLES = ['admin', 'super_admin'];
const STORAGE_KEY = 'console.refreshToken';

export type SessionState =
  | { kind: 'starting' }
  | { kind: 'signed-out'; notice?: string }
  | { kind: 'signed-in'; user: PublicUser; expiresAt: number; refreshedAt: number };

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
const renewDelayMs = (expiresIn: number) => Math.max(5, expiresIn - Math.max(30, expiresIn * 0.2)) * 1000;

function adopt(answer: TokenAnswer) {
  if (!isAdmin(answer.user)) throw new NotAdminError(answer.user);
  accessToken = answer.accessToken;
  sessionStorage.setItem(STORAGE_KEY, answer.refreshToken);
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => void renew(), renewDelayMs(answer.expiresIn));
  const now = Date.now();
  set({ kind: 'signed-in', user: answer.user, expiresAt: now + answer.expiresIn * 1000, refreshedAt: now });
}

function end(notice?: string) {
  accessToken = undefined;
  clearTimeout(refreshTimer);
  sessionStorage.removeItem(STORAGE_KEY);
  set({ kind: 'signed-out', notice });
}

/** Rotates the refresh token (one rotation at a time, however many calls ask) and answers the new access token. */
function renew(): Promise<string | undefined> {
  inflight ??= (async () => {
    const refreshToken = sessionStorage.getItem(STORAGE_KEY);
    if (!refreshToken) {
      end();
      return undefined;
    }
    try {
      adopt(await identityApi.refresh(refreshToken));
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
    } finally {
      inflight = undefined;
    }
  })();
  return inflight;
}

useTokenSource({ accessToken: async () => accessToken, renew });

/** At start: resume this tab's session if it has one. */
export async function resume(): Promise<void> {
  if (sessionStorage.getItem(STORAGE_KEY)) await renew();
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
  adopt(answer);
}

export async function signOut(): Promise<void> {
  try {
    await identityApi.logout();
  } finally {
    end('You are signed out.');
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
