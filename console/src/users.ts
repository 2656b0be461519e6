import { useEffect, useState } from 'preact/hooks';
import { identityApi } from './api';

/** Emails of user ids, asked of identity once per id per page load (null: no such user any more). */
const known = new Map<string, string | null>();
const pending = new Map<string, Promise<void>>();

function ask(id: string): Promise<void> {
  let waiting = pending.get(id);
  if (!waiting) {
    waiting = identityApi.user(id).then(
      (answer) => void known.set(id, answer.user.email),
      () => void known.set(id, null),
    );
    pending.set(id, waiting);
  }
  return waiting;
}

/** The emails of these users as they arrive; an id shows until its email is known ("Requested by" names a person, not an id). */
export function useEmails(ids: string[]): Map<string, string | null> {
  const [, setVersion] = useState(0);
  const key = [...new Set(ids)].sort().join(',');
  useEffect(() => {
    let live = true;
    const missing = [...new Set(ids)].filter((id) => !known.has(id));
    if (missing.length) void Promise.all(missing.map(ask)).then(() => live && setVersion((v) => v + 1));
    return () => {
      live = false;
    };
  }, [key]);
  return known;
}
