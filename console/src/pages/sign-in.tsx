import { useState } from 'preact/hooks';
import { ApiError } from '../api';
import { requestCode, signIn } from '../session';
import { PageTitle } from '../components/layout';

/** Sign-in with the email code, the same flow users have: the address gets a code, the code signs in. */
export function SignIn({ notice, tone = 'info' }: { notice?: string; tone?: 'info' | 'warning' }) {
  const [step, setStep] = useState<'email' | 'code'>('email');
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ text: string; tone: 'info' | 'warning' } | undefined>(notice ? { text: notice, tone } : undefined);
  const [error, setError] = useState<string | undefined>();

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (e) {
      const err = e as Error;
      setError(err instanceof ApiError && err.body.retryAfter ? `${err.message} (try again in ${err.body.retryAfter} s)` : err.message);
    } finally {
      setBusy(false);
    }
  };

  const sendCode = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      setMessage({ text: await requestCode(email.trim()), tone: 'info' });
      setStep('code');
    });
  };
  const verify = (event: Event) => {
    event.preventDefault();
    void run(() => signIn(email.trim(), code.trim()));
  };

  return (
    <main id="main" class="sign-in">
      <PageTitle title="Sign in">Report platform administration</PageTitle>
      <p>Sign in with the one-time code sent to your email. Only administrators (admin and super_admin) can use this console.</p>
      {message && (
        <p class={message.tone} role="status">
          {message.text}
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {step === 'email' ? (
        <form onSubmit={sendCode} aria-busy={busy}>
          <label for="email">Email address</label>
          <input
            id="email"
            name="email"
            type="email"
            autoComplete="username"
            required
            maxLength={320}
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
          <button type="submit" disabled={busy}>
            {busy ? 'Sending…' : 'Send me a code'}
          </button>
        </form>
      ) : (
        <form onSubmit={verify} aria-busy={busy}>
          <p>
            Code sent to <strong>{email}</strong>.{' '}
            <button type="button" class="link" onClick={() => (setStep('email'), setCode(''), setMessage(undefined))}>
              Use another address
            </button>
          </p>
          <label for="code">Sign-in code</label>
          <input
            id="code"
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]{4,10}"
            required
            maxLength={10}
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
          <button type="submit" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
      )}
    </main>
  );
}
