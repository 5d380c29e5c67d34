/**
 * The Settings page's "All servers" / "This server only" choice of the limits and plan forms
 * (docs/fleet.md "Fleet settings"), shown when the server has the fleet database
 * (WPP_FLEET_DATABASE_URL). All servers: the change is stored in the fleet database and every
 * server applies it, this one first; refused, with nothing changed anywhere, while the
 * database cannot be reached. This server only: stored here as before, until a later change
 * for all servers sets the same value.
 */
import type { Request } from 'express';
import type { FleetSettings, FleetSettingsSubject } from '../../core/fleet-settings.js';
import type { Translate } from '../../core/i18n.js';

/** Which servers a form's change is for: the form's `servers` field. */
export type ServersChoice = 'all' | 'this';

/**
 * All servers unless the form says this server only: an admin who set up a fleet database did
 * so to set plans and limits once, and a plan that differs by server is what surprises (an
 * account moved to another server would find other limits). Without a fleet database, this server.
 */
export function serversChoice(fleet: FleetSettings | undefined, req: Request): ServersChoice {
  if (!fleet) return 'this';
  const body = (req.body ?? {}) as Record<string, unknown>;
  return body.servers === 'this' ? 'this' : 'all';
}

/** What the page shows about the choice: absent without a fleet database. */
export const fleetChoiceView = (fleet: FleetSettings | undefined) =>
  fleet ? { fleet: { reachable: fleet.reachable(), serverName: fleet.identity.name } } : {};

/** Shares a change with every server; the form-wide problem to show when it cannot (nothing changed), else null. */
export async function shareFromPage(
  fleet: FleetSettings,
  subject: FleetSettingsSubject,
  actor: string,
  t: Translate,
): Promise<string | null> {
  if (!fleet.reachable()) return t('fleetSettings.refused');
  try {
    await fleet.share(subject, actor);
    return null;
  } catch {
    return t('fleetSettings.refused');
  }
}
