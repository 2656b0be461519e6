import { SYSTEM_CLOCK } from './platform';
import type pino from 'pino';
import { config } from './config';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Record<string, unknown>;

/**
 * Exact paths whose values never reach a log line (nor Application Insights): credentials and
 * one-time codes wherever callers put them, at the top level or one level down (`headers.*`,
 * `request.*`). Exact names only: `errorCode`, `deletedCodes` or `refreshTokens` (a count) are
 * data and stay.
 */
const SENSITIVE_KEYS = [
  'authorization',
  'Authorization',
  'cookie',
  'Cookie',
  'password',
  'secret',
  'token',
  'accessToken',
  'refreshToken',
  'idToken',
  'serviceToken',
  'code',
  'otp',
  'apiKey',
  'api_key',
  'clientSecret',
  'client_secret',
  'webhookSecret',
  'signature',
  'connectionString',
];
export const REDACTED_PATHS = [
  ...SENSITIVE_KEYS,
  ...SENSITIVE_KEYS.map((key) => `*.${key}`),
  ...['stripe-signature', 'x-api-key', 'set-cookie', 'x-functions-key'].flatMap((header) => [`headers["${header}"]`, `*.headers["${header}"]`]),
];
export const REDACTED = '[redacted]';

/** Lines also go to Application Insights once telemetry is on (shared/telemetry.ts sets this). */
type LineSink = (line: string) => void;
let exportLine: LineSink | undefined;
export function setLogExport(sink: LineSink | undefined): void {
  exportLine = sink;
}

/** info and debug lines on stdout, warn and error on stderr, one JSON object per line. */
function destination(stream: 'stdout' | 'stderr'): pino.DestinationStream {
  return {
    write(line: string) {
      process[stream].write(line);
      exportLine?.(line);
    },
  };
}

const plainError = (value: unknown) => (value instanceof Error ? { name: value.name, message: value.message } : value);

/** An Error anywhere at the top level becomes its name and message (no stack, no properties that might carry secrets). */
function plainErrors(fields: LogFields): LogFields {
  let out: LogFields | undefined;
  for (const [key, value] of Object.entries(fields)) {
    if (value instanceof Error) (out ??= { ...fields })[key] = plainError(value);
  }
  return out ?? fields;
}

let root: pino.Logger | undefined;
/** pino is loaded with the first line written, not with the modules that create loggers (cold start). */
function rootLogger(): pino.Logger {
  const pino = require('pino') as typeof import('pino');
  root ??= pino(
    {
      // Lines are filtered by LOG_LEVEL before pino sees them (the setting can be reloaded), so pino passes everything.
      level: 'debug',
      base: undefined,
      messageKey: 'msg',
      timestamp: () => `,"timestamp":"${SYSTEM_CLOCK.now().toISOString()}"`,
      formatters: { level: (label) => ({ level: label }), log: plainErrors },
      // pino's own `err` serializer would add the stack; every Error is logged alike.
      serializers: { err: plainError },
      redact: { paths: REDACTED_PATHS, censor: REDACTED },
    },
    pino.multistream(
      [
        { level: 'debug', stream: destination('stdout') },
        { level: 'warn', stream: destination('stderr') },
      ],
      { dedupe: true },
    ),
  );
  return root;
}

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

function minimumLevel(): LogLevel {
  try {
    return config().LOG_LEVEL;
  } catch {
    return 'info';
  }
}

/**
 * Structured JSON lines through pino: the message in `msg`, the fields beside it (a field may be
 * called `message`), sensitive values replaced at REDACTED_PATHS. Bindings given here and to
 * `child` are on every line. The pino child is made on the first line written, so a logger per
 * request costs nothing until it logs.
 */
export function createLogger(base: LogFields = {}): Logger {
  let logger: pino.Logger | undefined;
  const write = (level: LogLevel, message: string, fields: LogFields = {}) => {
    if (RANK[level] < RANK[minimumLevel()]) return;
    try {
      logger ??= rootLogger().child(plainErrors(base));
      logger[level](fields, message);
    } catch (error) {
      // Logging never throws into the caller. The fallback line carries no fields, so nothing unredacted.
      try {
        process.stderr.write(
          `${JSON.stringify({ level, timestamp: SYSTEM_CLOCK.now().toISOString(), msg: message, loggingFailed: (error as Error)?.message })}\n`,
        );
      } catch {
        // stderr itself is gone: nothing left to tell
      }
    }
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => createLogger({ ...base, ...fields }),
  };
}

export const log = createLogger();
