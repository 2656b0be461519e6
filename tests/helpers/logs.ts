import type { LogFields, Logger } from '../../shared/logging';
import type { TestHost } from './host';

/** A Logger that keeps every line it is given (a child's fields merged into its lines), for tests that read what code logs. */
export function recordingLogger() {
  const lines: { level: string; message: string; fields: LogFields }[] = [];
  const make = (base: LogFields): Logger => {
    const at =
      (level: string) =>
      (message: string, fields: LogFields = {}) =>
        void lines.push({ level, message, fields: { ...base, ...fields } });
    return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: (fields) => make({ ...base, ...fields }) };
  };
  return { log: make({}), lines };
}

/** The JSON log lines written to `stream` while `work` runs (and nothing of them on the terminal): warn and error go to stderr, info and debug to stdout. */
export async function loggedDuring<T>(
  work: () => Promise<T>,
  stream: 'stderr' | 'stdout' = 'stderr',
): Promise<{ result: T; lines: Record<string, any>[]; text: string }> {
  const chunks: string[] = [];
  const spy = jest.spyOn(process[stream], 'write').mockImplementation((chunk: any) => {
    chunks.push(String(chunk));
    return true;
  });
  const result = await work().finally(() => spy.mockRestore());
  const text = chunks.join('');
  const lines = text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, any>);
  return { result, lines, text };
}

/** The JSON lines the host's logger writes to stdout while `work` runs at LOG_LEVEL info (tests run at warn, which keeps info lines out). */
export async function loggedAtInfo(host: TestHost, work: () => Promise<unknown>): Promise<Record<string, any>[]> {
  const level = host.platform.config.LOG_LEVEL;
  host.platform.reconfigure({ LOG_LEVEL: 'info' });
  try {
    return (await loggedDuring(work, 'stdout')).lines;
  } finally {
    host.platform.reconfigure({ LOG_LEVEL: level });
  }
}
