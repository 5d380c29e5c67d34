/**
 * What an installer puts on a server, described before anything is done, so that install,
 * `--dry-run`, a second install (no change) and uninstall all work from the same list.
 */
import type { ReleaseOrigin } from './release.js';
import type { ToolRunner } from './tools.js';

/** A file the installer owns. Content uses LF line endings only (panels run these scripts). */
export interface FileArtefact {
  kind: 'file';
  /** Absolute path on the target system. */
  path: string;
  content: string;
  mode: number;
  /**
   * The administrator's own file once written (the environment file with their provider key):
   * written only when absent, never overwritten, and left by uninstall unless --purge.
   */
  keep?: boolean;
  /** Root's file the service user may read: group set to the service user's (the settings, 0640). */
  group?: 'service';
}

/** A folder the installer creates. */
export interface DirectoryArtefact {
  kind: 'directory';
  path: string;
  mode: number;
  /** Holds the plugin's data (database, secrets) or the administrator's settings: left by uninstall unless --purge. */
  data?: boolean;
  /**
   * A folder other software puts its files in too (DirectAdmin's scripts/custom/<hook>/): created
   * when absent, its mode left as it is when present; like every folder that is not data,
   * uninstall removes it only when it is empty.
   */
  shared?: boolean;
  /** The service user's, with everything in it (an upgrade from root's ownership moves it all). */
  owner?: 'service';
  /** Root's, with the service user's group (the settings folder it must enter). */
  group?: 'service';
}

/**
 * A release copied whole to `path` (/usr/local/lib/wpp/<version>): the code the launcher runs.
 * Left alone when the same release is there; an upgrade keeps the one it replaces for `wpp rollback`.
 */
export interface ReleaseArtefact {
  kind: 'release';
  path: string;
  version: string;
  origin: ReleaseOrigin;
}

/** A call to a panel tool, recorded so uninstall can replay it exactly. */
export interface ToolCall {
  tool: string;
  args: string[];
}

/** What a registration left behind: the ids the panel gave it and the calls that undo it. */
export interface RegistrationRecord {
  key: string;
  describe: string;
  /** Changes when what would be registered changes (a new hook), so an upgrade registers again. */
  fingerprint: string;
  /** Ids the panel handed out (Plesk's event handler ids). */
  ids: string[];
  /** Run by uninstall, in order, before the files go. */
  undo: ToolCall[];
  /** Run by uninstall after the files are gone (systemctl daemon-reload). */
  afterRemoval?: ToolCall[];
  /** Undone only by an uninstall with --purge (the service user, which owns the kept data). */
  purgeOnly?: boolean;
}

/** What registering left: the record but for the artefact's own key, description and fingerprint. */
export type RegistrationOutcome = Omit<RegistrationRecord, 'key' | 'describe' | 'fingerprint'>;

/** Something registered with the panel or the system through their tools (hooks, menu entries, a service). */
export interface RegistrationArtefact {
  kind: 'registration';
  /** Stable name, unique within the installation: 'cpanel hooks', 'plesk event handler client_create'. */
  key: string;
  /** One line for the terminal, naming the tool: 'cPanel hooks (manage_hooks add script ...)'. */
  describe: string;
  fingerprint: string;
  /** Made before any file or folder is placed (the service user they are given to). */
  first?: boolean;
  /** Undone only by an uninstall with --purge. */
  purgeOnly?: boolean;
  /** Registers (safely when part of it is already there) and returns what uninstall needs; the engine records it under this artefact's key, description and fingerprint. */
  register(tools: ToolRunner): Promise<RegistrationOutcome>;
  /** Whether the recorded registration is still in place: a second install skips it; doctor reports it. */
  isInPlace(tools: ToolRunner, record: RegistrationRecord): Promise<boolean>;
}

export type Artefact = FileArtefact | DirectoryArtefact | ReleaseArtefact | RegistrationArtefact;

/** One panel's installation: what `wpp install <panel>` puts in place. */
export interface InstallPlan {
  panel: string;
  /** Paths that must be there before anything is written (the panel itself), with what to say when one is not. */
  requires?: { path: string; missing: string }[];
  /** Checks, before anything is written, that the panel can take what the plan registers; throws what to do when it cannot. */
  preflight?: (tools: ToolRunner) => Promise<void>;
  artefacts: Artefact[];
  /** Printed after a successful install: what the administrator does next. */
  nextSteps: string[];
}
