/**
 * The one-file bundles of the cold-start libraries (shared/vendor.ts, built by scripts/build-vendor.ts):
 * each exposes what its package exposes, and no code of ours takes one of these libraries' values
 * from node_modules instead (a second, slow copy, and objects Kysely or the Azure SDK would not
 * recognise as their own).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../devhost/paths';
import { VENDOR_BUNDLES, vendored } from '../../shared/vendor';
import { typescriptSources } from '../helpers/sources';

const PACKAGES = Object.values(VENDOR_BUNDLES).flat();

test.each(PACKAGES)('the bundle of %s exports the same names as the package', (name) => {
  const names = (module: object) =>
    Object.keys(module)
      .filter((key) => key !== '__esModule' && key !== 'default')
      .sort();
  // A package with ES modules only (intl-messageformat) is read by a Node process of its own: the test runner cannot require it.
  let fromPackage: string[];
  try {
    fromPackage = names(require(name) as object);
  } catch {
    const script = `const m = await import(${JSON.stringify(name)}); console.log(JSON.stringify(Object.keys(m)));`;
    fromPackage = names(
      Object.fromEntries(
        (JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: PROJECT_ROOT, encoding: 'utf8' })) as string[]).map((k) => [
          k,
          1,
        ]),
      ),
    );
  }
  expect(names(vendored(name))).toEqual(fromPackage);
  expect(names(vendored(name)).length).toBeGreaterThan(0);
});

test('the bundles work: a Kysely query, a JWT signed and verified, a schema checked with a format', async () => {
  const { Kysely, DummyDriver, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql } = vendored('kysely');
  const db = new Kysely<{ t: { id: number } }>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new SqliteIntrospector(k),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
  expect(db.selectFrom('t').select('id').where('id', '=', 1).compile().sql).toBe('select "id" from "t" where "id" = ?');
  expect(sql`select ${1}`.compile(db).parameters).toEqual([1]);

  const jose = vendored('jose');
  const { privateKey, publicKey } = await jose.generateKeyPair('ES256');
  const token = await new jose.SignJWT({ sub: 'u1' }).setProtectedHeader({ alg: 'ES256' }).sign(privateKey);
  expect((await jose.jwtVerify(token, publicKey)).payload.sub).toBe('u1');

  const ajv = vendored('ajv-formats').default(new (vendored('ajv').default)());
  const isEmail = ajv.compile({ type: 'string', format: 'email' });
  expect([isEmail('a@example.com'), isEmail('not an address')]).toEqual([true, false]);
});

const valueImport = (packages: string[]) => {
  const names = packages.map((name) => name.replace(/[/.-]/g, '\\$&')).join('|');
  return new RegExp(`^\\s*import\\s+(?!type\\b)[^;]*?from\\s+'(${names})'|\\brequire\\(\\s*'(${names})'\\s*\\)`, 'gm');
};

test('no code of ours takes a vendored library from node_modules (types excepted)', () => {
  const everywhere = valueImport(PACKAGES);
  // Tests may check tokens, contracts and storage from the outside with copies of their own, as a
  // client would; the Kysely handles they make go into our code, so those come from the bundle too.
  const inTests = valueImport(['kysely']);
  const offenders = typescriptSources(['.'])
    .filter((file) => file !== path.join('tests', 'platform', 'vendor.test.ts'))
    .flatMap((file) => {
      const pattern = file.startsWith(`tests${path.sep}`) ? inTests : everywhere;
      return [...fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8').matchAll(pattern)].map((m) => `${file}: ${m[1] ?? m[2]}`);
    });
  expect(offenders).toEqual([]);
  // The pattern finds what it is meant to find, and only that.
  expect("import { sql } from 'kysely';\nconst b = require('@azure/storage-blob');".match(everywhere)).toHaveLength(2);
  expect("import type { Kysely } from 'kysely';\nimport { x } from 'kysely-extra';".match(everywhere)).toBeNull();
});
