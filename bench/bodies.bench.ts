/**
 * What unwanted request bodies cost the server: `parallel` multipart POSTs of about 13 MB
 * each (199 fields of 65,000 bytes, the shape the security review sent) to /panel/nothing
 * without a session, all at once, against the compiled plugin (dist/) in its own process.
 * Nothing of a page request's body is read before its session is known, so each should get
 * its 401 without the server holding the body. Reports the answers, the time until all were
 * answered, and the plugin's resident and peak memory before and after. Loopback only,
 * `rounds` rounds of one burst each.
 *
 *   npm run bench -- bodies [--parallel 10] [--rounds 3]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildDist, peakRssMb, startChild } from './lib/proc.js';
import { median } from './lib/stats.js';
import { createTempDir, removeTempDir } from './lib/temp.js';

const VIEWS_CHILD = new URL('./lib/views-child.mjs', import.meta.url).pathname;
const BOUNDARY = '----wpp-bench-bodies';

/** 199 fields of 65,000 bytes: about 13 MB of form. */
function multipartBody(): Buffer {
  const field = (i: number) =>
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\n${'a'.repeat(65_000)}\r\n`);
  return Buffer.concat([...Array.from({ length: 199 }, (_, i) => field(i)), Buffer.from(`--${BOUNDARY}--\r\n`)]);
}

function rssMb(pid: number): number | null {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Math.round(Number(match[1]) / 1024) : null;
}

export async function run(args: string[]): Promise<Record<string, unknown>> {
  const { values } = parseArgs({
    args,
    options: { parallel: { type: 'string', default: '10' }, rounds: { type: 'string', default: '3' } },
  });
  const parallel = Number(values.parallel);
  const rounds = Number(values.rounds);
  buildDist();
  const body = multipartBody();
  const dir = createTempDir('wpp-bench-bodies-');
  const plugin = await startChild<{ url: string; pid: number }>(VIEWS_CHILD, [], {
    env: { WPP_DATA_DIR: dir, WPP_HOST: '127.0.0.1', WPP_PORT: '0', WPP_SANDBOX_PORT: '0', WPP_LOG_LEVEL: 'warn' },
    stderr: join(dir, 'plugin.log'),
  });
  try {
    const { url, pid } = plugin.ready;
    const rssBefore = rssMb(pid);
    const peakBefore = peakRssMb(pid);
    const times: number[] = [];
    const statuses = new Set<string>();
    for (let round = 0; round < rounds; round++) {
      const started = performance.now();
      const answers = await Promise.all(
        Array.from({ length: parallel }, () =>
          fetch(`${url}/panel/nothing`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body })
            .then(async (answer) => {
              await answer.body?.cancel();
              return String(answer.status);
            })
            // The server may close the connection while the client still sends: the answer came first.
            .catch((error: { cause?: { code?: string } }) => `closed (${error.cause?.code ?? 'error'})`),
        ),
      );
      times.push(performance.now() - started);
      for (const status of answers) statuses.add(status);
      console.error(`round ${round + 1}: ${answers.join(' ')} in ${Math.round(times[round] ?? 0)} ms, RSS ${rssMb(pid)} MB`);
    }
    return {
      parallel,
      body_mb: Math.round(body.length / 1e5) / 10,
      answers: [...statuses],
      burst_ms_median: Math.round(median(times)),
      rss_before_mb: rssBefore,
      rss_after_mb: rssMb(pid),
      peak_rss_before_mb: peakBefore,
      peak_rss_after_mb: peakRssMb(pid),
    };
  } finally {
    await plugin.stop();
    removeTempDir(dir);
  }
}
