/**
 * Fleet settings (issue 23, section 3; docs/fleet.md "Fleet settings"): a limits row or a plan
 * changed once for every server that shares the fleet database. The fleet database keeps the
 * changes in order (an append-only list, each with a version); each server's SQLite stays the
 * truth of its own work: the server reads the changes after the last version it applied and
 * applies each through the same code as a change made on it (applyLimitsChange, changePlan),
 * recorded in its settings_changes as `fleet:<who>@<server it was made on>`, and the version
 * with it in one transaction, so a restart neither misses a change nor applies one twice.
 *
 * A change carries only what was given (the values of a limits row, the parts of a plan): what
 * was not given keeps each server's own value. Every server applies every change in version
 * order, so the newest change of a value wins everywhere (last writer by version), and a later
 * local change stays local until the next fleet change of that value. The server a change is
 * made on applies it the same way, from the fleet database, never before it is stored there:
 * a change refused by a database that is down changes nothing anywhere.
 *
 * Storage comes in as functions: core never talks to PostgreSQL itself (src/fleet/settings.ts).
 */
import { z } from 'zod';
import type { AccountsRepo } from '../db/accounts.repo.js';
import type { SettingsRepo } from '../db/settings.repo.js';
import type { StatisticsRepo } from '../db/statistics.repo.js';
import { settingsPatchSchema, subdomainListSchema } from '../provider/spec.js';
import { applyLimitsChange, LIMIT_SCOPES, limitsWhat, type LimitsChange } from './limits-change.js';
import { monitorDaysSchema } from './monitoring.js';
import type { PlanChange } from './plan-change.js';
import { changePlan, checkedActor, planWhat } from './plugin-settings.js';
import type { ServerIdentity } from './server-identity.js';

/** A change as the fleet database stores it, before it has a version. */
export interface NewFleetSettingsChange {
  /** limits:<scope>:<subject> or plan:<name>, as settings_changes names it. */
  what: string;
  /** What was given: a limits row's values (null clears one) or a plan's parts. */
  change: Record<string, unknown>;
  /** Who made it: admin:<name>, cli:<os user>. */
  actor: string;
  serverId: string;
  serverName: string;
}

/** A stored change as read back; `change` is unchecked until parseFleetSettingsChange reads it. */
export interface FleetSettingsChange extends Omit<NewFleetSettingsChange, 'change'> {
  version: number;
  change: unknown;
  madeAt: number;
}

/** What a fleet change is about: a limits row or a plan, in the words of the local change it becomes. */
export type FleetSettingsSubject = { kind: 'limits'; change: LimitsChange } | { kind: 'plan'; change: PlanChange };

/** Where a server keeps the last version it applied (its SQLite facts). */
export const FLEET_SETTINGS_VERSION_FACT = 'fleet_settings_version';

/** How many changes one read asks for: a server back after a long time reads its backlog in steps. */
const BATCH = 500;

/** The change as stored in the fleet database: only what was given. */
export function fleetChangeOf(subject: FleetSettingsSubject): { what: string; change: Record<string, unknown> } {
  if (subject.kind === 'limits') {
    const { scope, subject: who, changes } = subject.change;
    return { what: limitsWhat(scope, who), change: { ...changes } };
  }
  const { name, ...parts } = subject.change;
  return { what: planWhat(name), change: Object.fromEntries(Object.entries(parts).filter(([, value]) => value !== undefined)) };
}

// What another server (of this version or another) wrote is read as carefully as any input.
const nullable = <T extends z.ZodType>(schema: T) => schema.nullable().optional();
const limitsValues = z.object({
  period: nullable(z.enum(['monthly', 'daily'])),
  anchorDay: nullable(z.number().int().min(1).max(28)),
  websiteHits: nullable(z.number().int().min(0)),
  accountHits: nullable(z.number().int().min(0)),
  domainLimit: nullable(z.number().int().min(0)),
  warningPercent: nullable(z.number().int().min(1).max(100)),
  exempt: nullable(z.boolean()),
});
const planParts = z.object({
  settings: settingsPatchSchema.optional(),
  subdomains: subdomainListSchema.optional(),
  monitorDays: monitorDaysSchema.optional(),
});
const LIMITS_WHAT = new RegExp(`^limits:(${LIMIT_SCOPES.join('|')}):(.*)$`, 's');
const PLAN_WHAT = /^plan:(.+)$/s;

