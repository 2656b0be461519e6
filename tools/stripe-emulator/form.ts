import qs from 'qs';
import { invalid } from './errors';

/**
 * How Stripe's form bodies are read: brackets nest (`metadata[userId]=u1`), indexed or empty
 * brackets make arrays (`allowed_payment_method_types[0]=card`, `expand[]=x`), a repeated plain key
 * keeps its last value, and `__proto__`-style keys are dropped. The limits are far above what the
 * Stripe client sends (metadata holds at most 50 keys); past them the request is refused rather
 * than silently flattened.
 */
const FORM_OPTIONS = {
  depth: 5,
  strictDepth: true,
  arrayLimit: 100,
  parameterLimit: 1000,
  throwOnLimitExceeded: true,
  duplicates: 'last',
  allowPrototypes: false,
} as const;

/** Decodes a Stripe form body into nested objects and arrays, as Stripe's API reads it; a body past the limits is Stripe's 400. */
export function parseStripeForm(body: string): Record<string, unknown> {
  try {
    return qs.parse(body, FORM_OPTIONS);
  } catch (error) {
    throw invalid(`The request body could not be read: ${(error as Error).message}`);
  }
}
