/**
 * Fleet settings on the long-running server (docs/fleet.md "Fleet settings"): reads the fleet's
 * new settings changes every few seconds and applies them to this server's SQLite, where every
 * process of the data folder reads them; and gives the Settings page a way to share a change
 * with every server. While the fleet database is down the server goes on with what it applied
 * (said once in the log), and catches up in order once it is back.
 */
import type { Logger } from 'pino';
import { createFleetSettings, type FleetSettings, type FleetSettingsStore } from '../core/fleet-settings.js';
import { AppError, describeError } from '../errors.js';
import type { FleetLink } from '../fleet/link.js';
import { appendFleetSettingsChange, fleetSettingsChangesAfter } from '../fleet/settings.js';
import type { Lifecycle } from '../lifecycle.js';

/** How often the server asks for changes: a change made anywhere applies everywhere within about this. */
export const FLEET_SETTINGS_POLL_MS = 3_000;

/** The fleet database's pool, or UNAVAILABLE (nothing is tried) while the link has not reached it. */
function poolOf(link: FleetLink) {
  const pool = link.pool();
  if (!pool) throw new AppError('UNAVAILABLE', 'The fleet database cannot be reached now.');
  return pool;
}

export function wireFleetSettings(
  link: FleetLink,
  deps: { store: FleetSettingsStore; logger: Logger; life: Lifecycle; pollMs?: number },
): FleetSettings {
  const logger = deps.logger.child({ part: 'fleet-settings' });
  const settings = createFleetSettings({
    store: deps.store,
    identity: link.identity,
    append: async (change) => appendFleetSettingsChange(poolOf(link), change),
    changesAfter: async (version, limit) => fleetSettingsChangesAfter(poolOf(link), version, limit),
    onUnreadable: (row) => logger.warn({ version: row.version, what: row.what }, 'fleet settings change cannot be read: passed over'),
    reachable: () => link.pool() !== null,
  });
  startPolling(link, settings, { ...deps, logger });
  return settings;
}

/** The poll: one read at a time, the next `pollMs` after the last ended; stopped (and waited for) when the server closes. */
function startPolling(link: FleetLink, settings: FleetSettings, deps: { logger: Logger; life: Lifecycle; pollMs?: number }) {
  const pollMs = deps.pollMs ?? FLEET_SETTINGS_POLL_MS;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let failing = false;
  const tick = async () => {
    // Until the link is in there is nothing to ask; it says itself that the database is down.
    if (link.pool()) {
      try {
        const applied = await settings.pull();
        if (applied > 0) deps.logger.info({ applied }, 'fleet settings changes applied');
        if (failing) deps.logger.info('fleet settings read again');
        failing = false;
      } catch (error) {
        if (!failing)
          deps.logger.warn({ reason: describeError(error) }, 'fleet settings cannot be read now: this server keeps what it applied');
        failing = true;
      }
    }
    if (!stopped) timer = setTimeout(() => void (running = tick()), pollMs);
  };
  running = tick();
  deps.life.onClose(async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  });
}
