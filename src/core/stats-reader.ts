/**
 * Reading websites' statistics from the provider in pages, within a request budget: the
 * machinery the full sync (statistics.ts) and the adaptive tick (read-tick.ts) share.
 * Bounded concurrency and rate; a stop signal drops the reads not yet started and abandons
 * those in flight, and the page settles with what was read.
 */
import { setMaxListeners } from 'node:events';
import PQueue from 'p-queue';
import type { StatsRead } from '../db/statistics.repo.js';
import { describeError } from '../errors.js';
import type { ProviderClient } from '../provider/index.js';
import type { LimitResolver } from './limits.js';
import type { Counters } from './quota.js';

export interface ManagedWebsite {
  domain: string;
  account: string;
  /** Read with urgent tokens of the server's request budget (a website at risk: read-tick.ts). */
  urgent?: boolean;
}

export type PageResult = { reads: StatsRead[]; failures: { domain: string; error: string }[] };

export interface ReaderOptions {
  /** Statistics requests in flight at once. */
  concurrency: number;
  signal?: AbortSignal | undefined;
}

/** One website's read: its counters, its error, or null when the stop abandoned it. */
type ReadResult =
  | { ok: true; website: ManagedWebsite; counters: Counters; mitigationDetail: StatsRead['mitigationDetail'] }
  | { ok: false; website: ManagedWebsite; error: string }
  | null;

/** A page being read: its websites, how many of them are queued so far, and where each result goes. */
interface PageInRead {
  websites: ManagedWebsite[];
  queued: number;
  done: (result: ReadResult) => void;
}

export function createStatsReader(
  deps: { provider: ProviderClient; urgentProvider?: ProviderClient | undefined; now: () => number; limits: LimitResolver },
  options: ReaderOptions,
) {
  const { provider, now, limits } = deps;
  const urgentProvider = deps.urgentProvider ?? provider;
  // Concurrency only: the rate is the server's request budget, which the provider client takes
  // a token from before every request (docs/fleet.md, "One budget per server").
  const queue = new PQueue({ concurrency: options.concurrency });
  // Pages in the order they were asked for; the oldest one's websites are queued first.
  const pages: PageInRead[] = [];
  // One listener on the caller's signal. At the stop, reads not started yet are dropped from
  // the queue and the pages in flight settle at once; the reads in flight see the signal.
  // (A listener per queued read, p-queue's `signal` option, made every add and remove scan
  // thousands of listeners: a tenth of the sync's CPU.)
  const stop = new AbortController();
  // Each request in flight listens too (up to `concurrency` of them): not a leak.
  setMaxListeners(0, stop.signal);
  stop.signal.addEventListener(
    'abort',
    () => {
      queue.clear();
      pages.length = 0;
    },
    { once: true },
  );
  const onStop = () => stop.abort(options.signal?.reason);
  if (options.signal?.aborted) onStop();
  else options.signal?.addEventListener('abort', onStop, { once: true });

  /** Reads one website's counters; null when the stop abandoned the read (it is read again next time). */
  const readOne = async (website: ManagedWebsite): Promise<ReadResult> => {
    try {
      const client = website.urgent ? urgentProvider : provider;
      const s = await client.getWebsiteStatistics(website.domain, {}, { signal: stop.signal });
      const counters: Counters = { total: s.total, permitted: s.permitted, blocked: s.blocked, mitigated: s.mitigated };
      const detail = s.mitigatedDetail;
      const mitigationDetail = detail ? { captcha: detail.captcha, deny: detail.deny, byCategory: detail.byCategory } : null;
      return { ok: true as const, website, counters, mitigationDetail };
    } catch (error) {
      if (stop.signal.aborted) return null;
      return { ok: false as const, website, error: describeError(error) };
    }
  };

  /**
   * Keeps at most `concurrency` reads waiting in the queue, taken from the pages in order, and
   * queues the next one as each read ends. (Queuing a whole page at once kept a task, its
   * closures and promises per website alive for as long as the page took: long enough to be
   * promoted to V8's old generation, where they made most of the sync's peak memory.)
   */
  const pump = () => {
    while (!stop.signal.aborted && queue.size < options.concurrency) {
      const page = pages[0];
      if (!page) return;
      const website = page.websites[page.queued++];
      if (page.queued >= page.websites.length) pages.shift();
      if (!website) continue;
      void queue
        .add(() => readOne(website))
        .then((result) => {
          page.done(result);
          pump();
        });
    }
  };

  /**
   * Reads a page through the queue. It settles when every read has, or at the stop with the
   * reads done by then (the queue drops the others): one stop listener per page, not per read.
   */
  const fetchPage = (page: ManagedWebsite[]): Promise<PageResult> =>
    new Promise((resolve) => {
      const results: ReadResult[] = [];
      let pending = page.length;
      let settled = false;
      const settle = () => {
        if (settled) return;
        settled = true;
        stop.signal.removeEventListener('abort', settle);
        const done: PageResult = { reads: [], failures: [] };
        const at = now();
        for (const result of results) {
          if (!result) continue;
          if (result.ok) {
            done.reads.push({
              domain: result.website.domain,
              account: result.website.account,
              periodStart: limits.periodOf(result.website.account, at).start,
              counters: result.counters,
              mitigationDetail: result.mitigationDetail,
            });
          } else {
            done.failures.push({ domain: result.website.domain, error: result.error });
          }
        }
        resolve(done);
      };
      if (stop.signal.aborted || page.length === 0) return settle();
      stop.signal.addEventListener('abort', settle, { once: true });
      pages.push({
        websites: page,
        queued: 0,
        done: (result) => {
          if (settled) return;
          results.push(result);
          if (--pending === 0) settle();
        },
      });
      pump();
    });

  return {
    fetchPage,
    /** Whether the caller's signal stopped the reading. */
    get stopped() {
      return stop.signal.aborted;
    },
    /** Ends the reading: reads still queued are dropped. */
    close(): void {
      options.signal?.removeEventListener('abort', onStop);
      stop.abort();
    },
  };
}

export type StatsReader = ReturnType<typeof createStatsReader>;
