import type { Db } from '../db/open.js';
import type { SandboxStore } from './store.js';

/**
 * Optional background visitors for demos: every second, `hitsPerSecond` hits spread over
 * up to 50 random online websites, about 10% blocked and 5% challenged.
 */
export function startTrafficGenerator(db: Db, store: SandboxStore, hitsPerSecond: number, now: () => number): () => void {
  const pick = db.prepare<[], { domain: string }>("SELECT domain FROM websites WHERE status = 'online' ORDER BY RANDOM() LIMIT 50");
  const timer = setInterval(() => {
    const domains = pick.all().map((row) => row.domain);
    if (domains.length === 0) return;
    const share = Math.max(1, Math.round(hitsPerSecond / domains.length));
    store.transaction(() => {
      for (const domain of domains) {
        const hits = Math.max(1, Math.round(share * (0.5 + Math.random())));
        const blocked = Math.floor(hits * 0.1 * Math.random() * 2);
        const captcha = Math.min(hits - blocked, Math.floor(hits * 0.05 * Math.random() * 2));
        store.addTraffic(domain, now(), hits, blocked, captcha, blocked > 0 ? 'suspicious_behaviour' : '');
      }
    });
  }, 1000);
  timer.unref();
  return () => clearInterval(timer);
}
