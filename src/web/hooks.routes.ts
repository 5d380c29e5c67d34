import express from 'express';
import type { IngestResult } from '../core/ingest.js';
import { AppError, isDatabaseBusy, type ErrorDetail } from '../errors.js';
import { finishEvent, type PanelEvent } from '../panel/events.js';
import { verifySignature } from '../core/signature.js';

export interface HooksRouteDeps {
  panelSecret: string;
  /** Stores the events (one transaction); may wait a little for a busy database, then throws. */
  ingest(events: PanelEvent[]): IngestResult[] | Promise<IngestResult[]>;
}

const MAX_EVENTS = 100;
const BODY_LIMIT = 256 * 1024;

const rawParser = express.raw({ type: () => true, limit: BODY_LIMIT });

/**
 * Reads the raw body into `req.body` as a Buffer, like `express.raw` with the same limit.
 * The common case (a plain body with a Content-Length within the limit) is read here
 * directly: body-parser's general machinery (type checks, decoders, async scopes) cost as
 * much as the whole ingest did. Everything else (compressed or chunked bodies, bodies over
 * the limit) still goes through `express.raw`, so those keep its exact answers.
 */
function readRawBody(req: express.Request, res: express.Response, next: express.NextFunction): void {
  const encoding = req.headers['content-encoding'];
  const declared = req.headers['content-length'];
  const length = declared === undefined ? Number.NaN : Number(declared);
  if (
    (encoding !== undefined && encoding.toLowerCase() !== 'identity') ||
    req.headers['transfer-encoding'] !== undefined ||
    !Number.isSafeInteger(length) ||
    length < 0 ||
    length > BODY_LIMIT
  ) {
    rawParser(req, res, next);
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  let finished = false;
  const finish = (error?: unknown) => {
    if (finished) return;
    finished = true;
    req.removeListener('data', onData);
    if (error) {
      next(error);
      return;
    }
    req.body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received);
    next();
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    // Node's parser never delivers more than Content-Length; checked anyway, as body-parser does.
    if (received > length) finish(Object.assign(new Error('request size did not match content length'), { status: 400, type: 'request.size.invalid' }));
    else chunks.push(chunk);
  };
  req.on('data', onData);
  req.once('end', () =>
    finish(received === length ? undefined : Object.assign(new Error('request size did not match content length'), { status: 400, type: 'request.size.invalid' })),
  );
  req.once('error', (error) => finish(Object.assign(error, { status: 400, type: 'request.aborted' })));
}

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

interface Accepted {
  events: PanelEvent[];
  res: express.Response;
  next: express.NextFunction;
}

/**
 * `POST /hooks/events`: panels that speak HTTP, and hooks without access to the database.
 * The body is one event or an array of them, signed with the panel secret. All or nothing:
 * one bad event refuses the request and writes nothing.
 *
 * Group commit: the checked events of every request read in the same turn of the event loop
 * are ingested together, in arrival order, in one call (one SQLite transaction), and each
 * request is answered once that transaction committed, so an answer still means the events
 * are stored. A commit cost as much as the rest of a request. Should the shared call fail,
 * nothing of it was written and every request is ingested again on its own, so each gets the
 * answer (or error) it would have got alone.
 */
export function createHooksRouter(deps: HooksRouteDeps): express.Router {
  const router = express.Router();
  let batch: Accepted[] = [];

  /** Answers, or hands an error to the error middleware; never throws (it runs from setImmediate). */
  function settle(request: Accepted, results: () => IngestResult[]): void {
    try {
      answer(request.res, results());
    } catch (error) {
      request.next(error);
    }
  }

  async function ingestAlone(request: Accepted): Promise<void> {
    try {
      const results = await deps.ingest(request.events);
      settle(request, () => results);
    } catch (error) {
      request.next(error);
    }
  }

  async function flush(): Promise<void> {
    const requests = batch;
    batch = [];
    if (requests.length === 1) return ingestAlone(requests[0] as Accepted);
    let results: IngestResult[];
    try {
      results = await deps.ingest(requests.flatMap((request) => request.events));
    } catch (error) {
      // A busy database refuses every request alike; trying each alone would only wait again, once per request.
      if (isDatabaseBusy(error)) for (const request of requests) request.next(error);
      else for (const request of requests) await ingestAlone(request);
      return;
    }
    let offset = 0;
    for (const request of requests) {
      const start = offset;
      offset += request.events.length;
      settle(request, () => results.slice(start, offset));
    }
  }

  router.post('/hooks/events', readRawBody, (req, res, next) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!verifySignature(raw, req.get('x-wpp-signature'), deps.panelSecret)) {
      throw new AppError('UNAUTHORIZED', 'Missing or wrong X-WPP-Signature: send sha256=<hex HMAC-SHA256 of the raw body keyed with WPP_PANEL_SECRET>');
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
    batch.push({ events, res, next });
    // setImmediate runs after this turn's I/O callbacks: every request read in it joins.
    if (batch.length === 1) setImmediate(() => void flush());
  });
  return router;
}
