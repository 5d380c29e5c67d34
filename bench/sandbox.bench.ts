/**
 * How fast the sandbox answers the calls a statistics sync makes: GET
 * /v1.0/website/{domain}/statistics from a plain keep-alive client, `concurrency` at a time,
 * over `websites` websites. The median of `rounds` rounds is the ceiling any client of the
 * sandbox can reach on this machine.
 */
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { startSandbox } from '../src/sandbox/server.js';
import { createTempDir, removeTempDir } from './lib/temp.js';

function get(agent: Agent, url: URL, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { authorization: `Bearer ${key}`, accept: 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export async function run(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      websites: { type: 'string', default: '1000' },
      requests: { type: 'string', default: '20000' },
      concurrency: { type: 'string', default: '32' },
      rounds: { type: 'string', default: '3' },
    },
  });
  const websites = Number(values.websites);
  const total = Number(values.requests);
  const concurrency = Number(values.concurrency);
  const rounds = Number(values.rounds);
  const dataDir = createTempDir('wpp-bench-');
  const sandbox = await startSandbox({ dataDir, port: 0, rateLimitPerSecond: 0, dnsDelaySeconds: null, logger: pino({ level: 'silent' }) });
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    const domains = Array.from({ length: websites }, (_, i) => `site-${i}.bench.example`);
    for (let i = 0; i < domains.length; i += 200) {
      await Promise.all(
        domains.slice(i, i + 200).map((domain) =>
          fetch(`${sandbox.url}/v1.0/website`, {
            method: 'POST',
            headers: { authorization: `Bearer ${sandbox.partnerKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ domain, ip: ['203.0.113.10'] }),
          }).then((r) => r.body?.cancel()),
        ),
      );
    }
    const perSecond: number[] = [];
    const p99s: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const latencies: number[] = [];
      let next = 0;
      let failures = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < total) {
            const domain = domains[next++ % domains.length] ?? '';
            const t = performance.now();
            const status = await get(agent, new URL(`/v1.0/website/${domain}/statistics`, sandbox.url), sandbox.partnerKey);
            latencies.push(performance.now() - t);
            if (status !== 200) failures++;
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      if (failures > 0) throw new Error(`${failures} requests failed`);
      latencies.sort((a, b) => a - b);
      perSecond.push(total / seconds);
      p99s.push(latencies[Math.floor(latencies.length * 0.99)] ?? 0);
      console.error(`round ${round + 1}: ${Math.round(total / seconds)} requests/s`);
    }
    return {
      n: total,
      websites,
      concurrency,
      per_second: Math.round(median(perSecond)),
      p99_ms: Math.round(median(p99s) * 10) / 10,
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    };
  } finally {
    agent.destroy();
    await sandbox.close();
    removeTempDir(dataDir);
  }
}
