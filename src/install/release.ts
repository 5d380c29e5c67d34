/**
 * A release (`npm run release`, unpacked anywhere) installs itself: `wpp install <panel>`
 * copies it into /usr/local/lib/wpp/<version>, root's and read-only to others, and the
 * launcher runs that copy, never the folder it was unpacked in (a download folder, a home).
 * The copy is checked against the release's SHA256SUMS before it is used. Upgrades keep the
 * version they replace for `wpp rollback`; older ones are removed.
 */
import { createHash } from 'node:crypto';
import { chmod, chown, copyFile, lstat, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { constants, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { LAYOUT } from './layout.js';
import { sourceTrustProblems, type SourceTrustDeps } from './source-trust.js';

export const RELEASE_MANIFEST = 'release.json';
export const RELEASE_SUMS = 'SHA256SUMS';

/** release.json, written by scripts/build-release.ts. */
export const releaseManifestSchema = z.object({
  name: z.literal('wpp'),
  version: z.string().regex(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/, 'a version like 1.2.3'),
  platform: z.string(),
  arch: z.string(),
  nodeModuleVersion: z.string(),
  builtWithNode: z.string(),
  commit: z.string().optional(),
});
export type ReleaseManifest = z.infer<typeof releaseManifestSchema>;

/** Where an unpacked release is and what it is: the source of the copy an install makes. */
export interface ReleaseOrigin {
  /** The unpacked release on this machine (never below --root: it is what runs the install). */
  from: string;
  manifest: ReleaseManifest;
  /** sha256 of its SHA256SUMS: the same release installed again is left alone. */
  fingerprint: string;
}

/** Where a version is installed on the target system. */
export const releaseFolder = (version: string) => `${LAYOUT.libDir}/${version}`;

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** The release `packageRoot` is, or undefined when it is a git checkout (development): no release.json there. */
export function readReleaseAt(packageRoot: string): ReleaseOrigin | undefined {
  const manifestFile = join(packageRoot, RELEASE_MANIFEST);
  if (!existsSync(manifestFile)) return undefined;
  const parsed = releaseManifestSchema.safeParse(JSON.parse(readFileSync(manifestFile, 'utf8')));
  if (!parsed.success) throw new Error(`${manifestFile} is not a wpp release manifest (${parsed.error.issues[0]?.message})`);
  const sums = readFileSync(join(packageRoot, RELEASE_SUMS));
  return { from: packageRoot, manifest: parsed.data, fingerprint: sha256(sums) };
}

/**
 * Refuses a release this Node.js cannot run: its better-sqlite3 was built for one platform and
 * one Node.js ABI, and the launcher runs the system's Node.js (the one running this install).
 */
export function checkReleaseRunsHere(release: ReleaseManifest, node: { platform: string; arch: string; modules: string }): void {
  if (release.platform !== node.platform || release.arch !== node.arch)
    throw new Error(
      `this release is for ${release.platform}-${release.arch}, this machine is ${node.platform}-${node.arch}: download the ${node.platform}-${node.arch} release. Nothing was written.`,
    );
  if (release.nodeModuleVersion !== node.modules)
    throw new Error(
      `this release was built with Node.js ${release.builtWithNode} (module version ${release.nodeModuleVersion}), and its SQLite module loads only in a Node.js of that major version; ` +
        `this Node.js has module version ${node.modules}. Install wpp with Node.js ${release.builtWithNode.split('.')[0]} (the launcher runs the Node.js that runs wpp install). Nothing was written.`,
    );
}

/** The fingerprint of the release installed at `folder`, or undefined when none is (complete) there. */
export async function installedFingerprint(folder: string): Promise<string | undefined> {
  const sums = await readFile(join(folder, RELEASE_SUMS)).catch(() => undefined);
  return sums && sha256(sums);
}

/** Every plain file below `dir`, relative; throws on a link or special file (a release has none). */
async function filesIn(dir: string, at = dir): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(at, { withFileTypes: true })) {
    const path = join(at, entry.name);
    if (entry.isDirectory()) found.push(...(await filesIn(dir, path)));
    else if (entry.isFile()) found.push(path.slice(dir.length + 1));
    else throw new Error(`${path} is a link or special file, which a wpp release never holds`);
  }
  return found;
}

