import { buildRouteTable, resolve } from '../../devhost/http-server';
import { assertRouteAllowed, compileRoute } from '../../devhost/routes';
import type { HttpFunction } from '../../shared/functions';

const fn = (name: string, route: string, methods: HttpFunction['methods'] = ['GET']): HttpFunction => ({
  kind: 'http',
  name,
  route,
  methods,
  handler: async () => ({ status: 200 }),
});

describe('ASP.NET route templates', () => {
  test('literal segments match case-insensitively and exactly', () => {
    const route = compileRoute('identity/auth/login');
    expect(route.match('/identity/auth/login')).toEqual({});
    expect(route.match('/IDENTITY/Auth/Login')).toEqual({});
    expect(route.match('/identity/auth')).toBeNull();
    expect(route.match('/identity/auth/login/extra')).toBeNull();
  });

  test('parameters capture one decoded segment', () => {
    const route = compileRoute('identity/admin/users/{userId}/plan');
    expect(route.match('/identity/admin/users/u%201/plan')).toEqual({ userId: 'u 1' });
    expect(route.match('/identity/admin/users//plan')).toBeNull();
  });

  test('optional parameters may be absent', () => {
    const route = compileRoute('orchestrator/api/reports/{trackingId?}');
    expect(route.match('/orchestrator/api/reports')).toEqual({});
    expect(route.match('/orchestrator/api/reports/abc')).toEqual({ trackingId: 'abc' });
    expect(route.match('/orchestrator/api/reports/abc/def')).toBeNull();
  });

  test('constraints filter values', () => {
    const route = compileRoute('things/{id:int}');
    expect(route.match('/things/42')).toEqual({ id: '42' });
    expect(route.match('/things/abc')).toBeNull();
    expect(compileRoute('g/{id:guid}').match('/g/6f1c2a4e-3b1d-4c6f-9a8e-1d2c3b4a5f60')).not.toBeNull();
    expect(() => compileRoute('things/{id:nonsense}')).toThrow(/unknown constraint/);
  });

  test('catch-all takes the rest of the path, including none', () => {
    const route = compileRoute('visual/{*rest}');
    expect(route.match('/visual')).toEqual({});
    expect(route.match('/visual/a/b/c')).toEqual({ rest: 'a/b/c' });
    expect(() => compileRoute('visual/{*rest}/more')).toThrow(/last segment/);
  });

  test('routes beginning with admin are refused, as Azure refuses them', () => {
    expect(() => assertRouteAllowed('admin/users')).toThrow(/conflicts with one or more built in routes/);
    expect(() => assertRouteAllowed('administration/x')).toThrow();
    expect(() => assertRouteAllowed('identity/admin/users')).not.toThrow();
  });
});

describe('route table', () => {
  const table = buildRouteTable([
    fn('catch-all', 'visual/{*rest}', ['GET', 'POST']),
    fn('charts', 'visual/api/v1/{resource}/{*rest}', ['GET', 'POST', 'PUT', 'DELETE']),
    fn('cache', 'visual/cache/{key}'),
    fn('login', 'identity/auth/login', ['POST']),
  ]);

  test('the most literal template wins', () => {
    expect(resolve(table, 'GET', '/visual/cache/abc')?.fn.name).toBe('cache');
    expect(resolve(table, 'POST', '/visual/api/v1/charts/render')).toMatchObject({ fn: { name: 'charts' }, params: { resource: 'charts', rest: 'render' } });
    expect(resolve(table, 'GET', '/visual/anything/else')?.fn.name).toBe('catch-all');
  });

  test('a known route with a method it does not accept resolves to nothing (Azure answers 404)', () => {
    expect(resolve(table, 'GET', '/identity/auth/login')).toBeUndefined();
    expect(resolve(table, 'POST', '/identity/auth/login')?.fn.name).toBe('login');
    expect(resolve(table, 'PATCH', '/visual/cache/abc')).toBeUndefined();
  });

  test('building a table with an admin route fails', () => {
    expect(() => buildRouteTable([fn('bad', 'admin/users')])).toThrow(/reserved/);
  });
});
