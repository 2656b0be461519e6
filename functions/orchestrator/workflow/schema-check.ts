import { type AnyKysely, isMssql } from '../../../shared/sql/dialect';

const TABLE = 'orchestrator_processing_log';

type Family = 'integer' | 'text' | 'timestamp';

/** The columns the workflow logger writes (the processing log's ten columns plus migration 002's classification columns). */
export const LOGGER_COLUMNS: { name: string; family: Family; required: boolean; mssqlType: string }[] = [
  { name: 'id', family: 'integer', required: true, mssqlType: 'int IDENTITY(1,1)' },
  { name: 'tracking_id', family: 'text', required: true, mssqlType: 'nvarchar(100) NOT NULL' },
  { name: 'step_name', family: 'text', required: false, mssqlType: 'nvarchar(100) NULL' },
  { name: 'step_number', family: 'integer', required: false, mssqlType: 'int NULL' },
  { name: 'status', family: 'text', required: true, mssqlType: 'nvarchar(32) NOT NULL' },
  { name: 'duration_ms', family: 'integer', required: false, mssqlType: 'int NULL' },
  { name: 'tokens_used', family: 'integer', required: false, mssqlType: 'int NULL' },
  { name: 'error_message', family: 'text', required: false, mssqlType: 'nvarchar(max) NULL' },
  { name: 'metadata', family: 'text', required: false, mssqlType: 'nvarchar(max) NULL' },
  { name: 'timestamp', family: 'timestamp', required: true, mssqlType: 'datetime2 NOT NULL' },
  { name: 'error_pattern', family: 'text', required: false, mssqlType: 'nvarchar(32) NULL' },
  { name: 'error_source', family: 'text', required: false, mssqlType: 'nvarchar(32) NULL' },
  { name: 'error_details', family: 'text', required: false, mssqlType: 'nvarchar(max) NULL' },
];

const sqliteType: Record<Family, string> = { integer: 'integer', text: 'text', timestamp: 'text' };

function familyOf(dataType: string): Family | 'other' {
  const t = dataType.toLowerCase();
  if (/int/.test(t)) return 'integer';
  if (/datetime|date|time/.test(t)) return 'timestamp';
  if (/char|text|clob/.test(t)) return 'text';
  return 'other';
}

export interface SchemaIssue {
  column: string;
  problem: 'missing' | 'type_mismatch' | 'blocking_legacy_column';
  expected?: string;
  actual?: string;
  detail: string;
}

export interface SchemaCheck {
  table: string;
  dialect: 'sqlite' | 'mssql';
  tableExists: boolean;
  isWorkflowLoggerCompatible: boolean;
  columns: { name: string; dataType: string; nullable: boolean }[];
  missingColumns: string[];
  mismatchedColumns: SchemaIssue[];
  issues: SchemaIssue[];
  recommendations: { issue: string; sql: string }[];
  /** The upgrade script for a legacy table (sql/upgrade/), when the table looks legacy. */
  migrationScript: string | null;
}

/** Compares the live log table with what the logger writes, and says which SQL fixes the difference. */
export async function checkLogSchema(database: AnyKysely): Promise<SchemaCheck> {
  const mssql = isMssql(database);
  const tables = await database.introspection.getTables();
  const table = tables.find((t) => t.name.toLowerCase() === TABLE);
  const dialect = mssql ? 'mssql' : 'sqlite';
  const qualified = mssql ? `[dbo].[${TABLE}]` : TABLE;
  if (!table) {
    return {
      table: TABLE,
      dialect,
      tableExists: false,
      isWorkflowLoggerCompatible: false,
      columns: [],
      missingColumns: LOGGER_COLUMNS.map((c) => c.name),
      mismatchedColumns: [],
      issues: [{ column: '*', problem: 'missing', detail: `table ${TABLE} does not exist` }],
      recommendations: [{ issue: `table ${TABLE} is missing`, sql: 'Run the migrations: npm run migrate (or apply sql/ in order to Azure SQL).' }],
      migrationScript: null,
    };
  }
  const live = new Map(table.columns.map((c) => [c.name.toLowerCase(), c]));
  const issues: SchemaIssue[] = [];
  const recommendations: { issue: string; sql: string }[] = [];
  for (const column of LOGGER_COLUMNS) {
    const found = live.get(column.name);
    if (!found) {
      issues.push({ column: column.name, problem: 'missing', expected: column.family, detail: `column ${column.name} is missing` });
      recommendations.push({
        issue: `add ${column.name}`,
        sql: mssql
          ? `ALTER TABLE ${qualified} ADD [${column.name}] ${column.mssqlType.replace(' NOT NULL', ' NULL')};`
          : `ALTER TABLE ${TABLE} ADD COLUMN ${column.name} ${sqliteType[column.family]};`,
      });
      continue;
    }
    const family = familyOf(found.dataType);
    if (family !== column.family && !(column.family === 'timestamp' && family === 'text' && !mssql)) {
      issues.push({
        column: column.name,
        problem: 'type_mismatch',
        expected: column.family,
        actual: found.dataType,
        detail: `column ${column.name} is ${found.dataType}; the logger writes ${column.family}`,
      });
      recommendations.push({
        issue: `retype ${column.name}`,
        sql: mssql
          ? `ALTER TABLE ${qualified} ALTER COLUMN [${column.name}] ${column.mssqlType};`
          : `-- SQLite cannot retype a column: rebuild ${TABLE} (see sql/upgrade/legacy-processing-log.sqlite.sql)`,
      });
    }
  }
  // A NOT NULL column the logger does not write (the legacy processing_step) makes every insert fail: the fix is the migration that adds the logger's columns.
  const written = new Set(LOGGER_COLUMNS.map((c) => c.name));
  for (const column of table.columns) {
    if (written.has(column.name.toLowerCase()) || column.isNullable || column.hasDefaultValue || column.isAutoIncrementing) continue;
    issues.push({
      column: column.name,
      problem: 'blocking_legacy_column',
      actual: column.dataType,
      detail: `column ${column.name} is NOT NULL without a default; the logger does not write it, so every insert fails`,
    });
    recommendations.push({
      issue: `make ${column.name} nullable`,
      sql: mssql
        ? `ALTER TABLE ${qualified} ALTER COLUMN [${column.name}] nvarchar(100) NULL;`
        : `-- SQLite cannot drop NOT NULL in place: rebuild ${TABLE} (see sql/upgrade/legacy-processing-log.sqlite.sql)`,
    });
  }
  const legacy = live.has('processing_step');
  const missingColumns = issues.filter((i) => i.problem === 'missing').map((i) => i.column);
  return {
    table: TABLE,
    dialect,
    tableExists: true,
    isWorkflowLoggerCompatible: issues.length === 0,
    columns: table.columns.map((c) => ({ name: c.name, dataType: c.dataType, nullable: c.isNullable })),
    missingColumns,
    mismatchedColumns: issues.filter((i) => i.problem !== 'missing'),
    issues,
    recommendations,
    migrationScript: legacy && issues.length ? (mssql ? 'sql/upgrade/legacy-processing-log.sql' : 'sql/upgrade/legacy-processing-log.sqlite.sql') : null,
  };
}