/** The local change a stored one becomes, or null when it cannot be read (written by a newer or broken writer). */
export function parseFleetSettingsChange(row: Pick<FleetSettingsChange, 'what' | 'change'>): FleetSettingsSubject | null {
  const limits = LIMITS_WHAT.exec(row.what);
  if (limits) {
    const scope = LIMIT_SCOPES.find((known) => known === limits[1]);
    const values = limitsValues.safeParse(row.change);
    if (!scope || !values.success || (scope === 'global') !== (limits[2] === '')) return null;
    // Only the values the change gave: a key absent keeps the server's own value.
    const changes = Object.fromEntries(Object.entries(values.data).filter(([, value]) => value !== undefined));
    return { kind: 'limits', change: { scope, subject: limits[2] ?? '', changes } };
  }
  const plan = PLAN_WHAT.exec(row.what);
  const parts = plan ? planParts.safeParse(row.change) : undefined;
  if (!plan?.[1] || !parts?.success) return null;
  return { kind: 'plan', change: { name: plan[1], ...parts.data } };
}

/** settings_changes' actor of a fleet change: who made it and on which server, e.g. `fleet:admin:alice@web3`. */
export const fleetActor = (row: Pick<FleetSettingsChange, 'actor' | 'serverName'>): string =>
  // settings_changes keeps 200 characters of an actor: a long server name is cut, never the change.
  `fleet:${row.actor}@${row.serverName}`.slice(0, 200);

/** This server's repositories the changes are applied to (one database). */
export interface FleetSettingsStore {
  stats: StatisticsRepo;
  accounts: AccountsRepo;
  audit: SettingsRepo;
}

/** The last fleet version this server applied; 0: none yet. */
export const appliedFleetVersion = (store: Pick<FleetSettingsStore, 'accounts'>): number =>
  Number(store.accounts.getFact(FLEET_SETTINGS_VERSION_FACT) ?? 0);

/**
 * Applies changes in their order, each with the version in one transaction, skipping any this
 * server applied already (another process of the data folder may be applying the same ones).
 * A change that cannot be read is passed over (told to `onUnreadable`), not retried forever.
 * Returns how many were applied.
 */
export function applyFleetSettingsChanges(
  store: FleetSettingsStore,
  rows: readonly FleetSettingsChange[],
  onUnreadable: (row: FleetSettingsChange) => void = () => {},
): number {
  let applied = 0;
  for (const row of rows) {
    store.audit.writeTransaction(() => {
      if (row.version <= appliedFleetVersion(store)) return;
      const subject = parseFleetSettingsChange(row);
      if (subject === null) onUnreadable(row);
      else if (subject.kind === 'limits') applyLimitsChange(store, subject.change, fleetActor(row));
      else changePlan(store, subject.change, fleetActor(row));
      store.accounts.setFact(FLEET_SETTINGS_VERSION_FACT, String(row.version));
      applied += subject === null ? 0 : 1;
    });
  }
  return applied;
}

export interface FleetSettingsDeps {
  store: FleetSettingsStore;
  identity: ServerIdentity;
  /** Stores a change in the fleet database; resolves with its version. Rejects when the database cannot be reached. */
  append(change: NewFleetSettingsChange): Promise<number>;
  /** The stored changes after `version`, oldest first, at most `limit`. */
  changesAfter(version: number, limit: number): Promise<FleetSettingsChange[]>;
  onUnreadable?: (row: FleetSettingsChange) => void;
  /** Whether the fleet database answers now (as far as this server knows): the Settings page says so before a change is tried. */
  reachable: () => boolean;
}

/** Fleet settings on one server: share a change with every server, and apply what the others shared. */
export function createFleetSettings(deps: FleetSettingsDeps) {
  const pull = async (): Promise<number> => {
    let applied = 0;
    for (;;) {
      const rows = await deps.changesAfter(appliedFleetVersion(deps.store), BATCH);
      applied += applyFleetSettingsChanges(deps.store, rows, deps.onUnreadable);
      if (rows.length < BATCH) return applied;
    }
  };
  return {
    /** This server: who shares a change, as the page names it. */
    identity: deps.identity,
    reachable: deps.reachable,
    /** Applies the changes this server has not applied yet; rejects when the database cannot be reached. */
    pull,
    /**
     * Stores a change for every server, then applies it here (with any earlier one not applied
     * yet, in order). Rejects, having changed nothing, when the database cannot be reached.
     * `appliedHere` false: stored for every server, but the database went away before this
     * server read it back; it applies it at its next read, as every other server does.
     */
    async share(subject: FleetSettingsSubject, actor: string): Promise<{ version: number; appliedHere: boolean }> {
      const { serverId, name } = deps.identity;
      const version = await deps.append({ ...fleetChangeOf(subject), actor: checkedActor(actor), serverId, serverName: name });
      const appliedHere = await pull().then(
        () => true,
        () => false,
      );
      return { version, appliedHere };
    },
  };
}

export type FleetSettings = ReturnType<typeof createFleetSettings>;
