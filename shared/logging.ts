import { config } from './config';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Record<string, unknown>;

/** Keys whose values never reach a log line, whatever the caller passes. */
const REDACTED = /authorization|password|secret|token|code|otp|cookie|apikey|api_key/i;

function redact(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    if (REDACTED.test(key) && !/^(error_?code|status_?code|code_?length)$/i.test(key)) out[key] = '[redacted]';
    else if (value instanceof Error) out[key] = { name: value.name, message: value.message };
    else out[key] = value;
  }
  return out;
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

/** Structured JSON lines on stdout/stderr; the Functions host forwards them to Application Insights. */
export function createLogger(base: LogFields = {}): Logger {
  const write = (level: LogLevel, message: string, fields: LogFields = {}) => {
    if (RANK[level] < RANK[minimumLevel()]) return;
    const line = JSON.stringify({ timestamp: new Date().toISOString(), level, message, ...redact({ ...base, ...fields }) });
    if (level === 'error' || level === 'warn') process.stderr.write(line + '\n');
    else process.stdout.write(line + '\n');
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