/** Problems of a copied release against its SHA256SUMS: a file missing, changed, or not listed. */
export async function releaseSumProblems(folder: string): Promise<string[]> {
  const listed = new Map<string, string>();
  for (const line of (await readFile(join(folder, RELEASE_SUMS), 'utf8')).split('\n')) {
    if (!line) continue;
    const match = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
    if (!match?.[1] || !match[2])
      return [`${RELEASE_SUMS} has a line that is not "<sha256>  <file>": ${JSON.stringify(line.slice(0, 80))}`];
    listed.set(match[2], match[1]);
  }
  const problems: string[] = [];
  const present = new Set(await filesIn(folder));
  for (const [file, sum] of listed) {
    if (!present.has(file)) problems.push(`${file} is missing`);
    else if (sha256(await readFile(join(folder, file))) !== sum) problems.push(`${file} differs from ${RELEASE_SUMS}`);
  }
  for (const file of present) if (file !== RELEASE_SUMS && !listed.has(file)) problems.push(`${file} is not in ${RELEASE_SUMS}`);
  return problems;
}

/**
 * Copies the unpacked release file by file, as root's: folders 0755, files 0644 or 0755 when
 * they were executable, whatever the unpacking user's umask or owner was. The service user
 * reads them; only root may change them. A link or special file is refused (a release has none).
 */
async function copyAsRoots(from: string, to: string): Promise<void> {
  await mkdir(to, { mode: 0o755 });
  await chown(to, 0, 0);
  await chmod(to, 0o755);
  const entries = await readdir(from, { withFileTypes: true });
  // In parallel within a folder: a release has a few thousand small files.
  await Promise.all(
    entries.map(async (entry) => {
      const [source, target] = [join(from, entry.name), join(to, entry.name)];
      if (entry.isDirectory()) return copyAsRoots(source, target);
      if (!entry.isFile()) throw new Error(`${source} is a link or special file, which a wpp release never holds`);
      const executable = ((await lstat(source)).mode & 0o111) !== 0;
      await copyFile(source, target, constants.COPYFILE_EXCL);
      await chown(target, 0, 0);
      await chmod(target, executable ? 0o755 : 0o644);
    }),
  );
}

export interface PlaceReleaseOptions {
  /** The source-trust check of the copy (serverTrust on a server). */
  trust: SourceTrustDeps;
  nodePath: string;
}

/**
 * Copies the release to `target` (a path on this machine: below --root in tests) unless the
 * same release is there. The copy is made beside it, given to root, checked against its
 * SHA256SUMS and the source-trust rules, then renamed into place: a launcher never sees half a
 * release, and a failed copy leaves what was there.
 */
export async function placeRelease(origin: ReleaseOrigin, target: string, options: PlaceReleaseOptions): Promise<'unchanged' | 'copied'> {
  if ((await installedFingerprint(target)) === origin.fingerprint) return 'unchanged';
  const temp = `${target}.wpp-tmp-${process.pid}`;
  const old = `${target}.wpp-old-${process.pid}`;
  await rm(temp, { recursive: true, force: true });
  try {
    await copyAsRoots(origin.from, temp);
    const wrong = await releaseSumProblems(temp);
    if (wrong.length > 0)
      throw new Error(
        `the release in ${origin.from} does not match its ${RELEASE_SUMS} (${wrong.slice(0, 5).join('; ')}${wrong.length > 5 ? `; and ${wrong.length - 5} more` : ''}): unpack the tarball again after checking it with sha256sum -c. The release was not installed and the launcher was not changed.`,
      );
    const untrusted = sourceTrustProblems({ nodePath: options.nodePath, packageRoot: temp }, options.trust);
    if (untrusted.length > 0)
      throw new Error(
        `the copy of the release in ${temp} could be changed by others than root: ${untrusted.slice(0, 5).join('; ')}. The release was not installed and the launcher was not changed.`,
      );
    if (existsSync(target)) await rename(target, old);
    await rename(temp, target);
    await rm(old, { recursive: true, force: true });
    return 'copied';
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}
