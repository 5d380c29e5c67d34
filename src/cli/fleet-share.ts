/**
 * `--fleet` of `wpp limits` and `wpp plans set` (docs/fleet.md "Fleet settings"): the change
 * is stored in the fleet database for every server, then applied here from it, as every other
 * server applies it within its next read. An operator's explicit command may wait on the
 * network (a hook never does): it opens the fleet database, writes, reads back and closes.
 * Without WPP_FLEET_DATABASE_URL, or with the database down, it fails and changes nothing.
 */
import type { Config } from '../config.js';
import { createFleetSettings, type FleetSettingsSubject } from '../core/fleet-settings.js';
import { serverIdentity } from '../core/server-identity.js';
import { createAccountsRepo } from '../db/accounts.repo.js';
import type { Db } from '../db/open.js';
import { createSettingsRepo } from '../db/settings.repo.js';
import { createStatisticsRepo } from '../db/statistics.repo.js';
import { openFleetDatabase } from '../fleet/database.js';
import { appendFleetSettingsChange, fleetSettingsChangesAfter } from '../fleet/settings.js';

/** Why a --fleet change cannot be made: printed as `wpp: ...`, exit code 1, nothing changed. */
export class FleetShareError extends Error {
  override readonly name = 'FleetShareError';
}

/** Shares one change with the fleet and applies it here; the line to print about it. */
export async function shareWithFleet(config: Config, db: Db, subject: FleetSettingsSubject, actor: string): Promise<string> {
  const url = config.fleet.databaseUrl;
  if (!url) throw new FleetShareError('--fleet needs the fleet database, and WPP_FLEET_DATABASE_URL is not set: nothing was changed');
  const fleet = await openFleetDatabase(url).catch((error: unknown) => {
    // The error names the variable and the URL without its password (fleet/database.ts).
    throw new FleetShareError(`${error instanceof Error ? error.message : String(error)}. Nothing was changed.`);
  });
  try {
    const accounts = createAccountsRepo(db);
    const settings = createFleetSettings({
      store: { stats: createStatisticsRepo(db), accounts, audit: createSettingsRepo(db) },
      identity: serverIdentity(accounts, config.server.name),
      append: (change) => appendFleetSettingsChange(fleet.pool, change),
      changesAfter: (version, limit) => fleetSettingsChangesAfter(fleet.pool, version, limit),
      reachable: () => true,
    });
    const shared = await settings.share(subject, actor).catch((error: unknown) => {
      throw new FleetShareError(
        `the fleet database refused the change: ${error instanceof Error ? error.message : String(error)}. Nothing was changed.`,
      );
    });
    return shared.appliedHere
      ? `Shared with every server as fleet change ${shared.version}; applied here, and on every other server within seconds.`
      : `Shared with every server as fleet change ${shared.version}; this server applies it at its next read of the fleet database.`;
  } finally {
    await fleet.close();
  }
}
