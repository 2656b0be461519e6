import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../devhost/host';
import { generateDevSecrets } from '../../devhost/settings';
import { functionsOf, selectServices } from '../../functions/registry';

/** Loads the Azure Functions entry point with `SERVICES` set and records what it registers with `app.*`. */
async function registeredWith(services: string) {
  const sample = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'local.settings.sample.json'), 'utf8'));
  const env = { ...(await generateDevSecrets(sample.Values)), SERVICES: services, AzureWebJobsStorage: 'UseDevelopmentStorage=true' };
  const saved = { ...process.env };
  Object.assign(process.env, env);
  const registered: { kind: string; name: string; options: any }[] = [];
  try {
    jest.isolateModules(() => {
      const { app } = require('@azure/functions');
      for (const kind of ['http', 'timer', 'storageQueue'] as const) {
        jest.spyOn(app, kind).mockImplementation((name: any, options: any) => registered.push({ kind, name, options }));
      }
      jest.spyOn(app, 'setup').mockImplementation(() => undefined);
      require('../../functions/index');
    });
  } finally {
    process.env = saved;
  }
  return registered;
}

test('the entry point registers every function of the services named in SERVICES, and only those', async () => {
  const payment = await registeredWith('payment');
  expect(payment.map((r) => r.name).sort()).toEqual(functionsOf(selectServices(['payment'])).map((f) => f.name).sort());

  const all = await registeredWith('identity,payment,orchestrator,visual');
  expect(all).toHaveLength(functionsOf(selectServices(['identity', 'payment', 'orchestrator', 'visual'])).length);
  for (const r of all.filter((x) => x.kind === 'http')) {
    expect(r.options.authLevel).toBe('anonymous');
    expect(r.options.route.split('/')[0]).toMatch(/^(identity|payment|orchestrator|visual|quickchart)$/);
  }
  for (const r of all.filter((x) => x.kind === 'storageQueue')) expect(r.options.connection).toBe('AzureWebJobsStorage');
});
