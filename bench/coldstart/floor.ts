/**
 * The floor of a cold start, sampled by ./run beside the services: a fresh Node process with no
 * platform code that serves one HTTP route and has it answer 200 (asked over loopback by itself).
 * What a service needs beyond this before its first 200 is what the platform adds to a start.
 * Prints one JSON line: `firstOk`, milliseconds from process start, and the status.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const server = http.createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"healthy"}');
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  http.get({ host: '127.0.0.1', port, path: '/health' }, (response) => {
    response.resume();
    response.on('end', () => {
      const body = { firstOk: performance.now(), status: String(response.statusCode) };
      process.stdout.write(JSON.stringify(body) + '\n', () => process.exit(0));
    });
  });
});
