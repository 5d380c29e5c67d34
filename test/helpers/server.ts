/**
 * Real HTTP servers for tests, on 127.0.0.1 and a free port, through the same `listen` the
 * plugin and the sandbox serve with. `withServer` always closes its server.
 */
import type { RequestListener } from 'node:http';
import { listen, type Listening } from '../../src/http-server.js';

/** Listens on 127.0.0.1:0 (`url` and `port` say where); stop it with `close({ force: true })` in a finally. */
export function startServer(handler: RequestListener = () => {}): Promise<Listening> {
  return listen(handler, {
    host: '127.0.0.1',
    port: 0,
    what: 'A test server',
    setting: 'nothing (it asks for any free port)',
    errorBody: (problem, _status, message) => ({ code: problem, message }),
  });
}

/** Runs `fn` with a server started by `startServer`, and closes it, open connections too, whatever happens. */
export async function withServer<T>(handler: RequestListener, fn: (server: Listening) => Promise<T>): Promise<T> {
  const server = await startServer(handler);
  try {
    return await fn(server);
  } finally {
    await server.close({ force: true });
  }
}
