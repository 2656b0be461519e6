/**
 * Waits for an outcome that another part of the system produces (a queue trigger, a timer, another
 * process): polls `probe` until it returns a value other than undefined/false, failing after
 * `timeoutMs`. Assertions stay on the outcome, never on elapsed time.
 */
export async function waitFor<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 30_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
