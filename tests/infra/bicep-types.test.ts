/**
 * The class of error that made `azd up` fail before it created anything: a module call passing a
 * value the module's parameter does not allow (BCP036 is an error for module parameters), a
 * required parameter left out, an output read with the wrong type. tests/infra/bicep.ts reads the
 * Bicep; here it is run on every file under infra/ and on small examples of each mistake, so the
 * checker itself is shown to catch them.
 */
import path from 'node:path';
import { checkFile, checkInfra, parseBicep, possibleLiterals, type BicepFile } from './bicep';

const INFRA = path.resolve(__dirname, '..', '..', '..', 'infra');

/** Checks `main` with the given modules (by path), all in memory. */
function check(main: string, modules: Record<string, string>): string[] {
  const parsed = new Map(Object.entries(modules).map(([file, text]) => [file, parseBicep(text, file)]));
  const load = (_from: BicepFile, modulePath: string) => {
    const module = parsed.get(modulePath);
    if (!module) throw new Error(`no such file ${modulePath}`);
    return module;
  };
  return checkFile(parseBicep(main, 'main.bicep'), load).map((p) => p.message);
}

const SQL_MODULE = `
param adminObjectId string
@allowed([ 'User', 'Group' ])
param adminPrincipalType string
param skuName string = 'S1'
output serverFqdn string = 'x'
output port int = 1433
`;

describe('module calls in infra/', () => {
  it('pass only allowed values, every required parameter, and values of the right type', () => {
    const problems = checkInfra(INFRA).map((p) => `${path.relative(INFRA, p.file)}:${p.line} ${p.message}`);
    expect(problems).toEqual([]);
  });
});

describe('the Bicep checker', () => {
  it('refuses a ternary whose branch is a parameter allowing more than the module does (the azd up failure)', () => {
    // main.bicep as it was: principalType also allows ServicePrincipal, which the SQL module refuses.
    const main = `
param principalId string
@allowed([ 'User', 'ServicePrincipal', 'Group' ])
param principalType string = 'User'
param sqlAdminObjectId string = ''
module sql 'sql.bicep' = {
  name: 'sql'
  params: {
    adminObjectId: empty(sqlAdminObjectId) ? principalId : sqlAdminObjectId
    adminPrincipalType: empty(sqlAdminObjectId) ? principalType : 'Group'
  }
}
`;
    expect(check(main, { 'sql.bicep': SQL_MODULE })).toEqual([
      "module sql (sql.bicep): adminPrincipalType allows only 'User' | 'Group', but the value given can be 'ServicePrincipal'",
    ]);
  });

  it('accepts ternaries and variables whose every possible literal is allowed', () => {
    const main = `
@allowed([ 'User', 'ServicePrincipal' ])
param principalType string = 'User'
param group string = ''
var adminType = !empty(group) ? 'Group' : (principalType == 'User' ? 'User' : 'Group')
module sql 'sql.bicep' = {
  name: 'sql'
  params: {
    adminObjectId: 'id'
    adminPrincipalType: adminType
  }
}
`;
    expect(check(main, { 'sql.bicep': SQL_MODULE })).toEqual([]);
  });

  it('refuses a literal outside the allowed set, and a value it cannot follow', () => {
    const main = `
param anything string
module a 'sql.bicep' = {
  name: 'a'
  params: {
    adminObjectId: 'id'
    adminPrincipalType: 'Application'
  }
}
module b 'sql.bicep' = {
  name: 'b'
  params: {
    adminObjectId: 'id'
    adminPrincipalType: toLower(anything)
  }
}
`;
    expect(check(main, { 'sql.bicep': SQL_MODULE })).toEqual([
      "module a (sql.bicep): adminPrincipalType allows only 'User' | 'Group', but the value given can be 'Application'",
      "module b (sql.bicep): adminPrincipalType allows only 'User' | 'Group', and the value given cannot be shown to be one of them (pass a literal, a ternary of literals, or a parameter or variable limited to these values)",
    ]);
  });

  it('finds a missing required parameter, an undeclared one, a wrong type and an unknown output, in loops too', () => {
    const main = `
param count int = 2
module sql 'sql.bicep' = [for i in range(0, count): {
  name: 'sql-\${i}'
  params: {
    adminPrincipalType: 'User'
    skuName: count
    tier: 'Basic'
  }
}]
output fqdn string = sql[0].outputs.port
output missing string = sql[0].outputs.nothing
`;
    expect(check(main, { 'sql.bicep': SQL_MODULE })).toEqual([
      'module sql (sql.bicep): skuName is string, but the value given is int',
      'module sql (sql.bicep): passes "tier", which the module does not declare',
      'module sql (sql.bicep): the required parameter "adminObjectId" is not passed',
      'output fqdn: fqdn is string, but the value given is int',
      'module sql (sql.bicep) has no output "nothing"',
    ]);
  });

  it('follows literal-union parameter types and integer @allowed lists', () => {
    const module = `
@allowed([ 512, 2048 ])
param memory int
param tier 'Basic' | 'Standard'
`;
    const main = `
@allowed([ 512, 2048, 4096 ])
param memory int = 2048
param premium bool = false
module m 'm.bicep' = {
  name: 'm'
  params: {
    memory: memory
    tier: premium ? 'Premium' : 'Basic'
  }
}
`;
    expect(check(main, { 'm.bicep': module })).toEqual([
      'module m (m.bicep): memory allows only 512 | 2048, but the value given can be 4096',
      "module m (m.bicep): tier allows only 'Basic' | 'Standard', but the value given can be 'Premium'",
    ]);
  });

  it('reports an undeclared symbol', () => {
    expect(check("var a = b\noutput x string = 'y'\n", {})).toEqual(['"b" is not declared']);
  });

  it('reads the possible literals of nested ternaries and refuses syntax it does not know', () => {
    const file = parseBicep("param p bool\nvar v = p ? 'a' : (p ? 'b' : 'c')\n");
    expect(possibleLiterals(file.vars.get('v')!.value, { file, locals: new Set(), load: () => file } as never)).toEqual(['a', 'b', 'c']);
    expect(() => parseBicep('import foo\n')).toThrow('unsupported statement "import"');
  });
});
