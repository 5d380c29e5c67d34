/**
 * The group commit of POST /hooks/events: requests read together are ingested together,
 * yet each gets exactly the answer it would have had alone, including when the shared
 * ingest fails because of one of them.
 */
import type { RequestListener } from 'node:http';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { IngestResult } from '../../src/core/ingest.js';
import { AppError } from '../../src/errors.js';
import type { PanelEvent } from '../../src/panel/events.js';
import { createApp } from '../../src/web/app.js';
import { signBody } from '../../src/core/signature.js';
import { withServer } from '../helpers/server.js';

const SECRET = 'unit-test-panel-secret-0123456789';

/**
 * Holds requests until `count` have arrived, then hands them all to `app` in one go: they
 * really arrive together, as under load, whatever the timing of the test's own connections.
 */
function arrivingTogether(count: number, app: RequestListener): RequestListener {
  const held: (() => void)[] = [];
  return (req, res) => {
    held.push(() => app(req, res));
    if (held.length === count) for (const release of held.splice(0)) release();
  };
}

/** The app on a real server; `together` requests at a time reach it at once. */
async function withHooksApp<T>(
  ingest: (events: PanelEvent[]) => IngestResult[],
  together: number,
  fn: (url: string) => Promise<T>,
): Promise<T> {
  const app = createApp({
    logger: pino({ level: 'silent' }),
    hooks: { panelSecret: SECRET, ingest },
    callbacks: { findWebsiteByTokenHash: () => null, signingKeyFor: () => null, enqueueRefresh: () => {} },
  });
  return withServer(arrivingTogether(together, app), (server) => fn(server.url));
}

const post = async (url: string, body: unknown) => {
  const raw = JSON.stringify(body);
  const response = await fetch(`${url}/hooks/events`, { method: 'POST', headers: { 'x-wpp-signature': signBody(raw, SECRET) }, body: raw });
  return { status: response.status, body: (await response.json()) as { events?: { id: string; job: number }[]; code?: string } };
};

const jobIdOf = (id: string) => Number.parseInt(id.replace(/\D/g, '').slice(0, 6) || '0', 10) + 1;

describe('POST /hooks/events group commit', () => {
  it('answers each of many concurrent requests with its own events, after one shared ingest', async () => {
    const calls: number[] = [];
    const ingest = (events: PanelEvent[]) => {
      calls.push(events.length);
      return events.map((e) => ({ eventId: e.id, type: e.type, jobId: jobIdOf(e.id), created: true }));
    };
    await withHooksApp(ingest, 20, async (url) => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => post(url, { id: `evt-${i}`, type: 'domain.added', account: 'a', domain: `d${i}.example` })),
      );
      answers.forEach((answer, i) => {
        expect(answer.status).toBe(202);
        expect(answer.body.events).toEqual([expect.objectContaining({ id: `evt-${i}`, job: jobIdOf(`evt-${i}`) })]);
      });
      expect(calls.reduce((a, b) => a + b, 0)).toBe(20);
      // Shared: one request per ingest would make 20 calls.
      expect(calls.length).toBeLessThan(20);
    });
  });

  it('when the shared ingest fails, ingests each request alone so only the culprit gets an error', async () => {
    const calls: number[] = [];
    const ingest = (events: PanelEvent[]) => {
      calls.push(events.length);
      if (events.some((e) => e.account === 'explode')) throw new AppError('CONFLICT', 'cannot take this one');
      return events.map((e) => ({ eventId: e.id, type: e.type, jobId: jobIdOf(e.id), created: true }));
    };
    await withHooksApp(ingest, 10, async (url) => {
      const bodies = Array.from({ length: 10 }, (_, i) => ({
        id: `e-${i}`,
        type: 'account.created',
        account: i === 4 ? 'explode' : `ok${i}`,
      }));
      const answers = await Promise.all(bodies.map((body) => post(url, body)));
      answers.forEach((answer, i) => {
        if (i === 4) expect(answer).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
        else expect(answer.status).toBe(202);
      });
      // The requests were ingested together first: the answers above come from the fall-back.
      expect(calls.some((count) => count > 1)).toBe(true);
    });
  });
});
