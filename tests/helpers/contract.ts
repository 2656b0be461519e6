import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { allServices } from '../../functions/registry';
import { buildRouteTable, resolve, type RouteEntry } from '../../devhost/http-server';
import { documentedStatuses, isRouted } from '../../shared/http/openapi';
import type { RoutedFunction } from '../../shared/http/route';
import { ERROR_ENVELOPE } from '../../shared/http/schemas';

/**
 * Holds every answer the tests receive to the API documents: the operation a request reached (by
 * the same routing the hosts use), then its documented schema for the answer's status, or the
 * error envelope for an error status. An answer the document does not describe fails the test,
 * so the documents cannot drift from the code: a status the operation does not list fails even
 * when its body is a valid error (the document's `default` says every error has that envelope, not
 * that every status may occur).
 */
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const compiled = new WeakMap<object, ValidateFunction>();
const validator = (schema: object) => {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
};

let table: RouteEntry[] | undefined;
function routeTable(): RouteEntry[] {
  table ??= buildRouteTable(
    allServices()
      .flatMap((s) => s.functions)
      .filter(isRouted),
  );
  return table;
}

export class ContractViolation extends Error {}

/** Checks one answer; throws ContractViolation naming the operation and what differs. */
export function checkAnswer(method: string, url: string, status: number, contentType: string | null, body: string): void {
  const { pathname } = new URL(url);
  const match = resolve(routeTable(), method === 'HEAD' ? 'GET' : method, pathname);
  if (!match || method === 'HEAD' || method === 'OPTIONS') return;
  const fn = match.fn as RoutedFunction;
  const where = `${method} ${pathname} (${fn.doc.id}) answered ${status}`;
  // Another method on a route that answers 405 itself (io.otherMethods): that 405, in the error envelope.
  const spec = fn.doc.methods.includes(method as never) ? documentedStatuses(fn.doc).get(status) : status === 405 ? {} : undefined;
  if (!spec) {
    const listed = fn.doc.methods.includes(method as never) ? [...documentedStatuses(fn.doc).keys()].join(', ') : `405 to ${method}`;
    throw new ContractViolation(`${where}, a status its API document does not list (${listed})`);
  }
  const json = contentType?.includes('application/json');
  if (!spec.schema && spec.content && contentType && !Object.keys(spec.content).some((type) => contentType.startsWith(type))) {
    throw new ContractViolation(`${where} with Content-Type ${contentType}, not one the document lists (${Object.keys(spec.content).join(', ')})`);
  }
  const schema = spec.schema ?? (status >= 400 && !spec.content ? ERROR_ENVELOPE : undefined);
  if (!schema) return;
  // An error answer always carries the envelope; a success body is checked when there is one.
  if (schema === ERROR_ENVELOPE && (!json || !body)) throw new ContractViolation(`${where} without the JSON error envelope (Content-Type ${contentType})`);
  if (!json || !body) return;
  const check = validator(schema);
  if (!check(JSON.parse(body)))
    throw new ContractViolation(`${where} with a body its API document does not describe: ${ajv.errorsText(check.errors)}\n${body.slice(0, 500)}`);
}
