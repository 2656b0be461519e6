import { createLogger, REDACTED } from '../../shared/logging';

/** The JSON lines written to stdout and stderr while `run` logs. */
function capture(run: () => void): { stdout: Record<string, any>[]; stderr: Record<string, any>[] } {
  const out: Record<'stdout' | 'stderr', string> = { stdout: '', stderr: '' };
  const spies = (['stdout', 'stderr'] as const).map((stream) =>
    jest.spyOn(process[stream], 'write').mockImplementation((chunk: any) => {
      out[stream] += String(chunk);
      return true;
    }),
  );
  try {
    run();
  } finally {
    spies.forEach((spy) => spy.mockRestore());
  }
  const parse = (text: string) =>
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  return { stdout: parse(out.stdout), stderr: parse(out.stderr) };
}

test('a field named message, and fields that merely contain "code" or "token", survive beside the line\'s message', () => {
  const { stdout } = capture(() =>
    createLogger({ service: 'identity' }).info('purged expired identity rows', {
      message: 'a field of the caller',
      errorCode: 'card_declined',
      deletedCodes: 12,
      otpCodes: 3,
      refreshTokens: 4,
      statusCode: 502,
      codeLength: 6,
      stripeCode: 'resource_missing',
    }),
  );
  expect(stdout).toEqual([
    {
      level: 'info',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      service: 'identity',
      msg: 'purged expired identity rows',
      message: 'a field of the caller',
      errorCode: 'card_declined',
      deletedCodes: 12,
      otpCodes: 3,
      refreshTokens: 4,
      statusCode: 502,
      codeLength: 6,
      stripeCode: 'resource_missing',
    },
  ]);
});

test('authorization, token and code values at the redacted paths never reach a line, in fields, nested fields or bindings', () => {
  const secrets = ['Bearer eyJhbGciOi.secret', '493817', 'rt_9f8e7d6c5b4a', 'whsec_abcdef0123456789', 'sk_test_51Abc', 'eyJ.service.token', 'sig=1234'];
  const { stdout, stderr } = capture(() => {
    const log = createLogger({ service: 'payment', authorization: secrets[0] }).child({ requestId: 'r-1' });
    log.info('login', {
      code: secrets[1],
      refreshToken: secrets[2],
      headers: { authorization: secrets[0], 'stripe-signature': secrets[6], 'content-type': 'application/json' },
    });
    log.warn('webhook', { secret: secrets[3], request: { apiKey: secrets[4], token: secrets[5], code: secrets[1] } });
    log.error('failed', { error: new Error('identity answered 401'), token: secrets[5] });
  });
  const text = JSON.stringify([...stdout, ...stderr]);
  for (const secret of secrets) expect(text).not.toContain(secret);

  expect(stdout).toHaveLength(1);
  expect(stdout[0]).toMatchObject({
    level: 'info',
    msg: 'login',
    service: 'payment',
    requestId: 'r-1',
    authorization: REDACTED,
    code: REDACTED,
    refreshToken: REDACTED,
    headers: { authorization: REDACTED, 'stripe-signature': REDACTED, 'content-type': 'application/json' },
  });
  // warn and error go to stderr, as before; errors keep their name and message only.
  expect(stderr).toEqual([
    expect.objectContaining({ level: 'warn', msg: 'webhook', secret: REDACTED, request: { apiKey: REDACTED, token: REDACTED, code: REDACTED } }),
    expect.objectContaining({ level: 'error', msg: 'failed', token: REDACTED, error: { name: 'Error', message: 'identity answered 401' } }),
  ]);
});

test('LOG_LEVEL filters lines below it', () => {
  const { useProcessSettings } = require('../../shared/config') as typeof import('../../shared/config');
  try {
    useProcessSettings({ LOG_LEVEL: 'warn' }, { requireFor: [] });
    const { stdout, stderr } = capture(() => {
      const log = createLogger();
      log.debug('d');
      log.info('i');
      log.warn('w');
    });
    expect(stdout).toEqual([]);
    expect(stderr.map((l) => l.msg)).toEqual(['w']);
  } finally {
    useProcessSettings(process.env, { requireFor: [] });
  }
});
