/**
 * Azure Functions entry point (package.json "main"). Registers the functions of the services named
 * in SERVICES with the v4 programming model. Under the dev host and in tests `app.*` is inert
 * ("test mode"), so the dev host reads the same registry instead.
 */
import { app } from '@azure/functions';
import { config } from '../shared/config';
import { httpRegistration } from '../shared/functions';
import { startTelemetry } from '../shared/telemetry';
import { functionsOf, selectServices } from './registry';

const cfg = config();
startTelemetry();
app.setup({ enableHttpStream: false });

const services = selectServices(cfg.SERVICES);
for (const service of services) {
  if (service.start) app.hook.appStart(() => service.start!());
}
for (const fn of functionsOf(services)) {
  switch (fn.kind) {
    case 'http':
      app.http(fn.name, { route: fn.route, authLevel: 'anonymous', ...httpRegistration(fn) });
      break;
    case 'timer':
      app.timer(fn.name, { schedule: fn.schedule, runOnStartup: fn.runOnStartup ?? false, handler: fn.handler });
      break;
    case 'queue':
      app.storageQueue(fn.name, { queueName: fn.queueName, connection: 'AzureWebJobsStorage', handler: fn.handler });
      break;
  }
}
