import express from 'express';
import type { IngestResult } from '../core/ingest.js';
import { AppError, isDatabaseBusy, type ErrorDetail } from '../errors.js';
import { finishEvent, type PanelEvent } from '../panel/events.js';
import { verifySignature } from '../core/signature.js';
import { createGroupCommit } from './group-commit.js';
import { readRawBody } from './raw-body.js';

export interface HooksRouteDeps {
  panelSecret: string;
  /** Stores the events (one transaction); may wait a little for a busy database, then throws. */
  ingest(events: PanelEvent[]): IngestResult[] | Promise<IngestResult[]>;
}

const MAX_EVENTS = 100;
const BODY_LIMIT = 256 * 1024;

function answer(res: express.Response, results: IngestResult[]): void {
  const created = results.some((result) => result.created);
  // Written directly rather than with res.json: express's send would also hash the body
  // for an ETag, which no client of a POST answer uses, on every event.
  const body = JSON.stringify({
    status: created ? 'accepted' : 'duplicate',
    events: results.map((r) => ({ id: r.eventId, type: r.type, job: r.jobId, created: r.created })),
  });
  res.writeHead(created ? 202 : 200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * `POST /hooks/events`: panels that speak HTTP, and hooks without access to the database.
 * The body is one event or an array of them, signed with the panel secret. All or nothing:
 * one bad event refuses the request and writes nothing.
 *
 * The checked events of the requests read in the same turn of the event loop are ingested
 * together in one transaction (see group-commit.ts): a commit cost as much as the rest of a
 * request. Each request is still answered only once its events are stored, with the answer
 * (or error) it would have got alone.
 */
export function createHooksRouter(deps: HooksRouteDeps): express.Router {
  const router = express.Router();
  const ingestTogether = createGroupCommit({
    commit: (events: PanelEvent[]) => deps.ingest(events),
    // A busy database refuses every request alike; trying each alone would only wait again, once per request.
    retryAlone: (error) => !isDatabaseBusy(error),
  });

  router.post('/hooks/events', readRawBody(BODY_LIMIT), (req, res, next) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!verifySignature(raw, req.get('x-wpp-signature'), deps.panelSecret)) {
      throw new AppError(
        'UNAUTHORIZED',
        'Missing or wrong X-WPP-Signature: send sha256=<hex HMAC-SHA256 of the raw body keyed with WPP_PANEL_SECRET>',
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new AppError('BAD_REQUEST', 'The body is not JSON: send one panel event object or an array of them');
    }
    const drafts = Array.isArray(body) ? body : [body];
    if (drafts.length === 0 || drafts.length > MAX_EVENTS) {
      throw new AppError('BAD_REQUEST', `Send between 1 and ${MAX_EVENTS} events per request`);
    }
    const events: PanelEvent[] = [];
    const details: ErrorDetail[] = [];
    drafts.forEach((draft, i) => {
      const prefix = Array.isArray(body) ? `[${i}].` : '';
      if (draft === null || typeof draft !== 'object' || Array.isArray(draft)) {
        details.push({ path: prefix.replace(/\.$/, '') || '(body)', message: 'must be an event object' });
        return;
      }
      const result = finishEvent('http', draft as Parameters<typeof finishEvent>[1]);
      if (result.success) events.push(result.data);
      else for (const issue of result.error.issues) details.push({ path: `${prefix}${issue.path.join('.')}`, message: issue.message });
    });
    if (details.length > 0) {
      // The message names the first few problems; `details` lists them (capped, with a count of the rest).
      const named = details.slice(0, 5).map((d) => `${d.path}: ${d.message}`.slice(0, 200));
      const more = details.length > named.length ? `; and ${details.length - named.length} more (see details)` : '';
      throw new AppError('VALIDATION_FAILED', `Invalid event: ${named.join('; ')}${more}`, details);
    }
    ingestTogether(events)
      .then((results) => answer(res, results))
      .catch(next);
  });
  return router;
}
