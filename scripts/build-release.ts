/**
 * `npm run release`: builds release/wpp-<version>-<platform>-<arch>.tar.gz, what a provider
 * unpacks and installs with `wpp install <panel>` (no clone, no compiler, no npm on the server).
 *
 * Inside: the compiled code (tsc, tsconfig.build.json), bin/, views/, locales/, migrations/, panels/,
 * plugin.json, package.json, release.json (what it was built for) and the production
 * dependencies copied from this checkout's node_modules with better-sqlite3's native module
 * already built: package-lock.json's non-dev entries, each checked against what is installed.
 * Copying takes seconds where `npm ci --omit=dev` would compile SQLite for minutes, and ships
 * the very module the tests ran with. SHA256SUMS inside lists every file (`sha256sum -c`
 * reads it); the tarball's own checksum is written beside it as <tarball>.sha256.
 *
 * The archive is made by the system's GNU tar with fixed arguments (sorted names, one mtime,
 * root:root, no group or other write) and gzipped by Node without a timestamp, so the same
 * commit on the same Node gives the same bytes. Before it is kept, it is unpacked into a
 * folder outside the checkout (where no node_modules above can stand in for a missing one)
 * and run: `wpp --version` and an SQLite database opened through the shipped native module.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  createReadStream,
  createWriteStream,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { spawn } from 'node:child_process';
import { createGzip } from 'node:zlib';
import { z } from 'zod';

const checkout = new URL('..', import.meta.url).pathname.replace(/\/$/, '');

/** What the release carries from the checkout besides the compiled code and node_modules. */
const SHIPPED = ['bin', 'views', 'locales', 'migrations', 'panels', 'plugin.json', 'package.json', 'README.md', 'CHANGELOG.md', 'docs'];

/**
 * Packages of which only part is needed at run time. better-sqlite3's SQLite sources (deps/,
 * src/) and build leftovers are 27 MB the loaded module never reads.
 */
const KEEP_ONLY: Record<string, string[]> = {
  'node_modules/better-sqlite3': ['package.json', 'LICENSE', 'README.md', 'lib', 'build/Release/better_sqlite3.node'],
};

/**
 * Files in packages that Node.js 20 never loads: TypeScript sources and typings (it does not run
 * .ts), source maps, the packages' READMEs and changelogs and their CI settings. A third of the
 * files, left out so an install copies and checks fewer. Licences stay.
 */
const NOT_RUN = /(\.[cm]?ts|\.map|\/(?!licen[cs]e)[^/]*\.md|\/\.github|\/\.eslintrc[^/]*|\/\.nycrc[^/]*|\/\.[^/]*\.yml)$/i;

const lockSchema = z.object({
  packages: z.record(
    z.string(),
    z.object({
      version: z.string().optional(),
      dev: z.boolean().optional(),
      devOptional: z.boolean().optional(),
      optional: z.boolean().optional(),
      link: z.boolean().optional(),
    }),
  ),
});

const log = (line: string) => console.log(line);

function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Every file below `dir`, relative to it, sorted (the order SHA256SUMS lists them in). */
function filesBelow(dir: string, at = dir): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(at, { withFileTypes: true })) {
    const path = join(at, entry.name);
    if (entry.isDirectory()) found.push(...filesBelow(dir, path));
    else if (entry.isFile()) found.push(relative(dir, path));
    else throw new Error(`${path}: a release holds plain files and folders only (found a link or special file)`);
  }
  return found.sort();
}

/** The production packages the lock file names, each present in node_modules with the locked version. */
function productionPackages(): string[] {
  const lock = lockSchema.parse(JSON.parse(readFileSync(join(checkout, 'package-lock.json'), 'utf8')));
  const packages: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    // devOptional: a dev dependency that a production package names only as an optional peer
    // (typescript, for i18next's types): nothing runs it, as `npm ci --omit=dev` would not install it.
    if (path === '' || entry.dev || entry.devOptional) continue;
    if (entry.link) throw new Error(`${path} is a linked package: a release cannot ship a link`);
    const manifest = join(checkout, path, 'package.json');
    if (!existsSync(manifest)) {
      // An optional dependency for another platform is not installed here, and not needed.
      if (entry.optional) continue;
      throw new Error(`${path} is in package-lock.json but not installed: run npm ci first`);
    }
    const installed = (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version;
    if (installed !== entry.version)
      throw new Error(`${path} is ${installed} in node_modules but ${entry.version} in package-lock.json: run npm ci first`);
    packages.push(path);
  }
  return packages;
}

/**
 * Copies a file or folder, leaving out what `keep` refuses. Plain copyFileSync per file: much
 * faster than fs.cpSync on a few thousand small files.
 */
function copyTree(from: string, to: string, keep: (path: string) => boolean = () => true): void {
  const info = lstatSync(from);
  if (!keep(from)) return;
  if (info.isDirectory()) {
    mkdirSync(to, { recursive: true });
    for (const name of readdirSync(from)) copyTree(join(from, name), join(to, name), keep);
  } else if (info.isFile()) {
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
  } else throw new Error(`${from}: a release holds plain files and folders only (found a link or special file)`);
}

/** A link in a shipped folder points outside the release (migrations/migrations does): left out, and said so. */
function notALink(source: string): boolean {
  if (!lstatSync(source).isSymbolicLink()) return true;
  log(`left out ${relative(checkout, source)}: a link, which a release does not carry`);
  return false;
}

