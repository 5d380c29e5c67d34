/**
 * `wpp install plesk`: the Event Manager handlers that run `wpp hook plesk <event>`, and the
 * extension that gives customers and the administrator a menu entry into the pages.
 *
 * Handlers: `plesk bin event_handler --create -command CMD -priority 50 -user root -event E`.
 * Plesk does not document what --create prints, so the new handler's id is read from
 * `--list` (blocks of "Id N" ... "Command CMD" lines) by its command, which names the event
 * and so is ours alone; uninstall deletes exactly the recorded ids, and a handler anyone else
 * made (another command) is never touched.
 *
 * Extension: its files are written where Plesk keeps an installed extension's parts
 * (plib/, htdocs/ and sbin/ under /usr/local/psa/admin/.../modules/wpp), then registered with
 * `plesk bin extension --register wpp` and removed with `--uninstall wpp`. Every file is thus
 * in the install record like any other, and an upgrade rewrites them in place.
 */
import { stat } from 'node:fs/promises';
import type { Artefact, InstallPlan, RegistrationArtefact, ToolCall } from './artefacts.js';
import { commonArtefacts, commonNextSteps, fingerprintOf, shellQuote, type InstallSettings, type InstallSource } from './common.js';
import { shippedFile } from './shipped-file.js';
import { LAYOUT } from './layout.js';
import type { ToolRunner } from './tools.js';
import { PLESK_EVENTS, type PleskEvent } from '../panel/adapters/plesk.js';
import { PLESK_TOOL } from '../panel/plesk-owner.js';

export const PLESK_EXTENSION_ID = 'wpp';
const MODULES = '/usr/local/psa/admin';
export const PLESK_EXTENSION_DIRS = {
  plib: `${MODULES}/plib/modules/${PLESK_EXTENSION_ID}`,
  htdocs: `${MODULES}/htdocs/modules/${PLESK_EXTENSION_ID}`,
  sbin: `${MODULES}/sbin/modules/${PLESK_EXTENSION_ID}`,
} as const;

/** While this file exists Plesk refuses event handlers that run as root (a hardened server). */
export const ROOT_HANDLER_LOCK = '/usr/local/psa/var/root.event_handler.lock';

/** What wpp does with each event, to say what it could not do on a Plesk that does not offer it. */
const EVENT_PURPOSE: Record<PleskEvent, string> = {
  client_create: 'create customers',
  client_update: 'follow customer suspensions',
  client_delete: 'remove customers',
  client_status_update: 'follow customer suspensions',
  domain_create: 'protect new subscriptions',
  domain_delete: 'remove subscriptions',
  site_create: 'protect new domains',
  site_delete: 'remove domains',
  subdomain_create: 'add subdomains',
  subdomain_delete: 'remove subdomains',
  phys_hosting_create: 'protect new hosting',
  domain_status_update: 'follow subscription suspensions',
};

/**
 * The event names in `plesk bin event_handler --list-events` output. Plesk documents the
 * command, not its layout, so any word shaped like an event name counts: a name in a table
 * column or in a sentence is found alike.
 */
export function offeredEvents(listing: string): Set<string> {
  return new Set(listing.match(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g) ?? []);
}

/**
 * Before anything is written: a hardened server (ROOT_HANDLER_LOCK) refuses the root handlers
 * wpp needs, and a Plesk that does not offer an event would refuse its handler half-way.
 */
export async function pleskPreflight(tools: ToolRunner): Promise<void> {
  if (await stat(tools.at(ROOT_HANDLER_LOCK)).catch(() => undefined)) {
    throw new Error(
      [
        `Plesk refuses event handlers that run as root while ${ROOT_HANDLER_LOCK} exists (a hardened server),`,
        "and wpp's handlers run as root: they write wpp's root-owned database and ask Plesk about domains (plesk bin answers root only).",
        'To let wpp follow Plesk: remove that file and run wpp install plesk again.',
        'To keep the file: wpp cannot follow Plesk as it happens on this server; bring changes in with `wpp import plesk --apply`, as root, on a schedule.',
        'Nothing was installed.',
      ].join(' '),
    );
  }
  const offered = offeredEvents((await tools.check(PLESK_TOOL, ['bin', 'event_handler', '--list-events'])).stdout);
  const missing = PLESK_EVENTS.filter((event) => !offered.has(event));
  if (missing.length > 0) {
    throw new Error(
      `${missing
        .map(
          (event) =>
            `this Plesk does not offer the event ${event} (${PLESK_TOOL} bin event_handler --list-events): wpp cannot ${EVENT_PURPOSE[event]} on it`,
        )
        .join('; ')}. wpp's handlers were written for Plesk Obsidian 18.0; nothing was installed.`,
    );
  }
}

/** The command a handler runs; it names the event, so the command alone tells our handlers apart. */
export const pleskHandlerCommand = (event: string) => `${LAYOUT.launcher} hook plesk ${event}`;

export interface PleskHandler {
  id: string;
  command: string;
}

/** The handlers in `plesk bin event_handler --list` output: blocks whose lines are "Id N", "Name ...", "Priority ...", "User ...", "Command ...". */
export function parseHandlerList(listing: string): PleskHandler[] {
  const handlers: PleskHandler[] = [];
  let id: string | undefined;
  for (const line of listing.split(/\r?\n/)) {
    const idMatch = line.match(/^\s*Id\s+(\d+)\s*$/);
    if (idMatch) {
      id = idMatch[1];
      continue;
    }
    const command = line.match(/^\s*Command\s+(.*?)\s*$/);
    if (command && id !== undefined) {
      handlers.push({ id, command: command[1] ?? '' });
      id = undefined;
    }
  }
  return handlers;
}

