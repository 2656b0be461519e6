/** `npm start`: serves all selected services on one port with embedded defaults. */
import { ConfigError } from '../shared/config';
import { startDevHost } from './host';

async function main(): Promise<void> {
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
