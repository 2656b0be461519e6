import { Code } from '../../shared/http/errors';
import { PUBLIC, refusal, RETRY_AFTER, routes } from '../../shared/http/route';
import { identityContext } from './context';
import { adminWith, PLAN_CALLER, SIGNED_IN } from './guards';
import { HEALTH } from './health';
import * as admin from './operations/admin';
import * as auth from './operations/auth';
import { setPlan } from './operations/plan';
import * as s from './schemas';

const route = routes('identity', identityContext);
const SMALL = <S extends object>(schema: S, limit = 4 * 1024) => ({ schema, limit });
const ADMIN_BODY = 16 * 1024;
// The refusals of identity's routes beyond their guards and their input.
const NO_USER = refusal([Code.USER_NOT_FOUND]);
const ACCOUNT_RULES = [Code.CANNOT_DEACTIVATE_SELF, Code.LAST_SUPER_ADMIN];

/** identity's whole HTTP surface: one route per line (id, method, path, who may call, what it takes and answers, handler). */
// prettier-ignore
export const ROUTES = [
  HEALTH,
  route('login', 'POST', 'auth/login', PUBLIC, { body: SMALL(s.LOGIN_BODY), 200: s.LOGIN_STARTED, 429: refusal([Code.LOGIN_RATE_LIMITED, Code.OTP_RESEND_COOLDOWN], { headers: RETRY_AFTER }), 503: refusal([Code.EMAIL_THROTTLED], { headers: RETRY_AFTER }) }, auth.login),
  route('verify', 'POST', 'auth/verify', PUBLIC, { body: SMALL(s.VERIFY_BODY), 200: s.TOKENS, 401: refusal([Code.OTP_INVALID, Code.OTP_EXPIRED, Code.OTP_ATTEMPTS_EXCEEDED]), 403: refusal([Code.ACCOUNT_INACTIVE]) }, auth.verify),
  route('refresh', 'POST', 'auth/refresh', PUBLIC, { body: SMALL(s.REFRESH_BODY), 200: s.TOKENS, 401: refusal([Code.REFRESH_TOKEN_INVALID, Code.REFRESH_TOKEN_EXPIRED, Code.REFRESH_TOKEN_ROTATED, Code.REFRESH_TOKEN_REUSED, Code.AUTH_USER_INACTIVE]) }, auth.refresh),
  route('logout', 'POST', 'auth/logout', SIGNED_IN, { body: { ...SMALL(s.LOGOUT_BODY), optional: true }, 200: s.LOGGED_OUT }, auth.logout),
  route('validate', 'GET', 'auth/validate', SIGNED_IN, { 200: s.VALIDATED }, auth.validate),
  route('jwks', 'GET', '.well-known/jwks.json', PUBLIC, { 200: s.JWKS }, auth.publishKeys),
  route('user-plan', 'PUT', 'admin/users/{userId}/plan', PLAN_CALLER, { params: s.USER_ID_PARAM, body: SMALL(s.PLAN_BODY), 200: s.PLAN_UPDATED, 404: NO_USER, 409: refusal([Code.PLAN_UPDATE_STALE, ...ACCOUNT_RULES]) }, setPlan),
  route('admin-users-create', 'POST', 'admin/users', adminWith('admin:users:create', 'user.create'), { body: SMALL(s.CREATE_USER_BODY, ADMIN_BODY), 201: s.USER_CHANGED, 409: refusal([Code.USER_EXISTS]) }, admin.createUserOp),
  route('admin-users-list', 'GET', 'admin/users', adminWith('admin:users:read', 'user.list'), { query: s.USERS_QUERY, 200: s.USERS }, admin.listUsersOp),
  route('admin-users-read', 'GET', 'admin/users/{id}', adminWith('admin:users:read', 'user.read'), { params: s.ID_PARAM, 200: s.USER_READ, 404: NO_USER }, admin.readUserOp),
  route('admin-users-update', 'PATCH', 'admin/users/{id}', adminWith('admin:users:update', 'user.update'), { params: s.ID_PARAM, body: SMALL(s.PATCH_USER_BODY, ADMIN_BODY), 200: s.USER_CHANGED, 404: NO_USER, 409: refusal([Code.USER_EXISTS, ...ACCOUNT_RULES]) }, admin.patchUserOp),
  route('admin-users-delete', 'DELETE', 'admin/users/{id}', adminWith('admin:users:delete', 'user.delete'), { params: s.ID_PARAM, 200: s.USER_DELETED, 404: NO_USER, 409: refusal([Code.CANNOT_DELETE_SELF, Code.LAST_SUPER_ADMIN]) }, admin.deleteUserOp),
  route('admin-roles-grant', 'POST', 'admin/users/{id}/roles', adminWith('admin:roles:grant', 'role.grant'), { params: s.ID_PARAM, body: SMALL(s.GRANT_ROLE_BODY, ADMIN_BODY), 200: s.ROLE_CHANGED, 404: NO_USER, 409: refusal([Code.LAST_SUPER_ADMIN]) }, admin.grantRoleOp),
  route('admin-roles-revoke', 'DELETE', 'admin/users/{id}/roles/{roleId}', adminWith('admin:roles:grant', 'role.revoke'), { params: s.ROLE_PARAMS, 200: s.ROLE_CHANGED, 404: refusal([Code.USER_NOT_FOUND, Code.ROLE_NOT_FOUND, Code.ROLE_NOT_ASSIGNED]), 409: refusal([Code.BASE_ROLE, Code.LAST_SUPER_ADMIN]) }, admin.revokeRoleOp),
  route('admin-roles-list', 'GET', 'admin/roles', adminWith('admin:roles:read', 'role.list'), { 200: s.ROLES }, admin.listRolesOp),
  route('admin-roles-permissions', 'GET', 'admin/roles/{id}/permissions', adminWith('admin:roles:read', 'role.read', 'role'), { params: s.ROLE_ID_PARAM, 200: s.ROLE_PERMISSIONS, 404: refusal([Code.ROLE_NOT_FOUND]) }, admin.rolePermissionsOp),
  route('admin-audit', 'GET', 'admin/audit', adminWith('admin:audit:read', 'audit.read'), { query: s.AUDIT_QUERY, 200: s.AUDIT_ENTRIES }, admin.auditOp),
  route('admin-sessions-list', 'GET', 'admin/sessions', adminWith('admin:sessions:read', 'session.list'), { query: s.SESSIONS_QUERY, 200: s.SESSIONS }, admin.listSessionsOp),
  route('admin-sessions-revoke', 'DELETE', 'admin/sessions/{id}', adminWith('admin:sessions:revoke', 'session.revoke', 'session'), { params: s.ID_PARAM, 200: s.SESSION_REVOKED, 404: refusal([Code.SESSION_NOT_FOUND]) }, admin.revokeSessionOp),
  route('admin-compliance', 'GET', 'admin/compliance', adminWith('admin:compliance:read', 'compliance.read'), { 200: s.COMPLIANCE }, admin.complianceOp),
];

export const DESCRIPTION =
  "Email one-time-code sign-in, ES256 access tokens (JWKS), rotating refresh tokens, users, roles, permissions, sessions, audit, compliance, and each user's plan and status.";
