/**
 * A read-only look at the plugin's database for `wpp doctor`: its migration and SQLite's
 * quick_check. better-sqlite3 is synchronous and quick_check reads every page, so on a large
 * database it could outlast the check's deadline while blocking the whole process; it runs in
 * a worker thread, which the deadline terminates. The worker is a few lines of plain
 * JavaScript given as text: a module file would be TypeScript under the tests.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { MIGRATION_QUERIES } from './migrate.js';

export interface DatabaseProbe {
  /** The newest migration recorded; null when the file has no schema_migrations table. */
  version: number | null;
  /** quick_check's findings: ['ok'] when sound, else up to 5 problems. */
  quickCheck: string[];
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let db;
try {
  db = new Database(workerData.file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 1000');
  // recordedMigration of migrate.ts, with its queries.
  const migrations = db.prepare(workerData.queries.hasTable).get();
  const version = migrations ? (db.prepare(workerData.queries.newest).get().v ?? 0) : null;
  const quickCheck = db.pragma('quick_check(5)').map((row) => String(Object.values(row)[0]));
  parentPort.postMessage({ probe: { version, quickCheck } });
} catch (error) {
  parentPort.postMessage({ error: { message: String(error && error.message), code: error && error.code } });
} finally {
  if (db) db.close();
}
`;

const driver = createRequire(import.meta.url).resolve('better-sqlite3');

/** Probes `file` in a worker; `signal` terminates it. Rejects with the driver's error (its `code` kept). */
export function probeDatabase(file: string, signal?: AbortSignal): Promise<DatabaseProbe> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, queries: MIGRATION_QUERIES } });
    const stop = () => {
      void worker.terminate();
      reject(signal?.reason instanceof Error ? signal.reason : new Error('stopped'));
    };
    signal?.addEventListener('abort', stop, { once: true });
    const done = () => signal?.removeEventListener('abort', stop);
    worker.once('message', (message: { probe?: DatabaseProbe; error?: { message: string; code?: string } }) => {
      done();
      void worker.terminate();
      if (message.probe) resolve(message.probe);
      else reject(Object.assign(new Error(message.error?.message ?? 'the database could not be read'), { code: message.error?.code }));
    });
    worker.once('error', (error) => {
      done();
      reject(error);
    });
  });
}
