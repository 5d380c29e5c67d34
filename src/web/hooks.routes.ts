import express from 'express';
import type { IngestResult } from '../core/ingest.js';
import { AppError, type ErrorDetail } from '../errors.js';
import { finishEvent, type PanelEvent } from '../panel/events.js';
import { verifySignature } from './signature.js';

export interface HooksRouteDeps {
  panelSecret: string;
  ingest(events: PanelEvent[]): IngestResult[];
}

const MAX_EVENTS = 100;

/**
 * `POST /hooks/events`: panels that speak HTTP, and hooks without access to the database.
 * The body is one event or an array of them, signed with the panel secret. All or nothing:
 * one bad event refuses the request and writes nothing.
 */
export function createHooksRouter(deps: HooksRouteDeps): express.Router {
  const router = express.Router();
  router.post('/hooks/events', express.raw({ type: () => true, limit: '256kb' }), (req, res) => {
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
      throw new AppError('VALIDATION_FAILED', `Invalid event: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`, details);
    }
    const results = deps.ingest(events);
    const created = results.some((result) => result.created);
    res.status(created ? 202 : 200).json({
      status: created ? 'accepted' : 'duplicate',
      events: results.map((r) => ({ id: r.eventId, type: r.type, job: r.jobId, created: r.created })),
    });
  });
  return router;
}
