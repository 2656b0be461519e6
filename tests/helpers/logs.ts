import type { LogFields, Logger } from '../../shared/logging';

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
