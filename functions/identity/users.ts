import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Plan, UserStatus } from '../../shared/auth/access-token';
import { planAt, type PlanSource } from '../../shared/plan-ids';
import { contains, page, toIso } from '../../shared/sql/dialect';
import type { Infer } from '../../shared/http/schemas';
import type { IdentityContext } from './context';
import { effectivePermissions, type RoleSource } from './roles';
import type { UsersTable } from './db/tables';
import type { USERS_QUERY } from './schemas';

export type UserRow = Selectable<UsersTable>;

/** A user as every route returns it; `permissions` are the effective ones, `explicitPermissions` the user's own additions. */
export interface UserView {
  id: string;
  email: string;
  role: string;
  permissions: string[];
  explicitPermissions: string[];
  plan: Plan;
  /** When the plan's paid period ends (null: no end); past it `plan` is already free. */
  planPeriodEnd: string | null;
  planSource: PlanSource | null;
  status: UserStatus;
  createdAt: string | null;
  updatedAt: string | null;
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** Explicit permissions as stored: each once, sorted, so equal sets are equal text. */
const storedPermissions = (permissions: string[]) => JSON.stringify([...new Set(permissions)].sort());

/** The user's plan in force at `now`: past its period's end, free. */
export const planOf = (row: Pick<UserRow, 'plan' | 'plan_period_end' | 'plan_source'>, now: Date) =>
  planAt({ plan: row.plan, periodEnd: toIso(row.plan_period_end), source: row.plan_source }, now);

export async function toUserView(ctx: RoleSource & Pick<IdentityContext, 'now'>, row: Omit<UserRow, 'plan_request_at'>): Promise<UserView> {
  const explicit = JSON.parse(row.permissions) as string[];
  const holding = planOf(row, ctx.now());
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    permissions: await effectivePermissions(ctx, row.role, explicit),
    explicitPermissions: explicit,
    plan: holding.plan,
    planPeriodEnd: holding.periodEnd,
    planSource: holding.source,
    status: row.status,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

/** The lookups below read `executor` when given (a transaction), else the context's database. */
export function findUserById(ctx: Pick<IdentityContext, 'db'>, id: string, executor = ctx.db): Promise<UserRow | undefined> {
  return executor.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findUserByEmail(ctx: Pick<IdentityContext, 'db'>, email: string, executor = ctx.db): Promise<UserRow | undefined> {
  return executor.selectFrom('users').selectAll().where('email', '=', normalizeEmail(email)).executeTakeFirst();
}

export interface NewUser {
  email: string;
  role?: string;
  permissions?: string[];
  plan?: Plan;
  status?: UserStatus;
}

/** Inserts a user; the caller checks the email is free (the unique index is the last word under races). */
export async function insertUser(ctx: Pick<IdentityContext, 'db' | 'now'>, user: NewUser, executor = ctx.db): Promise<UserRow> {
  const now = ctx.now().toISOString();
  const row = {
    id: randomUUID(),
    email: normalizeEmail(user.email),
    role: user.role ?? 'user',
    permissions: storedPermissions(user.permissions ?? []),
    plan: user.plan ?? 'free',
    status: user.status ?? 'active',
    created_at: now,
    updated_at: now,
    plan_request_at: null,
    plan_period_end: null,
    plan_source: null,
  } as const;
  await executor.insertInto('users').values(row).execute();
  return row;
}

export interface UserChanges {
  email?: string;
  role?: string;
  permissions?: string[];
  plan?: Plan;
  status?: UserStatus;
}

/**
 * Applies changes and sets updated_at; returns the updated row, or undefined when the user does not
 * exist. A change left undefined is left out of the UPDATE (Kysely drops undefined values).
 */
export async function updateUser(ctx: Pick<IdentityContext, 'db' | 'now'>, id: string, changes: UserChanges, executor = ctx.db): Promise<UserRow | undefined> {
  await executor
    .updateTable('users')
    .set({
      email: changes.email === undefined ? undefined : normalizeEmail(changes.email),
      role: changes.role,
      permissions: changes.permissions === undefined ? undefined : storedPermissions(changes.permissions),
      plan: changes.plan,
      // A plan set by hand is a manual grant: no period end, whatever period the previous plan had.
      ...(changes.plan === undefined ? {} : { plan_period_end: null, plan_source: 'manual' as const }),
      status: changes.status,
      updated_at: ctx.now().toISOString(),
    })
    .where('id', '=', id)
    .execute();
  return findUserById(ctx, id, executor);
}

/** Ordered by creation then id so pages are stable; `email` matches any part of the address. */
export async function listUsers(ctx: RoleSource & Pick<IdentityContext, 'now'>, query: Infer<typeof USERS_QUERY>) {
  const database = ctx.db;
  let q = database.selectFrom('users');
  if (query.email) q = q.where(contains(database, 'email', normalizeEmail(query.email)));
  if (query.role) q = q.where('role', '=', query.role);
  // By the plan in force: a paid plan past its period's end is free (planOf).
  const now = ctx.now().toISOString();
  if (query.plan === 'free') q = q.where((eb) => eb.or([eb('plan', '=', 'free'), eb('plan_period_end', '<=', now)]));
  else if (query.plan) q = q.where('plan', '=', query.plan).where((eb) => eb.or([eb('plan_period_end', 'is', null), eb('plan_period_end', '>', now)]));
  if (query.status) q = q.where('status', '=', query.status);
  const [{ total }] = await q.select((eb) => eb.fn.countAll<number>().as('total')).execute();
  const rows = await page(database, q.selectAll().orderBy('created_at').orderBy('id'), query.limit, query.offset).execute();
  return { users: await Promise.all(rows.map((row) => toUserView(ctx, row))), total: Number(total), limit: query.limit, offset: query.offset };
}
