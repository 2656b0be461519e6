import { HttpError } from '../../shared/http/errors';

/** 503: a dependency this route cannot work without (Stripe, identity) is missing or down. */
export const serviceUnavailable = (message: string, code: string) => new HttpError(503, 'Service unavailable', message, code);
/** 502: a dependency answered, but not in a way this route can use. */
export const badGateway = (message: string, code: string) => new HttpError(502, 'Bad gateway', message, code);
