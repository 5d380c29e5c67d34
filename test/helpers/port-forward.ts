/**
 * A fleet database that goes down and comes back, as a server sees it: a port on 127.0.0.1
 * forwarded to the test's PostgreSQL while up. `down()` drops every connection and refuses new
 * ones (a database stopped, a network cut), `up()` forwards again, `hang()` keeps connections
 * open but passes nothing (a database that does not answer). The port is reserved first and
 * starts down: a server pointed at it before `up()` finds nobody listening.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** A port free on 127.0.0.1 now, that nothing listens on. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export async function forwardedPort(target: number) {
  const port = await freePort();
  let forward: Server | undefined;
  let hung = false;
  const sockets = new Set<Socket>();
  return {
    port,
    async up(): Promise<void> {
      hung = false;
      if (forward) return;
      const server = createServer((client) => {
        const upstream = connect(target, '127.0.0.1');
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('error', () => socket.destroy());
          socket.on('close', () => sockets.delete(socket));
        }
        client.on('data', (data) => void (hung || upstream.write(data)));
        upstream.on('data', (data) => void (hung || client.write(data)));
      });
      forward = server;
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    async down(): Promise<void> {
      const server = forward;
      forward = undefined;
      const closing = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      for (const socket of sockets) socket.destroy();
      await closing;
    },
    hang(): void {
      hung = true;
    },
  };
}
