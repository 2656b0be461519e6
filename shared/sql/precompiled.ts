import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { AnyKysely } from './dialect';

const PLACEHOLDER = '\u0000param:';

/** Stands for a named value while a precompiled query is built; `execute` supplies the value. */
export const param = <T = string>(name: string): T => `${PLACEHOLDER}${name}` as T;

interface Compiled {
  query: CompiledQuery;
  /** For each bound parameter: the name of the value that fills it, or the constant it always is. */
  slots: ({ name: string } | { constant: unknown })[];
}

/**
 * A query built and compiled once per dialect; each call only binds its values. Building
 * and compiling a small query with Kysely costs several times what SQLite takes to run it, so the
 * hot paths (token validation, plan updates, audit inserts, webhook events and plan syncs) use
 * this. Values are bound as parameters, never spliced into the SQL text. Each `param` name must be
 * given a value on every call.
 */
export function precompiled<DB, R>(build: (database: Kysely<DB>) => Compilable<R>) {
  // Keyed by the executor's dialect adapter, which a database and its transactions share: the SQL
  // text depends only on the dialect, so a transaction reuses what its database compiled.
  const byDialect = new WeakMap<object, Compiled>();

  function compiled(executor: AnyKysely): Compiled {
    const dialect = executor.getExecutor().adapter;
    let entry = byDialect.get(dialect);
    if (!entry) {
      const query = build(executor as unknown as Kysely<DB>).compile();
      const slots = query.parameters.map((value) =>
        typeof value === 'string' && value.startsWith(PLACEHOLDER) ? { name: value.slice(PLACEHOLDER.length) } : { constant: value },
      );
      entry = { query, slots };
      byDialect.set(dialect, entry);
    }
    return entry;
  }

  async function run(values: Record<string, unknown>, executor: AnyKysely) {
    const { query, slots } = compiled(executor);
    const parameters = slots.map((slot) => {
      if ('constant' in slot) return slot.constant;
      if (!(slot.name in values)) throw new Error(`precompiled query: no value for ${slot.name}`);
      return values[slot.name];
    });
    return executor.executeQuery<R>({ ...query, parameters });
  }

  return {
    /** Runs the query with `values` on `executor` (the service's database, or a transaction) and answers its rows. */
    async execute(values: Record<string, unknown>, executor: AnyKysely): Promise<R[]> {
      return (await run(values, executor)).rows;
    },
    /** Runs an insert, update or delete and answers how many rows it changed. */
    async executeChange(values: Record<string, unknown>, executor: AnyKysely): Promise<number> {
      return Number((await run(values, executor)).numAffectedRows ?? 0);
    },
  };
}
