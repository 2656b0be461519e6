import net from 'node:net';
import { freePorts } from '../../devhost/azurite';

const listen = (port: number) =>
  new Promise<net.Server>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

test('freePorts gives distinct ports that can all be listened on together (Azurite takes three at once)', async () => {
  for (let round = 0; round < 20; round++) {
    const ports = await freePorts(3);
    expect(new Set(ports).size).toBe(3);
    const servers = await Promise.all(ports.map(listen));
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
});