const eventHandler = (args: string[]): ToolCall => ({ tool: PLESK_TOOL, args: ['bin', 'event_handler', ...args] });

async function listHandlers(tools: ToolRunner): Promise<PleskHandler[]> {
  return parseHandlerList((await tools.check(PLESK_TOOL, ['bin', 'event_handler', '--list'])).stdout);
}

export function pleskEventHandler(event: string): RegistrationArtefact {
  const command = pleskHandlerCommand(event);
  const create = ['--create', '-command', command, '-priority', '50', '-user', 'root', '-event', event];
  return {
    kind: 'registration',
    key: `plesk event handler ${event}`,
    describe: `Plesk event handler ${event} (${PLESK_TOOL} bin event_handler --create -event ${event})`,
    fingerprint: fingerprintOf(create),
    async register(tools) {
      // A handler of ours without a record (an interrupted install, a lost record) goes first: never two per event.
      for (const stale of (await listHandlers(tools)).filter((h) => h.command === command)) {
        await tools.check(PLESK_TOOL, ['bin', 'event_handler', '--delete', stale.id]);
      }
      await tools.check(PLESK_TOOL, ['bin', 'event_handler', ...create]);
      const ours = (await listHandlers(tools)).filter((h) => h.command === command);
      if (ours.length !== 1)
        throw new Error(`${PLESK_TOOL} bin event_handler --list shows ${ours.length} handlers running "${command}" after --create, not 1`);
      const ids = ours.map((h) => h.id);
      return {
        ids,
        undo: ids.map((id) => eventHandler(['--delete', id])),
      };
    },
    async isInPlace(tools, record) {
      const listed = await listHandlers(tools);
      return record.ids.length > 0 && record.ids.every((id) => listed.some((h) => h.id === id && h.command === command));
    },
  };
}

/** True when `plesk bin extension --list` names the extension (its id is a line's first word). */
export function extensionListed(listing: string, id: string): boolean {
  return listing.split(/\r?\n/).some((line) => line.trim().split(/\s+/)[0] === id);
}

export function pleskExtensionRegistration(): RegistrationArtefact {
  return {
    kind: 'registration',
    key: `plesk extension ${PLESK_EXTENSION_ID}`,
    describe: `Plesk extension ${PLESK_EXTENSION_ID} (${PLESK_TOOL} bin extension --register ${PLESK_EXTENSION_ID})`,
    fingerprint: fingerprintOf(PLESK_EXTENSION_ID, PLESK_EXTENSION_DIRS),
    async register(tools) {
      await tools.check(PLESK_TOOL, ['bin', 'extension', '--register', PLESK_EXTENSION_ID]);
      return {
        ids: [PLESK_EXTENSION_ID],
        undo: [{ tool: PLESK_TOOL, args: ['bin', 'extension', '--uninstall', PLESK_EXTENSION_ID] }],
      };
    },
    async isInPlace(tools) {
      return extensionListed((await tools.check(PLESK_TOOL, ['bin', 'extension', '--list'])).stdout, PLESK_EXTENSION_ID);
    },
  };
}

export function extensionArtefacts(source: InstallSource): Artefact[] {
  const values = { VERSION: source.version.replace(/[^0-9A-Za-z.+-]/g, ''), LAUNCHER: shellQuote(LAYOUT.launcher) };
  const file = (path: string, relative: string, mode: number): Artefact => ({
    kind: 'file',
    path,
    mode,
    content: shippedFile(`plesk/${relative}`, values),
  });
  const { plib, htdocs, sbin } = PLESK_EXTENSION_DIRS;
  return [
    { kind: 'directory', path: plib, mode: 0o755 },
    { kind: 'directory', path: `${plib}/controllers`, mode: 0o755 },
    { kind: 'directory', path: `${plib}/hooks`, mode: 0o755 },
    { kind: 'directory', path: htdocs, mode: 0o755 },
    { kind: 'directory', path: sbin, mode: 0o755 },
    file(`${plib}/meta.xml`, 'meta.xml', 0o644),
    file(`${plib}/controllers/IndexController.php`, 'plib/controllers/IndexController.php', 0o644),
    file(`${plib}/hooks/CustomButtons.php`, 'plib/hooks/CustomButtons.php', 0o644),
    // The service-plan permission Web Protection (protection per hosting package).
    file(`${plib}/hooks/Permissions.php`, 'plib/hooks/Permissions.php', 0o644),
    file(`${htdocs}/index.php`, 'htdocs/index.php', 0o644),
    // Run as root by Plesk for this extension only; root-owned, not writable by anyone else.
    file(`${sbin}/launch-url`, 'sbin/launch-url', 0o755),
  ];
}

export function pleskPlan(source: InstallSource, settings: InstallSettings): InstallPlan {
  return {
    panel: 'plesk',
    preflight: pleskPreflight,
    artefacts: [
      ...commonArtefacts(source, settings),
      ...extensionArtefacts(source),
      pleskExtensionRegistration(),
      ...PLESK_EVENTS.map((event) => pleskEventHandler(event)),
    ],
    nextSteps: [
      ...commonNextSteps,
      `Check the handlers: ${PLESK_TOOL} bin event_handler --list (one per event, running ${LAYOUT.launcher} hook plesk <event>)`,
      'Customers find "Web Protection" in their panel navigation, the administrator in the admin navigation.',
    ],
  };
}
