import express from 'express';
import { hashToken } from '../core/identity.js';
import type { Website } from '../core/types.js';
import { AppError } from '../errors.js';
import { verifySignature } from '../core/signature.js';

export interface CallbackRouteDeps {
  findWebsiteByTokenHash(hash: string): Website | null;
  /** The owning account's provider API key, which signs the provider's callbacks. */
  signingKeyFor(website: Website): string | null;
  /** Queues a re-read of the website at the provider (may wait a little for a busy database, then throws). */
  enqueueRefresh(website: Website): void | Promise<void>;
}

/**
 * `POST /callbacks/website/:token`: the provider says a website's status changed. The token
 * names the website; a signature, when present, must verify with the owner's key; then the
 * plugin re-reads the website from the provider rather than believing the payload.
 */
export function createCallbacksRouter(deps: CallbackRouteDeps): express.Router {
  const router = express.Router();
  router.post('/callbacks/website/:token', express.raw({ type: () => true, limit: '64kb' }), async (req, res) => {
    const website = deps.findWebsiteByTokenHash(hashToken(String(req.params.token)));
    // A row written ahead of the provider's answer (core/provisioning.ts) is not known here until
    // provisioning has stored that answer: the callback is refused as before the row existed, and
    // the provider sends it again, so a re-read's window is not spent on the creation's own callback.
    if (!website || website.provisionedAt === null) throw new AppError('NOT_FOUND', 'Unknown callback token');
    const signature = req.get('x-signature');
    if (signature !== undefined) {
      const key = deps.signingKeyFor(website);
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (!key || !verifySignature(raw, signature, key)) throw new AppError('UNAUTHORIZED', 'The X-Signature does not match this website');
    }
    await deps.enqueueRefresh(website);
    res.status(202).json({ status: 'accepted', domain: website.domain });
  });
  return router;
}
