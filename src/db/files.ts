/**
 * Owner-only files and folders. The data folders hold every customer's provider API key and
 * the partner key, and on shared hosting every customer has a shell on the same machine, so
 * folders are 0700 and files 0600 whatever the umask of the process that creates them (a panel
 * hook may run with any umask). SQLite gives `-wal` and `-shm` the mode of the database file
 * itself, so a database file created 0600 keeps its companions 0600 too.
 */
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fchmodSync,
  fchownSync,
  lchownSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Where a start check reports what it tightened: the logger where there is one. */
export type Notice = (message: string) => void;
export const printNotice: Notice = (message) => void process.stderr.write(`wpp: ${message}\n`);

/** A data folder or file open to other local users that this process may not or will not tighten. */
export class InsecurePathError extends Error {
  override readonly name = 'InsecurePathError';
  readonly code = 'DATA_INSECURE';
  constructor(
    readonly path: string,
    readonly mode: number,
    message: string,
  ) {
    super(message);
  }
}

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, '0');
const shellQuote = (path: string) => (/^[\w./+-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`);
const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code;

/**
 * The owner root gives what it creates in `folder`: the folder's own, when that is another
 * user. Installed, the data folder belongs to the wpp user `wpp serve` runs as, while hooks,
 * panel pages and the administrator's commands run as root on it; a root-owned 0600 file
 * there (a secret, the key file, the database) would lock the service out. SQLite does the
 * same for the -wal and -shm files it creates as root. Undefined: keep the creator's.
 */
export function inheritedOwner(folder: string): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const info = statSync(folder);
  return info.uid === 0 ? undefined : { uid: info.uid, gid: info.gid };
}

/** Creates `dir` (and missing parents) owner-only; an existing folder is left as it is. */
export function makePrivateDir(dir: string): void {
  const first = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first === undefined) return;
  chmodSync(dir, PRIVATE_DIR_MODE);
  const owner = inheritedOwner(dirname(dir));
  // lchown: the folder's owner may have swapped what was just made for a link; it is never followed.
  if (owner) lchownSync(dir, owner.uid, owner.gid);
}

/**
 * Creates an owner-only file holding `content`; false (and nothing written) when it exists
 * already. With content the file appears whole (written aside, then linked into place), so a
 * process racing this one never reads it half written.
 */
export function createPrivateFile(file: string, content = ''): boolean {
  const target = content ? `${file}.${randomBytes(6).toString('hex')}.tmp` : file;
  let fd: number;
  try {
    fd = openSync(target, 'wx', PRIVATE_FILE_MODE);
  } catch (error) {
    if (errorCode(error) === 'EEXIST' && target === file) return false;
    throw error;
  }
  try {
    // The umask applies to openSync's mode: set it again so 0600 is exact.
    fchmodSync(fd, PRIVATE_FILE_MODE);
    const owner = inheritedOwner(dirname(file));
    if (owner) fchownSync(fd, owner.uid, owner.gid);
    if (content) writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  if (target === file) return true;
  try {
    linkSync(target, file);
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(target);
  }
}

/**
 * The start check of one existing path: group and other permissions are taken away (the
 * owner's are kept) with a notice. A path this process may not change (it is not the owner)
 * is refused with the path, its mode and the command that fixes it. A missing path is fine.
 */
export function tightenPrivate(path: string, notice: Notice): void {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat || (stat.mode & 0o077) === 0) return;
  const tightened = stat.mode & 0o700;
  try {
    chmodSync(path, tightened);
  } catch (error) {
    if (errorCode(error) !== 'EPERM') throw error;
    throw new InsecurePathError(
      path,
      stat.mode,
      `${path} is open to other local users (mode ${octal(stat.mode)}) and this process (uid ${process.getuid?.() ?? '?'}) may not change it (owner uid ${stat.uid}): ` +
        `run \`chmod go-rwx ${shellQuote(path)}\` as its owner or root, then start again`,
    );
  }
  notice(`${path} was open to other local users (mode ${octal(stat.mode)}): now ${octal(tightened)}`);
}

/**
 * The start check of a data folder: created 0700 when missing; an existing folder open to
 * other users is tightened when everything in it is ours (`isOurs(name)`), and refused
 * otherwise, since a data folder pointed at a folder shared with other things (a web root)
 * must not have those locked away by a chmod nobody asked for.
 */
export function securePrivateDir(dir: string, isOurs: (name: string) => boolean, notice: Notice): void {
  makePrivateDir(dir);
  const stat = statSync(dir);
  if ((stat.mode & 0o077) === 0) return;
  const strangers = readdirSync(dir).filter((name) => !isOurs(name));
  if (strangers.length > 0) {
    throw new InsecurePathError(
      dir,
      stat.mode,
      `${dir} is open to other local users (mode ${octal(stat.mode)}) and holds files that are not the plugin's (${strangers.slice(0, 3).join(', ')}${strangers.length > 3 ? ', ...' : ''}), ` +
        `so it is not changed automatically: run \`chmod 700 ${shellQuote(dir)}\` (or give the plugin a folder of its own), then start again`,
    );
  }
  tightenPrivate(dir, notice);
}
