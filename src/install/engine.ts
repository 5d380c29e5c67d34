/**
 * Carries out an install plan, and undoes one from its record. Install is idempotent: a file
 * with the wanted content and mode is left alone, a registration still in place is not made
 * again, so a second install changes nothing. What an older install made and the plan no
 * longer has (an upgrade) is removed. Uninstall removes only what the record lists and no
 * other installed panel still uses, and keeps the data unless asked to purge it.
 */
import { createHash } from 'node:crypto';
import { chmod, chown, lchown, mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Artefact, DirectoryArtefact, FileArtefact, InstallPlan, RegistrationArtefact, RegistrationRecord } from './artefacts.js';
import { readAllInstallRecords, readInstallRecord, removeInstallRecord, writeInstallRecord, type InstallRecord } from './install-record.js';
import { LAYOUT, recordPath } from './layout.js';
import { installedFingerprint, placeRelease } from './release.js';
import { lookupServiceUser } from './service-user.js';
import { serverTrust, type SourceTrustDeps } from './source-trust.js';
import type { ToolRunner } from './tools.js';

export interface EngineOptions {
  tools: ToolRunner;
  dryRun: boolean;
  /** One line per thing done (or that would be done). */
  print: (line: string) => void;
  version: string;
  now: () => Date;
  /** Who may own a release's copy (root on a server, the default). */
  trust?: SourceTrustDeps;
}

export interface InstallOutcome {
  /** Things created, changed, registered or removed; 0 on a second install. */
  changes: number;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

type Ids = { uid: number; gid: number };
/** The service user's ids once it exists; undefined in a dry run before it is created. */
type ServiceIds = Ids | undefined;

/** The owner and group an artefact wants, or undefined for "as root creates it" (not checked). */
function wantedIds(artefact: Pick<DirectoryArtefact, 'owner' | 'group'>, service: ServiceIds): Ids | undefined {
  if (service === undefined) return undefined;
  if (artefact.owner === 'service') return service;
  if (artefact.group === 'service') return { uid: 0, gid: service.gid };
  return undefined;
}

const ownedAs = (info: { uid: number; gid: number }, ids: Ids | undefined) => !ids || (info.uid === ids.uid && info.gid === ids.gid);

/**
 * Gives `dir` and everything in it to `ids`, links included as links (lchown never follows
 * one): an upgrade's data folder, which root owned before the service user. The old install
 * records are left to root (the install moves them out, see install-record.ts).
 */
async function chownTree(dir: string, ids: Ids, skip: string): Promise<void> {
  await lchown(dir, ids.uid, ids.gid);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (path === skip) continue;
    if (entry.isDirectory()) await chownTree(path, ids, skip);
    else await lchown(path, ids.uid, ids.gid);
  }
}

async function currentFile(path: string): Promise<{ content: string; mode: number; uid: number; gid: number } | undefined> {
  try {
    const [content, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    return { content, mode: info.mode & 0o777, uid: info.uid, gid: info.gid };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Written beside the target and renamed over it, so a panel never runs half a script. */
async function writeAtomically(path: string, content: string, mode: number, ids: Ids | undefined): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o755 });
  const temp = `${path}.wpp-tmp-${process.pid}`;
  await writeFile(temp, content, { mode });
  await chmod(temp, mode);
  if (ids) await chown(temp, ids.uid, ids.gid);
  await rename(temp, path);
}

/** `reowned`: a kept file (the administrator's settings) whose mode or group only was set right. */
type FileOutcome = 'created' | 'updated' | 'unchanged' | 'kept' | 'reowned';

async function placeFile(file: FileArtefact, options: EngineOptions, service: ServiceIds): Promise<FileOutcome> {
  if (file.content.includes('\r')) throw new Error(`${file.path}: installed files use LF line endings only`);
  const target = options.tools.at(file.path);
  const current = await currentFile(target);
  const ids = wantedIds(file, service);
  const mode = file.mode & 0o777;
  if (current && file.keep) {
    // The content is the administrator's; its mode and group are the installation's (the service must read it).
    if (current.mode === mode && ownedAs(current, ids)) return 'kept';
    if (!options.dryRun) {
      await chmod(target, mode);
      if (ids) await chown(target, ids.uid, ids.gid);
    }
    return 'reowned';
  }
  if (current && current.content === file.content && current.mode === mode && ownedAs(current, ids)) return 'unchanged';
  if (!options.dryRun) await writeAtomically(target, file.content, file.mode, ids);
  return current ? 'updated' : 'created';
}

