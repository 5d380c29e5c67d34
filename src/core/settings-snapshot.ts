/**
 * The domain page's settings without waiting on the provider: the last settings read are
 * stored (db/settings-snapshots.repo.ts) and shown at once, while a read behind the page
 * stores fresher ones for the next view. Only a website never read yet waits, and only a
 * little: a slow or absent provider then gets a note instead of holding the page. One read
 * per website at a time: views of the same page share the read in flight.
 */
import type { SettingsSnapshotsRepo } from '../db/settings-snapshots.repo.js';
import { AppError, type AppErrorCode } from '../errors.js';
import type { ProviderClient } from '../provider/index.js';
import { readWebsiteSettings, type SettingsView } from './website-settings.js';

export interface SettingsReaderDeps {
  provider: Pick<ProviderClient, 'lookupWebsite'>;
  snapshots: Pick<SettingsSnapshotsRepo, 'get' | 'saveRead' | 'saveFailure'>;
  now: () => number;
  /** How long a page waits for the first read of a website never read before; default 2 s. */
  firstReadWaitMs?: number;
}

/** What the page shows: the stored settings and when they were read, or why there are none yet. */
export type KnownSettings =
  | { view: SettingsView; readAt: number; failedAt: number | null; failure: string | null }
  | { view: null; reason: 'unreachable'; failure: string; code: AppErrorCode }
  | { view: null; reason: 'pending' };

const FIRST_READ_WAIT_MS = 2000;

export function createSettingsReader(deps: SettingsReaderDeps) {
  const inFlight = new Map<string, Promise<SettingsView>>();

  /** Reads the provider's settings now and stores the answer (or the failure); concurrent calls share one read. */
  function refresh(domain: string): Promise<SettingsView> {
    const running = inFlight.get(domain);
    if (running) return running;
    const read = readWebsiteSettings(deps.provider, domain)
      .then((view) => {
        deps.snapshots.saveRead(domain, view, deps.now());
        return view;
      })
      .catch((error: unknown) => {
        deps.snapshots.saveFailure(domain, deps.now(), error instanceof AppError ? error.message : 'the settings could not be read');
        throw error;
      })
      .finally(() => inFlight.delete(domain));
    inFlight.set(domain, read);
    return read;
  }

  /** The settings to show now; a read behind the page refreshes them for the next view. */
  async function known(domain: string): Promise<KnownSettings> {
    const stored = deps.snapshots.get(domain);
    const read = refresh(domain);
    if (stored) {
      // Its failure is recorded with the snapshot; nothing waits on it here.
      read.catch(() => {});
      return stored;
    }
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<'pending'>((resolve) => {
      timer = setTimeout(() => resolve('pending'), deps.firstReadWaitMs ?? FIRST_READ_WAIT_MS);
    });
    try {
      const first = await Promise.race([read, waited]);
      if (first === 'pending') {
        read.catch(() => {});
        return { view: null, reason: 'pending' };
      }
      return { view: first, readAt: deps.now(), failedAt: null, failure: null };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return { view: null, reason: 'unreachable', failure: error.message, code: error.code };
    } finally {
      clearTimeout(timer);
    }
  }

  return { known, refresh, store: (domain: string, view: SettingsView) => deps.snapshots.saveRead(domain, view, deps.now()) };
}

export type SettingsReader = ReturnType<typeof createSettingsReader>;
