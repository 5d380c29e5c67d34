/**
 * Closing a plugin whose provider calls wait for the pacer's tokens (docs/fleet.md, "One
 * budget per server"): the close stops the calls that wait, instead of waiting for each
 * token in turn, and the jobs they belong to are pending again for the next start, their
 * attempt not spent, nothing lost and nothing counted as sent.
 */
import { appendFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { inspectPlugin, startTestPlugin } from '../helpers/plugin.js';
import { removeTempDir } from '../helpers/temp.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

/** A debug logger whose lines the test reads. */
function recordingLogger() {
  const lines: { msg?: string; code?: string; kind?: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: pino({ level: 'debug' }, stream) };
}

describe('closing a plugin while its provider calls wait for tokens', () => {
  it('stops the waiting calls at once; their jobs stay pending, attempts unspent, nothing sent for them', async () => {
    const sandbox = await startTestSandbox({ certDelaySeconds: 0 });
    const { lines, logger } = recordingLogger();
    // One token a second: twelve new accounts' set-ups (a few calls each) are a backlog of half a minute.
    const plugin = await startTestPlugin(sandbox, { env: { WPP_SYNC_RATE: '1' }, logger });
    const accounts = Array.from({ length: 12 }, (_, i) => `close${i}`);
    let closeMs = Number.POSITIVE_INFINITY;
    let closing: Promise<void> | undefined;
    try {
      await plugin.postEvents(accounts.map((account) => ({ type: 'domain.added', account, domain: `${account}.example` })));
      // Under way: the worker runs its eight jobs, each waiting for its next token.
      await waitFor(() => plugin.jobs.counts().running >= 8, 10_000, 'the worker to run its jobs');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const startedAt = Date.now();
      closing = plugin.close().then(() => {
        closeMs = Date.now() - startedAt;
      });
      await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 5000))]);
      expect(closeMs, 'the close took longer than 5 s').toBeLessThan(2000);
    } finally {
      await closing;
      await sandbox.close();
    }
    const inspection = inspectPlugin(plugin.config, { url: sandbox.url, apiKey: sandbox.partnerKey });
    try {
      // The twelve panel events, and the server's registration wpp serve queues at its start.
      const jobs = inspection.jobs.list({ limit: 100 });
      expect(jobs.filter((job) => job.kind === 'panel.event')).toHaveLength(12);
      // Nothing lost: each job is done or pending for the next start, none dead, none left running.
      expect(jobs.filter((job) => job.state !== 'done' && job.state !== 'pending')).toEqual([]);
      const pending = jobs.filter((job) => job.state === 'pending');
      expect(pending.filter((job) => job.kind === 'panel.event').length).toBeGreaterThan(0);
      // The close is not a failure of the job: its attempt is not spent.
      expect(pending.map((job) => job.attempts)).toEqual(pending.map(() => 0));
      // A call stopped before its token was not sent, so it is no failed provider request either.
      expect(lines.filter((line) => line.msg === 'provider request failed')).toEqual([]);
      expect(lines.filter((line) => line.msg === 'job failed; will retry')).toEqual([]);
      const released = lines.filter((line) => line.msg === 'job stopped by the close; pending again for the next start').length;
      expect(released).toBeGreaterThan(0);
      // For the figures in docs/fleet.md: one JSON line appended to the file named.
      const figures = { closeMs, released, pending: pending.length, done: jobs.filter((job) => job.state === 'done').length };
      if (process.env.WPP_TEST_PACER_LOG) appendFileSync(process.env.WPP_TEST_PACER_LOG, `${JSON.stringify(figures)}\n`);
    } finally {
      inspection.close();
      removeTempDir(plugin.dataDir);
      removeTempDir(sandbox.dataDir);
    }
  }, 90_000);
});