async function placeDirectory(
  directory: DirectoryArtefact,
  options: EngineOptions,
  service: ServiceIds,
): Promise<'created' | 'unchanged' | 'updated'> {
  const { path, mode, shared = false } = directory;
  const target = options.tools.at(path);
  const info = await stat(target).catch(() => undefined);
  const ids = wantedIds(directory, service);
  if (info && (shared || (info.mode & 0o777) === mode) && ownedAs(info, ids)) return 'unchanged';
  if (!options.dryRun) {
    await mkdir(target, { recursive: true, mode });
    await chmod(target, mode);
    if (ids && directory.owner === 'service') await chownTree(target, ids, options.tools.at(LAYOUT.legacyRecordDir));
    else if (ids) await chown(target, ids.uid, ids.gid);
  }
  return info ? 'updated' : 'created';
}

async function placeRegistration(
  registration: RegistrationArtefact,
  previous: RegistrationRecord | undefined,
  options: EngineOptions,
): Promise<{ record: RegistrationRecord | undefined; changed: boolean }> {
  if (previous && previous.fingerprint === registration.fingerprint && (await registration.isInPlace(options.tools, previous))) {
    options.print(`unchanged  ${registration.describe}`);
    return { record: previous, changed: false };
  }
  if (options.dryRun) {
    options.print(`would register  ${registration.describe}`);
    return { record: previous, changed: true };
  }
  const record: RegistrationRecord = {
    key: registration.key,
    describe: registration.describe,
    fingerprint: registration.fingerprint,
    ...(await registration.register(options.tools)),
  };
  options.print(`${previous ? 're-registered' : 'registered'}  ${registration.describe}`);
  return { record, changed: true };
}

/** Runs a recorded undo call; a tool that is gone (the panel was removed) is reported, not fatal. */
async function runUndo(calls: RegistrationRecord['undo'], options: EngineOptions): Promise<void> {
  for (const call of calls) {
    if (options.dryRun) {
      options.print(`would run  ${call.tool} ${call.args.join(' ')}`);
      continue;
    }
    if (!(await options.tools.exists(call.tool))) {
      options.print(`skipped  ${call.tool} ${call.args[0] ?? ''}: the tool is gone`);
      continue;
    }
    const result = await options.tools.run(call.tool, call.args);
    options.print(`${result.code === 0 ? 'ran' : `FAILED (exit ${result.code})`}  ${call.tool} ${call.args.join(' ')}`);
  }
}

type PlacedRecord = Pick<InstallRecord, 'files' | 'directories'> & { releases: NonNullable<InstallRecord['releases']> };

const wording = { dry: { created: 'would create', updated: 'would update' }, real: { created: 'created', updated: 'updated' } } as const;

