import { fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
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
  /** Blob, queue and table ports; free ones are picked when not given. */
  ports?: [number, number, number];
}

/** Where `UseDevelopmentStorage=true` points: Azurite's default blob, queue and table ports on loopback. */
export const WELL_KNOWN_PORTS: [number, number, number] = [10000, 10001, 10002];

/** The connection string that `UseDevelopmentStorage=true` stands for, spelled out. */
export function developmentStorageConnectionString(host = '127.0.0.1', [blobPort, queuePort, tablePort]: number[] = WELL_KNOWN_PORTS): string {
  return [
    'DefaultEndpointsProtocol=http',
    `AccountName=${ACCOUNT}`,
    `AccountKey=${KEY}`,
    `BlobEndpoint=http://${host}:${blobPort}/${ACCOUNT}`,
    `QueueEndpoint=http://${host}:${queuePort}/${ACCOUNT}`,
    `TableEndpoint=http://${host}:${tablePort}/${ACCOUNT}`,
  ].join(';');
}

export const isDevelopmentStorage = (connection: string | undefined) => /^UseDevelopmentStorage=true;?$/i.test((connection ?? '').trim());

/** The `Server` header a port answers HTTP with ('' when nothing listens, 'not http' when something else does). */
function serverHeader(port: number, host: string): Promise<string> {
  return new Promise((resolve) => {
    const request = http.get({ host, port, path: '/', timeout: 2000 }, (response) => {
      response.resume();
      resolve(String(response.headers.server ?? 'not http'));
    });
    request.once('timeout', () => request.destroy(new Error('timeout')));
    request.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED' ? '' : 'not http'));
  });
}

export type PortsState = { state: 'free' } | { state: 'azurite'; versions: string[] } | { state: 'taken'; detail: string };

/** Whether Azurite (any version), nothing, or something else listens on the three ports. */
export async function probeStoragePorts(ports: number[] = WELL_KNOWN_PORTS, host = '127.0.0.1'): Promise<PortsState> {
  const servers = await Promise.all(ports.map((port) => serverHeader(port, host)));
  if (servers.every((s) => s === '')) return { state: 'free' };
  if (servers.every((s) => /^Azurite-/i.test(s))) return { state: 'azurite', versions: servers };
  const detail = ports
    .map((port, i) => `${port}: ${servers[i] === '' ? 'free' : /^Azurite-/i.test(servers[i]) ? servers[i] : `taken (${servers[i]})`}`)
    .join(', ');
  return { state: 'taken', detail };
}

/** Azurite's command-line flags for the project: pinned behaviour, no telemetry, current SDKs' API versions accepted. */
function azuriteArgs(host: string, [blobPort, queuePort, tablePort]: number[], location: string | undefined, debugLog?: string): string[] {
  const args = [
    '--blobHost',
    host,
    '--blobPort',
    String(blobPort),
    '--queueHost',
    host,
    '--queuePort',
    String(queuePort),
    '--tableHost',
    host,
    '--tablePort',
    String(tablePort),
    '--skipApiVersionCheck',
    '--disableTelemetry',
    '--loose',
  ];
  if (location) {
    fs.mkdirSync(location, { recursive: true });
    args.push('--location', location);
  } else {
    args.push('--inMemoryPersistence');
  }
  if (debugLog) args.push('--debug', debugLog);
  return args;
}

async function waitForPorts(ports: number[], host: string, exited: () => number | null, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const code = exited();
    if (code !== null) {
      const message = `Azurite exited during start-up (code ${code}):\n${output()}`;
      throw output().includes('EADDRINUSE') ? new PortTaken(message) : new Error(message);
    }
    const ready = await Promise.all(ports.map((p) => canConnect(p, host)));
    if (ready.every(Boolean)) return;
    if (Date.now() > deadline) throw new Error(`Azurite did not start within 30 s:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Azurite on the well-known ports as a background process that outlives its starter (npm run
 * func:prepare, before `func start`): data under `location`, output in `<location>/azurite.log`,
 * its process id in `<location>/azurite.pid`.
 */
export async function startBackgroundAzurite(location: string, host = '127.0.0.1'): Promise<{ pid: number; logFile: string }> {
  const args = azuriteArgs(host, WELL_KNOWN_PORTS, location);
  const logFile = path.join(location, 'azurite.log');
  const out = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [require.resolve('azurite/dist/src/azurite.js'), ...args], { detached: true, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  child.unref();
  const readLog = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-4000) : '');
  try {
    await waitForPorts(WELL_KNOWN_PORTS, host, () => child.exitCode, readLog);
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGKILL');
    throw error;
  }
  fs.writeFileSync(path.join(location, 'azurite.pid'), `${child.pid}\n`);
  return { pid: child.pid!, logFile };
}

/** Another process took a port between its release and Azurite's listen: worth a retry on new ports. */
class PortTaken extends Error {}

/**
 * Starts Azurite (pinned 3.35.0) as a child process that exits with this one, on free loopback
 * ports or the `ports` given. With `location` it persists there; without it keeps everything in
 * memory (tests).
 */
export async function startAzurite(options: AzuriteOptions = {}): Promise<AzuriteHandle> {
  if (options.ports) return launchAzurite(options, options.ports);
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchAzurite(options, await freePorts(3, options.host ?? '127.0.0.1'));
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt === 3) throw error;
    }
  }
}

async function launchAzurite(options: AzuriteOptions, ports: number[]): Promise<AzuriteHandle> {
  const host = options.host ?? '127.0.0.1';
  const args = azuriteArgs(host, ports, options.location, options.debugLog);
  const child: ChildProcess = fork(path.join(__dirname, 'azurite-child.js'), args, { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let output = '';
  child.stdout?.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  child.stderr?.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await waitForPorts(
      ports,
      host,
      () => child.exitCode,
      () => output,
    );
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGKILL');
    throw error;
  }
  const connectionString = developmentStorageConnectionString(host, ports);

  return {
    connectionString,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      // In memory there is nothing to save, and a graceful stop waits for the clients' kept-alive
      // sockets to Azurite until the 5 s grace below runs out (every test file's host did so): ended
      // at once. With a location, Azurite is let to write its metadata before it exits.
      child.kill(options.location ? 'SIGTERM' : 'SIGKILL');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
