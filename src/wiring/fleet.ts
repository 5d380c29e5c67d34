/**
 * The fleet database's link (docs/fleet.md), for the long-running server only: a hook or a
 * one-shot command never waits on the network, and one link per data folder is enough (what
 * the fleet decides, the server writes into its SQLite, which its other processes read).
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { ServerIdentity } from '../core/server-identity.js';
import { connectFleet, type FleetLink } from '../fleet/link.js';
import { wireFleetBudget, type FleetBudgetDeps } from './fleet-budget.js';
import type { Lifecycle } from '../lifecycle.js';

/**
 * The link when WPP_FLEET_DATABASE_URL is set and this process serves; undefined otherwise.
 * With the link comes the fleet budget's lease round (wiring/fleet-budget.ts), closed first.
 */
export function wireFleet(
  config: Pick<Config, 'fleet' | 'sync'>,
  deps: { serves: boolean; identity: ServerIdentity; logger: Logger; life: Lifecycle; now: () => number } & Omit<
    FleetBudgetDeps,
    'fleet' | 'logger' | 'life' | 'now'
  >,
): FleetLink | undefined {
  const { databaseUrl } = config.fleet;
  if (!databaseUrl || !deps.serves) return undefined;
  const link = connectFleet({ databaseUrl, identity: deps.identity, logger: deps.logger.child({ part: 'fleet' }), now: deps.now });
  deps.life.onClose(() => link.close());
  wireFleetBudget(config, { ...deps, fleet: link });
  return link;
}