async function placeFilesAndFolders(
  artefacts: Artefact[],
  options: EngineOptions,
  previous: InstallRecord | undefined,
  service: ServiceIds,
): Promise<{ record: PlacedRecord; changes: number }> {
  const words = options.dryRun ? wording.dry : wording.real;
  const record: PlacedRecord = { files: [], directories: [], releases: [] };
  let changes = 0;
  for (const artefact of artefacts) {
    if (artefact.kind === 'directory') {
      const outcome = await placeDirectory(artefact, options, service);
      options.print(`${outcome === 'unchanged' ? 'unchanged' : words[outcome]}  ${artefact.path}/ (${octal(artefact.mode)})`);
      if (outcome !== 'unchanged') changes++;
      // A shared folder that was there before wpp (another vendor's scripts/custom/<hook>/) is not
      // wpp's to remove, even once it is empty: only one this installation created goes in the record.
      const ours = !artefact.shared || outcome === 'created' || previous?.directories.some((d) => d.path === artefact.path);
      if (ours) record.directories.push({ path: artefact.path, mode: artefact.mode, ...(artefact.data ? { data: true } : {}) });
    } else if (artefact.kind === 'file') {
      const outcome = await placeFile(artefact, options, service);
      const said = outcome === 'kept' || outcome === 'reowned' ? 'kept' : outcome === 'unchanged' ? 'unchanged' : words[outcome];
      const why =
        outcome === 'kept'
          ? ': already there, left as it is'
          : outcome === 'reowned'
            ? `: already there, its settings left as they are; mode and group ${options.dryRun ? 'would be ' : ''}set for the service`
            : '';
      options.print(`${said}  ${artefact.path} (${octal(artefact.mode)})${why}`);
      if (outcome === 'created' || outcome === 'updated' || outcome === 'reowned') changes++;
      // A kept file is the administrator's: what this plan would have written (other --provider-url)
      // says nothing about it, so its record entry stays as it was and a second install rewrites nothing.
      const keptEntry = outcome === 'kept' || outcome === 'reowned' ? previous?.files.find((f) => f.path === artefact.path) : undefined;
      record.files.push({
        path: artefact.path,
        mode: artefact.mode,
        sha256: keptEntry?.sha256 ?? sha256(artefact.content),
        ...(artefact.keep ? { keep: true } : {}),
      });
    } else if (artefact.kind === 'release') {
      const there = (await installedFingerprint(options.tools.at(artefact.path))) === artefact.origin.fingerprint;
      if (there) options.print(`unchanged  ${artefact.path}/ (wpp ${artefact.version})`);
      else if (options.dryRun) options.print(`would copy  ${artefact.origin.from} to ${artefact.path}/ (wpp ${artefact.version})`);
      else {
        await placeRelease(artefact.origin, options.tools.at(artefact.path), {
          trust: options.trust ?? serverTrust(),
          nodePath: process.execPath,
        });
        options.print(`copied  ${artefact.origin.from} to ${artefact.path}/ (wpp ${artefact.version}, checked against its SHA256SUMS)`);
      }
      if (!there) changes++;
      record.releases.push({ path: artefact.path, version: artefact.version, fingerprint: artefact.origin.fingerprint });
    }
  }
  return { record, changes };
}

/** The service user's ids when the plan gives it anything; undefined before it exists in a dry run. */
async function serviceIdsFor(plan: InstallPlan, options: EngineOptions): Promise<ServiceIds> {
  const wants = plan.artefacts.some(
    (a) => (a.kind === 'directory' && a.owner === 'service') || ((a.kind === 'file' || a.kind === 'directory') && a.group === 'service'),
  );
  if (!wants) return undefined;
  const user = await lookupServiceUser(options.tools);
  if (!user && !options.dryRun) throw new Error(`the system user ${LAYOUT.serviceUser} does not exist after its registration`);
  return user && { uid: user.uid, gid: user.gid };
}

/** `wpp install <panel>`: puts the plan in place and writes its record. */
export async function install(plan: InstallPlan, options: EngineOptions): Promise<InstallOutcome> {
  for (const need of plan.requires ?? []) {
    if (!(await stat(options.tools.at(need.path)).catch(() => undefined))) throw new Error(need.missing);
  }
  await plan.preflight?.(options.tools);
  const previous = await readInstallRecord(options.tools, plan.panel);
  let changes = 0;
  const registrations: RegistrationRecord[] = [];
  const planned = plan.artefacts.filter((a): a is RegistrationArtefact => a.kind === 'registration');
  // The service user first (the data folder and the settings are given to it), then the files, then the rest.
  const ordered = [...planned.filter((r) => r.first), null, ...planned.filter((r) => !r.first)];
  let placed: Awaited<ReturnType<typeof placeFilesAndFolders>> = { record: { files: [], directories: [], releases: [] }, changes: 0 };
  for (const artefact of ordered) {
    if (artefact === null) {
      placed = await placeFilesAndFolders(plan.artefacts, options, previous, await serviceIdsFor(plan, options));
      changes += placed.changes;
      continue;
    }
    const { record, changed } = await placeRegistration(
      artefact,
      previous?.registrations.find((r) => r.key === artefact.key),
      options,
    );
    if (record) registrations.push(record);
    if (changed) changes++;
  }
  if (previous) changes += await removeLeftovers(previous, { ...placed.record, registrations }, options);
  const { releases, ...placedRest } = placed.record;
  const now = options.now().toISOString();
  const record: InstallRecord = {
    panel: plan.panel,
    version: options.version,
    installedAt: previous?.installedAt ?? now,
    updatedAt: now,
    ...placedRest,
    // Absent for an installation from a checkout that never had a release: its record reads as before.
    ...(releases.length > 0 ? { releases } : {}),
    registrations,
  };
  const unchangedRecord = previous && JSON.stringify({ ...previous, updatedAt: '' }) === JSON.stringify({ ...record, updatedAt: '' });
  if (!options.dryRun && !unchangedRecord) {
    await writeInstallRecord(options.tools, record);
    options.print(`recorded  ${recordPath(plan.panel)}`);
  }
  return { changes };
}

