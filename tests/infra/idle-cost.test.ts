/**
 * The idle monthly cost table of docs/deploy.md ("What an idle platform costs") is what
 * scripts/idle-cost.ts computes from the compiled template: a template change that moves the bill
 * (a test location, a frequency, an alert rule, the SQL SKU) fails here until `npm run docs:cost`
 * rewrites the table. The figures that change with the defaults are held here too.
 */
import fs from 'node:fs';
import { compiledInfra, describeWithBicep, type ArmTemplate } from '../helpers/bicep';
import { BLOCK, DEPLOY_DOC, idleCost, idleCostTable, PRICE } from '../../scripts/idle-cost';

const block = (markdown: string) => {
  const match = new RegExp(`<!-- ${BLOCK}:start -->\\n([\\s\\S]*?)\\n<!-- ${BLOCK}:end -->`).exec(markdown);
  if (!match) throw new Error(`docs/deploy.md has no ${BLOCK} block`);
  return match[1];
};

describeWithBicep('the idle cost of the compiled template', (bicep) => {
  let main: ArmTemplate;
  beforeAll(() => {
    main = compiledInfra(bicep);
  });

  it('is the table in docs/deploy.md (npm run docs:cost rewrites it)', () => {
    expect(block(fs.readFileSync(DEPLOY_DOC, 'utf8'))).toBe(idleCostTable(main));
  });

  it('counts the availability tests from the template: 4 services x 3 locations every 15 minutes by default', () => {
    const [tests] = idleCost(main);
    expect(tests.basis).toMatch(/^4 services x 3 locations every 15 minutes: 35,040 runs/);
    expect(tests.monthly).toBeCloseTo(35_040 * PRICE.availabilityTestRun, 6);
  });

  it('moves with the template: one more location, or tests every 5 minutes, changes the line and the total', () => {
    const changed: ArmTemplate = JSON.parse(JSON.stringify(main));
    changed.parameters.availabilityTestLocations.defaultValue = ['emea-nl-ams-azr', 'us-va-ash-azr', 'apac-sg-sin-azr', 'us-ca-sjc-azr'];
    expect(idleCost(changed)[0].basis).toMatch(/^4 services x 4 locations every 15 minutes: 46,720 runs/);
    changed.parameters.availabilityTestFrequency.defaultValue = 300;
    expect(idleCost(changed)[0].monthly).toBeCloseTo(140_160 * PRICE.availabilityTestRun, 6);
    expect(idleCostTable(changed)).not.toBe(idleCostTable(main));
  });

  it('prices the log search rules by their evaluation frequency: 6 rules every 15 minutes', () => {
    const rules = idleCost(main).find((line) => line.item === 'Log search alert rules')!;
    expect(rules.basis).toBe('6 rules every 15 minutes at $0.5');
    expect(rules.monthly).toBeCloseTo(3, 6);
  });

  it('counts the storage accounts (the data account and one host account per app), which cost no fixed fee', () => {
    const storage = idleCost(main).find((line) => line.item === 'Storage')!;
    expect(storage.basis).toMatch(/^5 accounts \(the data, one per app for its host\), no fixed fee: /);
    const single: ArmTemplate = JSON.parse(JSON.stringify(main));
    single.parameters.singleApp.defaultValue = true;
    const one = idleCost(single).find((line) => line.item === 'Storage')!;
    expect(one.basis).toMatch(/^2 accounts/);
    expect(one.monthly).toBe(storage.monthly);
  });

  it('reads the SQL SKU, minimum capacity, auto-pause delay and maximum size from the template', () => {
    const compute = idleCost(main).find((line) => line.item.startsWith('Azure SQL compute'))!;
    expect(compute.item).toBe('Azure SQL compute (GP_S_Gen5_2, serverless)');
    expect(compute.basis).toContain('each online 61 minutes');
    expect(compute.basis).toContain('x 0.5 vCore');
    expect(idleCost(main).find((line) => line.item === 'Azure SQL data storage')!.basis).toMatch(/^32 GB maximum size/);
  });
});
