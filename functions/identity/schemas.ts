import { PLAN_IDS, PLAN_SOURCES } from '../../shared/plan-ids';
import { PAGING, anyObject, arr, bool, dateTime, idParam, int, nullable, obj, oneOfValues, query, str } from '../../shared/http/schemas';

/** The request and answer schemas of identity's route table (routes.ts): the validators, and the types its handlers and domain code are handed (Infer). */

const EMAIL = { type: 'string', format: 'email', minLength: 3, maxLength: 320 } as const;
const PERMISSIONS = {
  type: 'array',
  maxItems: 100,
  uniqueItems: true,
  items: { type: 'string', pattern: '^[a-z][a-z0-9_-]*(:[a-z0-9_*-]+)*$', maxLength: 100 },
} as const;
const ROLE_ID = { type: 'string', pattern: '^[a-z][a-z0-9_]{0,31}$' } as const;
const PLAN = oneOfValues(PLAN_IDS);
const STATUS = { enum: ['active', 'inactive'] } as const;
const ISO_INSTANT = { type: 'string', format: 'date-time', maxLength: 40 } as const;

// ---- requests -------------------------------------------------------------------------------
export const LOGIN_BODY = { type: 'object', required: ['email'], additionalProperties: false, properties: { email: EMAIL } } as const;
export const VERIFY_BODY = {
  type: 'object',
  required: ['email', 'code'],
  additionalProperties: false,
  properties: { email: EMAIL, code: { type: 'string', pattern: '^[0-9]{4,10}$' } },
} as const;
export const REFRESH_BODY = {
  type: 'object',
  required: ['refreshToken'],
  additionalProperties: false,
  properties: { refreshToken: { type: 'string', minLength: 1, maxLength: 512 } },
} as const;
export const LOGOUT_BODY = { type: 'object', additionalProperties: false, properties: { scope: { enum: ['current', 'all'] } } } as const;
/**
 * plan required; status optional (unchanged when omitted); updatedBy and timestamp optional;
 * periodEnd optional (absent or null: no end, as a manual grant) and source (absent: manual).
 */
export const PLAN_BODY = {
  type: 'object',
  required: ['plan'],
  additionalProperties: false,
  properties: {
    plan: PLAN,
    status: STATUS,
    updatedBy: { type: 'string', minLength: 1, maxLength: 200 },
    timestamp: { type: 'string', format: 'date-time', maxLength: 40 },
    // One schema with two types (not anyOf): a bad date-time is named once, as every other date-time is.
    periodEnd: { type: ['string', 'null'], format: 'date-time', maxLength: 40 },
    source: { enum: PLAN_SOURCES },
  },
} as const;
export const CREATE_USER_BODY = {
  type: 'object',
  required: ['email'],
  additionalProperties: false,
  properties: { email: EMAIL, role: ROLE_ID, permissions: PERMISSIONS },
} as const;
export const PATCH_USER_BODY = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: { email: EMAIL, permissions: PERMISSIONS, plan: PLAN, status: STATUS },
} as const;
export const GRANT_ROLE_BODY = { type: 'object', required: ['roleId'], additionalProperties: false, properties: { roleId: ROLE_ID } } as const;

export const USER_ID_PARAM = idParam('userId');
export const ID_PARAM = idParam('id');
export const ROLE_PARAMS = obj({ id: idParam('id').properties.id, roleId: ROLE_ID });
export const ROLE_ID_PARAM = obj({ id: ROLE_ID });
export const USERS_QUERY = query({ email: str({ maxLength: 320 }), role: ROLE_ID, plan: PLAN, status: STATUS, ...PAGING });
export const AUDIT_QUERY = query({
  actor: str({ maxLength: 320 }),
  action: str({ maxLength: 64 }),
  target: str({ maxLength: 320 }),
  result: oneOfValues(['success', 'failure']),
  since: ISO_INSTANT,
  until: ISO_INSTANT,
  ...PAGING,
});
export const SESSIONS_QUERY = query({ userId: str({ maxLength: 64 }), state: oneOfValues(['active', 'all'], { default: 'active' }), ...PAGING });

