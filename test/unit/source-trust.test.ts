/**
 * What `wpp install` checks before writing a launcher that root runs on every hook and page:
 * the Node.js binary, the package and every folder above each belong to root and nobody else
 * may write them. Real trees in a temporary folder; the temporary folder's own parents (/tmp
 * is 1777) are presented as root's 0755 through the injected lstat, as on a server's /opt.
 */
import { chmodSync, chownSync, lstatSync, mkdirSync, symlinkSync, writeFileSync, type Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkSourceTrusted, sourceTrustProblems, type SourceTrustDeps } from '../../src/install/source-trust.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const ALICE = 65534;
let base: string;

/** lstat, except the folders above the test tree look like a server's root-owned 0755 ones. */
const deps = (): SourceTrustDeps => ({
  ownerUid: process.getuid?.() ?? 0,
  lstat: (path: string): Stats => {
    const info = lstatSync(path);
    if (base.startsWith(`${path}/`) || path === '/') return Object.assign(Object.create(info) as Stats, { mode: 0o40755, uid: 0 });
    return info;
  },
});

/** A package folder like an installed wpp: bin/wpp.js, dist/, node_modules/ with a link inside. */
function packageTree(root: string): void {
  for (const dir of ['bin', 'dist/cli', 'node_modules/x/bin', 'node_modules/.bin'])
    mkdirSync(join(root, dir), { recursive: true, mode: 0o755 });
  writeFileSync(join(root, 'bin/wpp.js'), '', { mode: 0o755 });
  writeFileSync(join(root, 'dist/cli/main.js'), '', { mode: 0o644 });
  writeFileSync(join(root, 'node_modules/x/bin/x.js'), '', { mode: 0o755 });
  symlinkSync('../x/bin/x.js', join(root, 'node_modules/.bin/x'));
}

let source: { nodePath: string; packageRoot: string };

beforeEach(() => {
  base = createTempDir('wpp-trust-');
  chmodSync(base, 0o755);
  mkdirSync(join(base, 'opt/node/bin'), { recursive: true, mode: 0o755 });
  writeFileSync(join(base, 'opt/node/bin/node'), '', { mode: 0o755 });
  packageTree(join(base, 'opt/wpp'));
  chmodSync(join(base, 'opt'), 0o755);
  source = { nodePath: join(base, 'opt/node/bin/node'), packageRoot: join(base, 'opt/wpp') };
});
afterEach(() => removeTempDir(base));

describe('the install source check', () => {
  it("passes a tree that is root's alone (links inside the package included)", () => {
    expect(sourceTrustProblems(source, deps())).toEqual([]);
    expect(() => checkSourceTrusted(source, deps())).not.toThrow();
  });

  it('refuses a folder above the package that group or others may write, naming it', () => {
    chmodSync(join(base, 'opt'), 0o775);
    expect(sourceTrustProblems(source, deps())).toEqual([`${base}/opt is writable by group or others (mode 0775)`]);
    chmodSync(join(base, 'opt'), 0o777);
    expect(() => checkSourceTrusted(source, deps())).toThrow(/\/opt is writable by group or others \(mode 0777\)/);
  });

  it("accepts a folder above that is root's and sticky (a checkout under /tmp): nobody else may rename what is in it", () => {
    chmodSync(join(base, 'opt'), 0o1777);
    expect(sourceTrustProblems(source, deps())).toEqual([]);
    // Not the package's own folder: others could add files to it.
    chmodSync(join(base, 'opt/wpp'), 0o1777);
    expect(sourceTrustProblems(source, deps())).toEqual([`${base}/opt/wpp is writable by group or others (mode 1777)`]);
  });

  it('refuses a package or node that another user owns (a checkout in a home folder, an nvm node), naming each path', () => {
    chownSync(join(base, 'opt/wpp/dist/cli/main.js'), ALICE, ALICE);
    chownSync(join(base, 'opt/node/bin'), ALICE, ALICE);
    expect(sourceTrustProblems(source, deps()).sort()).toEqual(
      [
        `${base}/opt/node/bin is owned by uid ${ALICE}, not root`,
        `${base}/opt/wpp/dist/cli/main.js is owned by uid ${ALICE}, not root`,
      ].sort(),
    );
  });

  it('refuses a file inside the package that others may write', () => {
    chmodSync(join(base, 'opt/wpp/node_modules/x/bin/x.js'), 0o757);
    expect(sourceTrustProblems(source, deps())).toEqual([
      `${base}/opt/wpp/node_modules/x/bin/x.js is writable by group or others (mode 0757)`,
    ]);
  });

  it('follows a link out of the package, and a linked node, to what they point at', () => {
    const outside = join(base, 'home/alice/lib');
    mkdirSync(outside, { recursive: true });
    chownSync(join(base, 'home/alice'), ALICE, ALICE);
    writeFileSync(join(outside, 'y.js'), '');
    symlinkSync(join(outside, 'y.js'), join(source.packageRoot, 'node_modules/y.js'));
    mkdirSync(join(base, 'usr/bin'), { recursive: true });
    symlinkSync(join(base, 'home/alice/node'), join(base, 'usr/bin/node'));
    writeFileSync(join(base, 'home/alice/node'), '', { mode: 0o755 });
    const problems = sourceTrustProblems({ ...source, nodePath: join(base, 'usr/bin/node') }, deps());
    expect(problems).toContain(`${base}/home/alice is owned by uid ${ALICE}, not root`);
  });

  it('says what to do, and that nothing was written', () => {
    chmodSync(dirname(source.nodePath), 0o777);
    expect(() => checkSourceTrusted(source, deps())).toThrow(
      /wpp install refused: root runs this Node\.js and this package on every hook and panel page.*Nothing was written\./s,
    );
  });
});
