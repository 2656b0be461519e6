import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export interface AzuriteHandle {
  connectionString: string;
  pid: number;
  stop(): Promise<void>;
}

const ACCOUNT = 'devstoreaccount1';
// The well-known Azurite development key: public, documented, and only valid against the emulator.
const KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

/**
 * `count` distinct free loopback ports. All are held open together before being released, so the
 * OS cannot hand out one port twice (one at a time, it sometimes did: Azurite then failed with
 * EADDRINUSE on its own second port).
 */
export async function freePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.unref();
          server.once('error', reject);
          server.listen(0, host, () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return (await freePorts(1, host))[0];
}

function canConnect(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

interface AzuriteOptions {
  location?: string;
  host?: string;
  debugLog?: string;
}

/** Another process took a port between its release and Azurite's listen: worth a retry on new ports. */
class PortTaken extends Error {}

/**
 * Starts Azurite (pinned 3.35.0) on free loopback ports. With `location` it persists there;
 * without it keeps everything in memory (tests).
 */
export async function startAzurite(options: AzuriteOptions = {}): Promise<AzuriteHandle> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchAzurite(options, await freePorts(3, options.host ?? '127.0.0.1'));
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt === 3) throw error;
    }
  }
}

async function launchAzurite(options: AzuriteOptions, [blobPort, queuePort, tablePort]: number[]): Promise<AzuriteHandle> {
  const host = options.host ?? '127.0.0.1';
  const args = [
    '--blobHost', host, '--blobPort', String(blobPort),
    '--queueHost', host, '--queuePort', String(queuePort),
    '--tableHost', host, '--tablePort', String(tablePort),
    '--skipApiVersionCheck', '--disableTelemetry', '--loose',
  ];
  if (options.location) {
    fs.mkdirSync(options.location, { recursive: true });
    args.push('--location', options.location);
  } else {
    args.push('--inMemoryPersistence');
  }
  if (options.debugLog) args.push('--debug', options.debugLog);
  const child: ChildProcess = fork(path.join(__dirname, 'azurite-child.js'), args, { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let output = '';
  child.stdout?.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  child.stderr?.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      const message = `Azurite exited during start-up (code ${child.exitCode}):\n${output}`;
      throw output.includes('EADDRINUSE') ? new PortTaken(message) : new Error(message);
    }
    const ready = await Promise.all([blobPort, queuePort, tablePort].map((p) => canConnect(p, host)));
    if (ready.every(Boolean)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`Azurite did not start within 30 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  const connectionString = [
    'DefaultEndpointsProtocol=http',
    `AccountName=${ACCOUNT}`,
    `AccountKey=${KEY}`,
    `BlobEndpoint=http://${host}:${blobPort}/${ACCOUNT}`,
    `QueueEndpoint=http://${host}:${queuePort}/${ACCOUNT}`,
    `TableEndpoint=http://${host}:${tablePort}/${ACCOUNT}`,
  ].join(';');

  return {
    connectionString,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