// ---- answers --------------------------------------------------------------------------------
const PUBLIC_USER = obj({
  id: str(),
  email: str(),
  role: str(),
  permissions: arr(str()),
  plan: oneOfValues(PLAN_IDS),
  planPeriodEnd: nullable(dateTime()),
  planSource: nullable(oneOfValues(PLAN_SOURCES)),
  status: oneOfValues(['active', 'inactive']),
});
export const USER = obj({
  id: str(),
  email: str(),
  role: str(),
  permissions: arr(str()),
  explicitPermissions: arr(str()),
  plan: oneOfValues(PLAN_IDS),
  planPeriodEnd: nullable(dateTime()),
  planSource: nullable(oneOfValues(PLAN_SOURCES)),
  status: oneOfValues(['active', 'inactive']),
  createdAt: nullable(dateTime()),
  updatedAt: nullable(dateTime()),
});
const paged = (name: string, item: object) => obj({ [name]: arr(item as Record<string, unknown>), total: int(), limit: int(), offset: int() });

export const LOGIN_STARTED = obj({ success: bool(), message: str() });
export const TOKENS = obj({
  success: bool(),
  accessToken: str(),
  refreshToken: str(),
  tokenType: oneOfValues(['Bearer']),
  expiresIn: int(),
  user: PUBLIC_USER,
});
export const LOGGED_OUT = obj({ success: bool(), scope: oneOfValues(['current', 'all']), revokedSessions: int() });
export const VALIDATED = obj({ valid: bool(), user: PUBLIC_USER, sessionId: str(), expiresAt: dateTime() });
export const JWKS = obj({ keys: arr(anyObject()) });
export const PLAN_UPDATED = obj({
  success: bool(),
  message: str(),
  userId: str(),
  plan: PLAN,
  planPeriodEnd: nullable(dateTime()),
  planSource: oneOfValues(PLAN_SOURCES),
  status: STATUS,
  updatedBy: str(),
  timestamp: dateTime(),
});
export const USER_CHANGED = obj({ success: bool(), user: USER });
export const USER_READ = obj({ user: USER });
export const USER_DELETED = obj({ success: bool(), userId: str(), deleted: oneOfValues(['hard']), revokedSessions: int() });
export const ROLE_CHANGED = obj({ success: bool(), changed: bool(), user: USER });
const ROLE = obj({ id: str(), description: str(), permissions: arr(str()), rank: int() });
export const ROLES = obj({ roles: arr(ROLE) });
export const ROLE_PERMISSIONS = obj({ role: str(), description: str(), permissions: arr(str()) });
export const USERS = paged('users', USER);
export const AUDIT_ENTRIES = paged(
  'entries',
  obj({
    id: int(),
    timestamp: dateTime(),
    actor: obj({ type: str(), id: nullable(str()) }),
    action: str(),
    target: nullable(obj({ type: str(), id: nullable(str()) })),
    result: oneOfValues(['success', 'failure']),
    reason: nullable(str()),
    ip: nullable(str()),
    userAgent: nullable(str()),
    requestId: nullable(str()),
    details: {},
  }),
);
export const SESSIONS = paged(
  'sessions',
  obj({
    id: str(),
    userId: str(),
    createdAt: dateTime(),
    lastRefreshedAt: nullable(dateTime()),
    expiresAt: dateTime(),
    revokedAt: nullable(dateTime()),
    revokedReason: nullable(str()),
    active: bool(),
    ip: nullable(str()),
    userAgent: nullable(str()),
  }),
);
export const SESSION_REVOKED = obj({ success: bool(), sessionId: str(), userId: str(), revoked: bool() });
export const COMPLIANCE = obj(
  { generatedAt: dateTime(), users: anyObject(), otpPolicy: anyObject(), tokens: anyObject(), sessions: anyObject(), audit: anyObject(), admins: anyObject() },
  { optional: ['audit', 'admins'] },
);
