import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { PublicUser } from '../api';
import { browserTimeZone } from '../format';
import { BASE, paths } from '../paths';
import { signOut } from '../session';

const NAV = [
  { href: paths.overview, label: 'Overview' },
  { href: paths.executions, label: 'Executions' },
  { href: paths.failures, label: 'Failures' },
  { href: paths.users, label: 'Users' },
  { href: paths.payments, label: 'Payments' },
  { href: paths.accounts, label: 'Accounts' },
  { href: paths.webhooks, label: 'Webhooks' },
  { href: paths.diagnostics, label: 'Diagnostics' },
];

function skipToMain(event: MouseEvent) {
  event.preventDefault();
  const main = document.getElementById('main');
  main?.focus();
  main?.scrollIntoView();
}

/** The router's path has no trailing slash: the overview is the console's folder without it. */
const ROOT = BASE.replace(/\/$/, '');
const isCurrent = (href: string, path: string) => (href === BASE ? path === ROOT || path === BASE : path === href || path.startsWith(`${href}/`));

export function Layout({ user, children }: { user: PublicUser; children: ComponentChildren }) {
  const { path } = useLocation();
  return (
    <>
      {/* The page's <base href> would make "#main" a link to the overview: the skip link moves focus itself. */}
      <a class="skip-link" href="#main" onClick={skipToMain}>
        Skip to content
      </a>
      <header class="top">
        <p class="brand">Report platform administration</p>
        <nav aria-label="Console">
          <ul>
            {NAV.map((item) => (
              <li key={item.href}>
                <a href={item.href} aria-current={isCurrent(item.href, path) ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="account">
          <span>
            {user.email} <span class="role">({user.role})</span>
          </span>
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
      <footer class="bottom">
        <p>Times are shown in your browser's time zone ({browserTimeZone()}).</p>
      </footer>
    </>
  );
}

/**
 * The first page of a load keeps the browser's own focus (so Tab reaches the skip link first); later
 * pages take it. Decided when a heading first renders, not in its effect: effects run after paint,
 * so a quick keyboard user could otherwise navigate before the first page's effect ran, and the
 * page they reached would be taken for the first.
 */
let firstPage = true;
const takeFirstPage = () => {
  const first = firstPage;
  firstPage = false;
  return first;
};

/** A page's heading; sets the document title and takes focus after navigation so screen readers announce the new page. */
export function PageTitle({ children, title }: { children: ComponentChildren; title: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  const [first] = useState(takeFirstPage);
  const keepFocus = useRef(first);
  useEffect(() => {
    document.title = `${title} · Report platform console`;
    if (keepFocus.current) {
      keepFocus.current = false; // a later title change on this page is a navigation
      return;
    }
    // A task after the commit, once the router has swapped the new page in (a frame callback may never run in a hidden tab).
    const timer = setTimeout(() => ref.current?.focus(), 0);
    return () => clearTimeout(timer);
  }, [title]);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

export function StatusBadge({ status }: { status: string | null | undefined }) {
  const value = status ?? 'unknown';
  return <span class={`badge badge-${value.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`}>{value.replace(/_/g, ' ')}</span>;
}
