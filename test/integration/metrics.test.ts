/**
 * GET /metrics on a real plugin and sandbox: the series an operator alerts on, with values
 * that follow what happened (jobs, a sync, an enforcement pass, provider answers, refused
 * launches and sessions), and who may read them (a token when set, else loopback only).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withPlugin } from '../helpers/plugin.js';

type Plugin = Parameters<Parameters<typeof withPlugin>[0]>[0];

/** `name{a="x",b="y"} 3` lines, by `name{a="x",b="y"}` (labels as printed, prom-client sorts nothing: the test names them in order). */
function parseExposition(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(\S+?(?:\{.*\})?) (\S+)$/.exec(line);
    if (match) series.set(match[1] as string, Number(match[2]));
  }
  return series;
}

async function scrape(plugin: Plugin, headers: Record<string, string> = {}) {
  const response = await fetch(`${plugin.url}/metrics`, { headers });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

describe('GET /metrics', () => {
  it('counts jobs by state and kind, the sync, provider answers, enforcement actions and refused sign-ins', async () => {
    await withPlugin(async (plugin, sb) => {
      await plugin.postEvents([
        { type: 'domain.added', account: 'alice', domain: 'a1.example' },
        { type: 'domain.added', account: 'alice', domain: 'a2.example' },
      ]);
      await plugin.idle();
      plugin.stats.setLimits('global', '', { websiteHits: 1000 });
      await sb.control('POST', '/_sandbox/websites/a1.example/traffic', { hits: 1500 });
      const sync = await plugin.syncStatistics();
      expect(sync).toMatchObject({ read: 2, failed: 0 });
      expect(await plugin.enforceLimits()).toMatchObject({ paused: 1 });
      // A refused launch and a page without a session.
      expect((await fetch(`${plugin.url}/launch?token=not-a-token`)).status).toBe(401);
      expect((await fetch(`${plugin.url}/panel`, { redirect: 'manual' })).status).toBe(401);
      expect((await fetch(`${plugin.url}/launch`)).status).toBe(400);

      const answer = await scrape(plugin);
      expect(answer.status).toBe(200);
      expect(answer.type).toMatch(/^text\/plain; version=0\.0\.4/);
      const m = parseExposition(answer.text);
      const doneJobs = [...m].filter(([name]) => name.startsWith('wpp_jobs{state="done"')).reduce((sum, [, n]) => sum + n, 0);
      expect(doneJobs).toBeGreaterThanOrEqual(2);
      expect(m.get('wpp_jobs{state="done",kind="panel.event"}')).toBe(2);
      expect(m.get('wpp_jobs{state="pending",kind="panel.event"}') ?? 0).toBe(0);
      expect(m.get('wpp_sync_runs_total{outcome="ok"}')).toBe(1);
      expect(m.get('wpp_sync_duration_seconds_count')).toBe(1);
      expect(m.get('wpp_sync_duration_seconds_sum')).toBeCloseTo(sync.seconds, 3);
      expect(m.get('wpp_sync_read_failures_total')).toBe(0);
      expect(m.get('wpp_sync_last_success_timestamp_seconds')).toBeGreaterThan(Date.now() / 1000 - 60);
      expect(m.get('wpp_enforcement_actions_total{action="pause",reason="website_limit"}')).toBe(1);
      // Provisioning, two statistics reads (the lean path) and the pause all answered 2xx.
      const providerOk = [...m].filter(([name]) => /^wpp_provider_responses_total\{method="[A-Z]+",code="2\d\d"\}$/.test(name));
      expect(providerOk.reduce((sum, [, n]) => sum + n, 0)).toBeGreaterThanOrEqual(5);
      expect(m.get('wpp_provider_responses_total{method="PUT",code="200"}')).toBeGreaterThanOrEqual(1);
      // The request budget: the rate it learned from the provider's answers, nothing left waiting.
      expect(m.get('wpp_provider_budget_rate_per_second{source="learned"}')).toBeGreaterThan(0);
      expect(m.has('wpp_provider_budget_rate_per_second{source="fleet"}')).toBe(false);
      expect(m.get('wpp_provider_budget_waiting{priority="urgent"}')).toBe(0);
      expect(m.get('wpp_provider_budget_waiting{priority="background"}')).toBe(0);
      expect(m.get('wpp_launch_refusals_total{reason="malformed"}')).toBe(1);
      expect(m.get('wpp_launch_refusals_total{reason="missing"}')).toBe(1);
      expect(m.get('wpp_session_refusals_total{role="customer",reason="none"}')).toBe(1);
      // Node's process metrics on the same registry.
      expect(m.get('process_resident_memory_bytes')).toBeGreaterThan(0);
      expect(answer.text).toContain('# TYPE wpp_sync_duration_seconds histogram');
    });
  });

  it('counts the adaptive ticks: reads, spikes, and the backlog of websites due', async () => {
    await withPlugin(async (plugin) => {
      await plugin.postEvents([
        { type: 'domain.added', account: 'alice', domain: 'a1.example' },
        { type: 'domain.added', account: 'alice', domain: 'a2.example' },
      ]);
      await plugin.idle();
      // Both are due (never read) before the tick, neither after it.
      expect(parseExposition((await scrape(plugin)).text).get('wpp_sync_due_websites')).toBe(2);
      expect(await plugin.readDueStatistics()).toMatchObject({ read: 2, failed: 0 });
      const m = parseExposition((await scrape(plugin)).text);
      expect(m.get('wpp_sync_due_websites')).toBe(0);
      expect(m.get('wpp_sync_reads_total')).toBe(2);
      expect(m.get('wpp_attack_spikes_total')).toBe(0);
      expect(m.get('wpp_sync_runs_total{outcome="ok"}')).toBe(1);
      expect(m.get('wpp_sync_last_success_timestamp_seconds')).toBeGreaterThan(Date.now() / 1000 - 60);
    });
  });

  it('counts provider errors and failed reads when the provider is down', async () => {
    await withPlugin(async (plugin, sb) => {
      await plugin.postEvents([{ type: 'domain.added', account: 'alice', domain: 'a1.example' }]);
      await plugin.idle();
      await sb.control('POST', '/_sandbox/faults', { mode: 'down' });
      const sync = await plugin.syncStatistics();
      expect(sync).toMatchObject({ read: 0, failed: 1 });
      await sb.control('POST', '/_sandbox/faults', { mode: 'down', reset: true });
      await plugin.syncStatistics();
      const m = parseExposition((await scrape(plugin)).text);
      expect(m.get('wpp_sync_runs_total{outcome="failed"}')).toBe(2);
      expect(m.get('wpp_sync_read_failures_total')).toBe(2);
      expect(m.get('wpp_sync_last_success_timestamp_seconds')).toBe(0);
      expect(m.get('wpp_provider_responses_total{method="GET",code="503"}')).toBeGreaterThanOrEqual(1);
      const resets = m.get('wpp_provider_request_errors_total{method="GET",error="ECONNRESET"}') ?? 0;
      expect(resets).toBeGreaterThanOrEqual(1);

      // The client's other transport (got): each attempt counted, the retried one and the last (test plugins retry once).
      // `wpp import` lists the provider's users through it, and compares without them when it does not answer.
      const listing = join(plugin.dataDir, 'listing.json');
      writeFileSync(listing, JSON.stringify({ accounts: [] }));
      const compared = await plugin.importPanel({ file: listing }, { source: 'cli', apply: false, prune: false });
      expect(compared.comparison.providerChecked).toBe(false);
      const after = parseExposition((await scrape(plugin)).text);
      expect(after.get('wpp_provider_request_errors_total{method="GET",error="ECONNRESET"}')).toBe(resets + 2);
    });
  });

  it('requires the bearer token when WPP_METRICS_TOKEN is set, loopback or not', async () => {
    const token = 'metrics-token-0123456789abcdef';
    await withPlugin(
      async (plugin) => {
        const without = await scrape(plugin);
        expect(without.status).toBe(401);
        expect(JSON.parse(without.text)).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringContaining('WPP_METRICS_TOKEN') });
        expect(without.text).not.toContain(token);
        expect((await scrape(plugin, { authorization: `Bearer ${token}x` })).status).toBe(401);
        expect((await scrape(plugin, { authorization: token })).status).toBe(401);
        const withToken = await scrape(plugin, { authorization: `Bearer ${token}` });
        expect(withToken.status).toBe(200);
        expect(withToken.text).toContain('wpp_jobs');
      },
      { env: { WPP_METRICS_TOKEN: token } },
    );
  });

  it('answers a loopback client without a token, but not one a proxy forwarded', async () => {
    await withPlugin(async (plugin) => {
      expect((await scrape(plugin)).status).toBe(200);
      const forwarded = await scrape(plugin, { 'x-forwarded-for': '203.0.113.9' });
      expect(forwarded.status).toBe(403);
      expect(JSON.parse(forwarded.text)).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('set WPP_METRICS_TOKEN') });
    });
  });

  it('on an installed plugin (WPP_PANEL set) without WPP_METRICS_TOKEN: refused even from loopback, saying to set it', async () => {
    await withPlugin(
      async (plugin) => {
        const refused = await scrape(plugin);
        expect(refused.status).toBe(403);
        expect(JSON.parse(refused.text)).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('set WPP_METRICS_TOKEN') });
        expect(refused.text).not.toContain('wpp_jobs');
      },
      { env: { WPP_PANEL: 'cpanel', WPP_PANEL_CHECK_HOURS: '0' } },
    );
  });

  it('on an installed plugin with WPP_METRICS_TOKEN: answers the scraper that sends it', async () => {
    const token = 'metrics-token-0123456789abcdef';
    await withPlugin(
      async (plugin) => {
        expect((await scrape(plugin)).status).toBe(401);
        expect((await scrape(plugin, { authorization: `Bearer ${token}` })).status).toBe(200);
      },
      { env: { WPP_PANEL: 'systemd', WPP_METRICS_TOKEN: token } },
    );
  });
});