function copyPackage(path: string, staging: string): void {
  const from = join(checkout, path);
  const to = join(staging, path);
  const only = KEEP_ONLY[path];
  if (only) {
    for (const part of only) if (existsSync(join(from, part))) copyTree(join(from, part), join(to, part));
    return;
  }
  // A nested node_modules holds packages of their own lock entries (copied, or dev, on their own).
  copyTree(from, to, (source) => relative(from, source).split('/')[0] !== 'node_modules' && !NOT_RUN.test(source.slice(from.length)));
}

function gitCommit(): { commit: string; time: number } | undefined {
  try {
    const [commit, time] = execFileSync('git', ['log', '-1', '--format=%H %ct'], { cwd: checkout, encoding: 'utf8' }).trim().split(' ');
    return commit && time ? { commit, time: Number(time) } : undefined;
  } catch {
    return undefined;
  }
}

async function tarGz(parent: string, name: string, output: string, mtime: number): Promise<void> {
  const tar = spawn(
    '/usr/bin/tar',
    [
      '--create',
      '--format=gnu',
      '--sort=name',
      `--mtime=@${mtime}`,
      '--owner=0',
      '--group=0',
      '--numeric-owner',
      '--mode=u+rw,go-w,go+rX',
      '--directory',
      parent,
      name,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<number | null>((resolve) => tar.on('close', resolve));
  await pipeline(tar.stdout, createGzip({ level: 9 }), createWriteStream(output));
  const code = await exited;
  if (code !== 0) throw new Error(`tar exited ${code}`);
}

/** Unpacks the tarball where no checkout is above it and runs it: the version, and SQLite through the shipped module. */
function checkRuns(tarball: string, name: string, version: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'wpp-release-check-'));
  try {
    execFileSync('/usr/bin/tar', ['--extract', '--gzip', '--file', tarball, '--directory', dir]);
    const root = join(dir, name);
    const env = { PATH: '/usr/bin:/bin' };
    const said = execFileSync(process.execPath, [join(root, 'bin/wpp.js'), '--version'], { cwd: dir, env, encoding: 'utf8' }).trim();
    if (said !== version) throw new Error(`the unpacked release says its version is "${said}", not ${version}`);
    const sqlite = `const Database = require(${JSON.stringify(join(root, 'node_modules/better-sqlite3'))}); const db = new Database(':memory:'); process.stdout.write(String(db.prepare('select 41 + 1 as n').get().n));`;
    if (execFileSync(process.execPath, ['-e', sqlite], { cwd: dir, env, encoding: 'utf8' }) !== '42')
      throw new Error('the shipped better-sqlite3 did not answer');
    execFileSync('/usr/bin/sha256sum', ['--check', '--quiet', 'SHA256SUMS'], { cwd: root, env });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  let lapStart = started;
  /** How long each step took, for whoever watches the build time. */
  const lap = (step: string) => {
    log(`  ${step}: ${((Date.now() - lapStart) / 1000).toFixed(1)} s`);
    lapStart = Date.now();
  };
  const { version } = z
    .object({ version: z.string().regex(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/) })
    .parse(JSON.parse(readFileSync(join(checkout, 'package.json'), 'utf8')));
  const target = `${process.platform}-${process.arch}`;
  const name = `wpp-${version}-${target}`;
  // --out DIR: the test builds into a temporary folder; by default release/ (git-ignored).
  const outAt = process.argv.indexOf('--out');
  const out = outAt > 0 && process.argv[outAt + 1] ? resolve(process.argv[outAt + 1] as string) : join(checkout, 'release');
  const staging = join(out, name);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });

  log(`compiling (tsc -p tsconfig.build.json) into ${relative(checkout, staging)}/dist`);
  execFileSync(
    process.execPath,
    [
      join(checkout, 'node_modules/typescript/bin/tsc'),
      '-p',
      'tsconfig.build.json',
      '--outDir',
      join(staging, 'dist'),
      '--sourceMap',
      'false',
    ],
    { cwd: checkout, stdio: 'inherit' },
  );
  lap('compiled');
  for (const part of SHIPPED) copyTree(join(checkout, part), join(staging, part), notALink);

  const packages = productionPackages();
  log(`copying ${packages.length} production packages from node_modules (no dev dependency)`);
  for (const path of packages) copyPackage(path, staging);
  lap('copied');

  const commit = gitCommit();
  const manifest = {
    name: 'wpp',
    version,
    platform: process.platform,
    arch: process.arch,
    // The native module answers only a Node.js with this ABI (process.versions.modules): wpp install checks it.
    nodeModuleVersion: process.versions.modules,
    builtWithNode: process.version,
    ...(commit ? { commit: commit.commit } : {}),
  };
  writeFileSync(join(staging, 'release.json'), `${JSON.stringify(manifest, null, 2)}\n`);

  const files = filesBelow(staging);
  writeFileSync(join(staging, 'SHA256SUMS'), files.map((file) => `${sha256File(join(staging, file))}  ${file}\n`).join(''));

  const tarball = join(out, `${name}.tar.gz`);
  lap('checksums written');
  await tarGz(out, name, tarball, commit?.time ?? 0);
  lap('packed');
  checkRuns(tarball, name, version);
  lap('unpacked elsewhere and run');
  const sum = await new Promise<string>((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(tarball)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('hex')))
      .on('error', reject);
  });
  writeFileSync(`${tarball}.sha256`, `${sum}  ${name}.tar.gz\n`);
  rmSync(staging, { recursive: true, force: true });
  const size = statSync(tarball).size;
  log(
    `built ${relative(checkout, tarball)} (${(size / 1024 / 1024).toFixed(1)} MiB, ${files.length + 1} files, sha256 ${sum}) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}

main().catch((error: unknown) => {
  console.error(`release: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
