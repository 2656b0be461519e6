// A handler's input types come from the route's schemas: a handler that expects another shape does
// not compile. The `@ts-expect-error` lines below are the test: `npm test` compiles this file first,
// and an expected error that does not happen fails the build.
import { op, PUBLIC, routes } from '../../shared/http/route';
import { json } from '../../shared/http/handler';
import { int, obj, oneOfValues, query, str, type Infer } from '../../shared/http/schemas';

const route = routes('identity');
const BODY = obj({ name: str(), count: int() }, { optional: ['count'], closed: true });
const QUERY = query({ state: oneOfValues(['on', 'off'], { default: 'on' }), limit: int() });
const PARAMS = obj({ id: str() });

const fits = op<undefined, { name: string; count?: number }, { state: 'on' | 'off'; limit?: number }, { id: string }>('fits', async ({ body, query, params }) =>
  json(200, { body, query, params }),
);
const wider = op<undefined, { name: string }>('reads less than it gets', async ({ body }) => json(200, body));
const wrongBody = op<undefined, { name: number }>('expects a number', async ({ body }) => json(200, body));
const wrongQuery = op<undefined, unknown, { state: 'on' | 'off' | 'maybe'; limit: number }>('expects limit always', async ({ query }) => json(200, query));
const wrongParams = op<undefined, unknown, unknown, { id: string; other: string }>('expects a parameter the path lacks', async ({ params }) =>
  json(200, params),
);

test('a handler whose input matches its schemas compiles; one that expects more or other than they say does not', () => {
  const ok = [
    route('fits', 'POST', 'x/{id}', PUBLIC, { params: PARAMS, query: QUERY, body: BODY, 200: obj({}) }, fits),
    route('wider', 'POST', 'x', PUBLIC, { body: BODY, 200: obj({}) }, wider),
    // @ts-expect-error: the schema says name is a string
    route('wrong-body', 'POST', 'x', PUBLIC, { body: BODY, 200: obj({}) }, wrongBody),
    // @ts-expect-error: the schema says limit may be absent
    route('wrong-query', 'GET', 'x', PUBLIC, { query: QUERY, 200: obj({}) }, wrongQuery),
    // @ts-expect-error: the path has no parameter "other"
    route('wrong-params', 'GET', 'x/{id}', PUBLIC, { params: PARAMS, 200: obj({}) }, wrongParams),
  ];
  expect(ok.map((fn) => fn.name)).toEqual(['identity-fits', 'identity-wider', 'identity-wrong-body', 'identity-wrong-query', 'identity-wrong-params']);
});

test('what the schema builders infer', () => {
  type Body = Infer<typeof BODY>;
  type Query = Infer<typeof QUERY>;
  const body: Body = { name: 'a' };
  const query: Query = { state: 'off' };
  // @ts-expect-error: state is one of its values
  const wrong: Query = { state: 'maybe' };
  expect([body, query, wrong]).toHaveLength(3);
});
