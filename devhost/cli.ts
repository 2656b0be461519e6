/** `npm start`: serves all selected services on one port with embedded defaults. */
import { ConfigError } from '../shared/config';
import { createLogger } from '../shared/logging';
import { startDevHost } from './host';

/**
 * Nothing a caller sends may stop the host (it stops Azurite and every service with it): an error
 * that escapes every handler is logged and serving goes on. The request handler already answers or
 * drops its own connection; this is the net under it.
 */
function keepServing(): void {
  const log = createLogger({ component: 'devhost' });
  process.on('unhandledRejection', (error) => log.error('unhandled promise rejection; still serving', { error }));
  process.on('uncaughtException', (error) => log.error('uncaught exception; still serving', { error }));
}

async function main(): Promise<void> {
  keepServing();
  const host = await startDevHost({ persistStorage: true, banner: true });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping...\n`);
    await host.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : (error as Error).stack}\n`);
  process.exit(1);
});
