import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { db } from './db';
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
 * A query built and compiled once per database handle; each call only binds its values. Building
 * and compiling a small query with Kysely costs several times what SQLite takes to run it, so the
 * hot paths (token validation, plan updates, audit inserts, webhook events and plan syncs) use
 * this. Values are bound as parameters, never spliced into the SQL text. Each `param` name must be
 * given a value on every call.
 */
export function precompiled<DB, R>(build: (database: Kysely<DB>) => Compilable<R>) {
  const byDatabase = new WeakMap<object, Compiled>();

  function compiled(): Compiled {
    const database = db();
    let entry = byDatabase.get(database);
    if (!entry) {
      // A service's typed handle (`withTables`) is the same database under other types.
      const query = build(database as unknown as Kysely<DB>).compile();
      const slots = query.parameters.map((value) =>
        typeof value === 'string' && value.startsWith(PLACEHOLDER) ? { name: value.slice(PLACEHOLDER.length) } : { constant: value },
      );
      entry = { query, slots };
      byDatabase.set(database, entry);
    }
    return entry;
  }

  async function run(values: Record<string, unknown>, executor: AnyKysely) {
    const { query, slots } = compiled();
    const parameters = slots.map((slot) => {
      if ('constant' in slot) return slot.constant;
      if (!(slot.name in values)) throw new Error(`precompiled query: no value for ${slot.name}`);
      return values[slot.name];
    });
    return executor.executeQuery<R>({ ...query, parameters });
  }

  return {
    /** Runs the query with `values` on `executor` (a transaction, or the process's handle by default) and answers its rows. */
    async execute(values: Record<string, unknown>, executor: AnyKysely = db()): Promise<R[]> {
      return (await run(values, executor)).rows;
    },
    /** Runs an insert, update or delete and answers how many rows it changed. */
    async executeChange(values: Record<string, unknown>, executor: AnyKysely = db()): Promise<number> {
      return Number((await run(values, executor)).numAffectedRows ?? 0);
    },
  };
}
