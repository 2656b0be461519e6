import { config } from './config';

let started = false;

/** Application Insights when APPLICATIONINSIGHTS_CONNECTION_STRING is set; nothing at all otherwise. */
export function startTelemetry(): void {
  const connectionString = config().APPLICATIONINSIGHTS_CONNECTION_STRING;
  if (started || !connectionString) return;
  const appInsights = require('applicationinsights') as typeof import('applicationinsights');
  appInsights.setup(connectionString).setAutoCollectConsole(true, true).setSendLiveMetrics(false).start();
  started = true;
}