/** What an older install made that this plan no longer has (an upgrade dropped it). */
async function removeLeftovers(
  previous: InstallRecord,
  current: PlacedRecord & Pick<InstallRecord, 'registrations'>,
  options: EngineOptions,
): Promise<number> {
  let changes = 0;
  for (const old of previous.registrations.filter((r) => !current.registrations.some((c) => c.key === r.key))) {
    await runUndo(old.undo, options);
    await runUndo(old.afterRemoval ?? [], options);
    changes++;
  }
  for (const old of previous.files.filter((f) => !f.keep && !current.files.some((c) => c.path === f.path))) {
    if (!options.dryRun) await rm(options.tools.at(old.path), { force: true });
    options.print(`${options.dryRun ? 'would remove' : 'removed'}  ${old.path} (no longer part of the installation)`);
    changes++;
  }
  return changes + (await keepPreviousRelease(previous, current, options));
}

/**
 * An upgrade (or a rollback, which installs the older one again) keeps the release the launcher
 * ran until now, for `wpp rollback`, and removes the one kept before it: one previous version.
 */
async function keepPreviousRelease(previous: InstallRecord, current: PlacedRecord, options: EngineOptions): Promise<number> {
  let changes = 0;
  const others = (await readAllInstallRecords(options.tools)).filter((r) => r.panel !== previous.panel);
  const inUseElsewhere = new Set(others.flatMap((r) => (r.releases ?? []).map((release) => release.path)));
  const gone = (previous.releases ?? []).filter((r) => !current.releases.some((c) => c.path === r.path));
  // The one the launcher ran until now; when the same version is installed again there is none, and the kept one stays.
  const replaced = gone.find((r) => !r.previous);
  for (const old of gone) {
    if (old === replaced || (old.previous && !replaced)) {
      current.releases.push({ ...old, previous: true });
      if (old === replaced) options.print(`kept  ${old.path}/ (wpp ${old.version}, the previous version: wpp rollback goes back to it)`);
      continue;
    }
    if (inUseElsewhere.has(old.path)) {
      options.print(`kept  ${old.path}/: another installed panel uses it`);
      continue;
    }
    if (!options.dryRun) await rm(options.tools.at(old.path), { recursive: true, force: true });
    options.print(
      `${options.dryRun ? 'would remove' : 'removed'}  ${old.path}/ (wpp ${old.version}, older than the version kept for rollback)`,
    );
    changes++;
  }
  return changes;
}

export interface UninstallOptions extends EngineOptions {
  /** Also remove the data (database, secrets, key file) and the administrator's settings. */
  purge: boolean;
}

