/**
 * "All servers" (docs/fleet.md "The fleet view"): the admin pages that read the fleet database,
 * present only when WPP_FLEET_DATABASE_URL is set. Each server's health, a search of every
 * server's websites, the fleet's enforcement log. The fleet database is another machine: while
 * it is down (or not reached yet) each page says so, and when it last answered, instead of failing.
 */
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { FLEET_STALE_MS, type FleetViewReader } from '../../core/fleet-view.js';
import type { Translate } from '../../core/i18n.js';
import { optional, pageField, pagerLinks, parseQuery } from './admin-query.js';
import { MIN_QUERY_LENGTH } from './admin-websites.routes.js';

export interface FleetPagesDeps {
  reader: FleetViewReader;
  /** When the fleet database last answered this server (its publisher or a page); null: not since it started. */
  lastAnsweredAt(): number | null;
  /** This server's id: its row is marked on the health page. */
  serverId: string;
  now: () => number;
}

const searchQuery = z.object({
  q: optional(z.string().trim().max(253, 'search text is at most 253 characters').toLowerCase()),
  page: pageField,
});
const logQuery = z.object({ page: pageField });

/** The page's data, or the fleet database's silence: the page then tells the admin so, never a 500. */
async function fromFleet<T>(read: () => Promise<T>): Promise<{ data: T; down: false } | { data: null; down: true }> {
  try {
    return { data: await read(), down: false };
  } catch {
    return { data: null, down: true };
  }
}

export function createFleetRouter(deps: FleetPagesDeps): express.Router {
  const router = express.Router();
  const render = (res: Response, view: string, titleKey: string, locals: Record<string, unknown>) => {
    const t = res.locals.t as Translate;
    res.render(view, {
      title: t(titleKey),
      fleetTab: view,
      lastAnsweredAt: deps.lastAnsweredAt(),
      thisServer: deps.serverId,
      ...locals,
    });
  };

  router.get('/fleet', async (_req: Request, res: Response) => {
    const read = await fromFleet(() => deps.reader.servers());
    const now = deps.now();
    render(res, 'admin/fleet', 'fleetView.servers.title', {
      down: read.down,
      servers: read.data ?? [],
      staleBefore: now - FLEET_STALE_MS,
      staleMinutes: FLEET_STALE_MS / 60_000,
    });
  });

  router.get('/fleet/websites', async (req: Request, res: Response) => {
    const query = parseQuery(searchQuery, req.query, res.locals.t as Translate);
    const tooShort = query.q !== undefined && query.q.length < MIN_QUERY_LENGTH;
    const q = tooShort ? undefined : query.q;
    // Without search text the page asks for it: listing every website of the fleet helps no one.
    const read = q ? await fromFleet(() => deps.reader.searchWebsites({ q, page: query.page ?? 1 })) : null;
    render(res, 'admin/fleet-websites', 'fleetView.websites.title', {
      query,
      tooShort,
      down: read?.down ?? false,
      result: read?.data ?? null,
      pager: read?.data ? pagerLinks('/admin/fleet/websites', { q }, read.data.page, read.data.pages) : null,
    });
  });

  router.get('/fleet/log', async (req: Request, res: Response) => {
    const query = parseQuery(logQuery, req.query, res.locals.t as Translate);
    const read = await fromFleet(() => deps.reader.enforcementLog({ page: query.page ?? 1 }));
    render(res, 'admin/fleet-log', 'fleetView.log.title', {
      down: read.down,
      result: read.data,
      pager: read.data ? pagerLinks('/admin/fleet/log', {}, read.data.page, read.data.pages) : null,
    });
  });
  return router;
}
