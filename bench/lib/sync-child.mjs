/**
 * The plugin side of the sync bench, in its own process so its peak RSS is its own, and in
 * plain JavaScript on the compiled dist/ so it runs as a deployment does (no TypeScript
 * loader in its memory):
 *
 *   node bench/lib/sync-child.mjs      (after npm run build)
 *
 * startPlugin with the configuration of the WPP_* environment (HTTP, worker and scheduler
 * off) over a database the bench has already seeded; prints {"pid","rss_mb"} when ready.
 * On the command {"run": true} (a line on stdin) it runs one full statistics sync and then
 * one enforcement pass, and prints one JSON line with their wall times, their results, the
 * CPU it used, and counts read back from its database (on a read-only connection of its own)
 * for the bench to check. Stops when stdin closes, closing cleanly so --cpu-prof is written.
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { loadConfig } from '../../dist/config.js';
import { startPlugin } from '../../dist/main.js';

/** Calls onCommand for each JSON line on stdin; resolves when stdin closes or on SIGTERM/SIGINT. */
function commandsFromParent(onCommand) {
  return new Promise((resolve) => {
    const lines = createInterface({ input: process.stdin });
    lines.on('line', (line) => {
      if (line.trim().startsWith('{')) onCommand(JSON.parse(line));
    });
    lines.on('close', () => resolve());
    process.stdin.on('error', () => resolve());
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
}

const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
const log = (message) => process.stderr.write(`[sync-child] ${message}\n`);
const rssNow = () => {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Math.round(Number(match[1]) / 1024) : null;
};

const config = loadConfig(process.env);
const plugin = await startPlugin({ config, role: 'command' });

let running;

async function runOnce() {
  const rssBefore = rssNow();
  const cpu0 = process.cpuUsage();
  const marks = [];
  let nextMark = 0.1;
  // The largest V8 heap and off-heap (external) memory seen at the end of each stored page.
  const peak = { heapTotal: 0, heapUsed: 0, external: 0 };
  const sampleMemory = () => {
    const memory = process.memoryUsage();
    peak.heapTotal = Math.max(peak.heapTotal, memory.heapTotal);
    peak.heapUsed = Math.max(peak.heapUsed, memory.heapUsed);
    peak.external = Math.max(peak.external, memory.external);
  };
  const t0 = performance.now();
  const sync = await plugin.syncStatistics({
    onProgress: (done, total) => {
      sampleMemory();
      if (total > 0 && done / total >= nextMark) {
        marks.push(`${Math.round((done / total) * 100)}% ${((performance.now() - t0) / 1000).toFixed(1)}s ${rssNow()}MB`);
        while (done / total >= nextMark) nextMark += 0.1;
      }
    },
  });
  const t1 = performance.now();
  const cpu1 = process.cpuUsage(cpu0);
  const enforce = await plugin.enforceLimits();
  const t2 = performance.now();
  const cpu2 = process.cpuUsage(cpu0);
  if (marks.length > 0) log(`sync progress: ${marks.join(', ')}`);

  // Read back on a connection of its own, as an operator's sqlite3 would: the running plugin hands out no database.
  const db = new Database(config.databaseFile, { readonly: true });
  const one = (sql) => db.prepare(sql).get().n ?? 0;
  const actions = db.prepare('SELECT action, COUNT(*) AS n FROM enforcement_actions GROUP BY action').all();
  print({
    sync_seconds: (t1 - t0) / 1000,
    enforce_seconds: (t2 - t1) / 1000,
    sync,
    enforce,
    cpu_sync_seconds: (cpu1.user + cpu1.system) / 1e6,
    cpu_enforce_seconds: (cpu2.user + cpu2.system - cpu1.user - cpu1.system) / 1e6,
    rss_before_mb: rssBefore,
    rss_after_mb: rssNow(),
    peak_heap_total_mb: Math.round(peak.heapTotal / 1048576),
    peak_heap_used_mb: Math.round(peak.heapUsed / 1048576),
    peak_external_mb: Math.round(peak.external / 1048576),
    check: {
      latest_ok: one('SELECT COUNT(*) AS n FROM stats_latest WHERE failed_at IS NULL AND taken_at > 0'),
      latest_failed: one('SELECT COUNT(*) AS n FROM stats_latest WHERE failed_at IS NOT NULL'),
      usage_hits: one('SELECT SUM(hits) AS n FROM usage'),
      paused_by_enforcement: one("SELECT COUNT(*) AS n FROM websites WHERE paused_by = 'enforcement'"),
      actions: Object.fromEntries(actions.map((row) => [row.action, row.n])),
    },
  });
  db.close();
}

print({ pid: process.pid, rss_mb: rssNow() });
await commandsFromParent((command) => {
  if (command.run && !running) {
    running = runOnce().catch((error) => {
      log(`run failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      print({ error: error instanceof Error ? error.message : String(error) });
    });
  }
});
await running;
await plugin.close();
process.exit(0);