/** `wpp uninstall <panel>`: undoes what the panel's record lists. */
export async function uninstall(panel: string, options: UninstallOptions): Promise<InstallOutcome> {
  const record = await readInstallRecord(options.tools, panel);
  if (!record) {
    options.print(`wpp is not installed for ${panel} (no ${recordPath(panel)}): nothing to remove`);
    return { changes: 0 };
  }
  const others = (await readAllInstallRecords(options.tools)).filter((r) => r.panel !== panel);
  const sharedKeys = new Set(others.flatMap((r) => r.registrations.map((g) => g.key)));
  const sharedPaths = new Set(others.flatMap((r) => [...r.files.map((f) => f.path), ...r.directories.map((d) => d.path)]));
  let changes = 0;
  const ours = [...record.registrations].reverse().filter((r) => !sharedKeys.has(r.key));
  for (const kept of ours.filter((r) => r.purgeOnly && !options.purge))
    options.print(`kept  ${kept.key}: it owns the data (--purge removes it)`);
  const registrations = ours.filter((r) => !r.purgeOnly || options.purge);
  for (const registration of registrations) {
    options.print(`${options.dryRun ? 'would unregister' : 'unregistering'}  ${registration.describe}`);
    await runUndo(registration.undo, options);
    changes++;
  }
  changes += await removeFiles(record, sharedPaths, options);
  changes += await removeReleases(record, others, options);
  for (const registration of registrations) await runUndo(registration.afterRemoval ?? [], options);
  changes += await removeDirectories(record, sharedPaths, options);
  if (!options.dryRun) await removeInstallRecord(options.tools, panel);
  if (!options.dryRun && others.length === 0) await rmdir(options.tools.at(LAYOUT.recordDir)).catch(() => undefined);
  options.print(`${options.dryRun ? 'would remove' : 'removed'}  ${recordPath(panel)}`);
  return { changes };
}

/** The releases copied under /usr/local/lib/wpp (the current and the kept one): code, never data. */
async function removeReleases(record: InstallRecord, others: InstallRecord[], options: UninstallOptions): Promise<number> {
  const inUseElsewhere = new Set(others.flatMap((r) => (r.releases ?? []).map((release) => release.path)));
  let changes = 0;
  for (const release of record.releases ?? []) {
    if (inUseElsewhere.has(release.path)) {
      options.print(`kept  ${release.path}/: another installed panel uses it`);
      continue;
    }
    if (!options.dryRun) await rm(options.tools.at(release.path), { recursive: true, force: true });
    options.print(`${options.dryRun ? 'would remove' : 'removed'}  ${release.path}/ (wpp ${release.version})`);
    changes++;
  }
  return changes;
}

async function removeFiles(record: InstallRecord, sharedPaths: Set<string>, options: UninstallOptions): Promise<number> {
  let changes = 0;
  for (const file of record.files) {
    if (sharedPaths.has(file.path)) {
      options.print(`kept  ${file.path}: another installed panel uses it`);
    } else if (file.keep && !options.purge) {
      options.print(`kept  ${file.path}: your settings (--purge removes it)`);
    } else {
      if (!options.dryRun) await rm(options.tools.at(file.path), { force: true });
      options.print(`${options.dryRun ? 'would remove' : 'removed'}  ${file.path}`);
      changes++;
    }
  }
  return changes;
}

/** Deepest first; a folder is removed only when empty, except the data with --purge. */
async function removeDirectories(record: InstallRecord, sharedPaths: Set<string>, options: UninstallOptions): Promise<number> {
  let changes = 0;
  const directories = [...record.directories].sort((a, b) => b.path.length - a.path.length);
  for (const directory of directories) {
    const target = options.tools.at(directory.path);
    if (sharedPaths.has(directory.path)) continue;
    if (directory.data && !options.purge) {
      options.print(`kept  ${directory.path}/ (--purge removes it)`);
      continue;
    }
    if (options.dryRun) {
      options.print(`would remove  ${directory.path}/${directory.data ? ' and everything in it' : ' if empty'}`);
      continue;
    }
    if (directory.data) await rm(target, { recursive: true, force: true });
    else if (
      await rmdir(target).then(
        () => false,
        (error: NodeJS.ErrnoException) => error.code !== 'ENOENT',
      )
    ) {
      options.print(`kept  ${directory.path}/: not empty (files that are not wpp's)`);
      continue;
    }
    options.print(`removed  ${directory.path}/`);
    changes++;
  }
  return changes;
}
