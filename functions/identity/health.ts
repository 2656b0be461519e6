import { checkSql, healthFunction } from '../../shared/health';
import { identityContext } from './context';

/** `GET identity/health`: identity's code uses its database and no storage, so the database is the one check, on the request's context. */
export const HEALTH = healthFunction('identity', identityContext, (ctx) => ({ sql: () => checkSql(ctx) }));
