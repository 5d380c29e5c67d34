/**
 * `wpp hook virtualmin` as Virtualmin runs it: a real process with a captured environment. The
 * post phase queues the events (once, however often it fires); the pre phase never fails, since
 * a failing pre-change command would abort the user's action in Virtualmin.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createJobsRepo } from '../../src/db/jobs.repo.js';
import { openPluginDatabase } from '../../src/db/plugin-database.js';
import { runWpp } from '../helpers/cli.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const captured = (name: string) =>
  (
    JSON.parse(readFileSync(new URL(`../fixtures/panels/virtualmin/${name}.json`, import.meta.url), 'utf8')) as {
      env: Record<string, string>;
    }
  ).env;

let dataDir: string;
const baseEnv = () => ({ WPP_DATA_DIR: dataDir, WPP_PANEL_SECRET: 'hook-test-secret-0123456789', WPP_LOG_LEVEL: 'silent' });
const wpp = (args: string[], env: Record<string, string>) => runWpp(args, { env: { ...baseEnv(), ...env } });

/** Every queued event as "type domain", of one account or of all. */
function jobTypes(account?: string) {
  const db = openPluginDatabase(loadConfig(baseEnv()));
  try {
    return createJobsRepo(db)
      .list({ limit: 1000 })
      .filter((job) => account === undefined || job.account === account)
      .map((job) => {
        const { type, domain } = job.payload as { type: string; domain?: string };
        return domain === undefined ? type : `${type} ${domain}`;
      });
  } finally {
    db.close();
  }
}

beforeAll(() => {
  dataDir = createTempDir('wpp-hooks-vm-');
});
afterAll(() => removeTempDir(dataDir));

describe('wpp hook virtualmin', () => {
  it('post: queues the account and its website from a captured create, once when the command runs twice', async () => {
    const first = await wpp(['hook', 'virtualmin', 'post'], captured('create-top-level'));
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/account\.created queued .*domain\.added queued/);
    const again = await wpp(['hook', 'virtualmin'], captured('create-top-level'));
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already queued/);
    expect(jobTypes('cap-top').sort()).toEqual(['account.created', 'domain.added cap-top.example.com']);
  });

  it("post: queues the account rename of a captured `modify-domain --user`, and a sub-server's disable as its website's suspension", async () => {
    const rename = await wpp(['hook', 'virtualmin', 'post'], captured('modify-user-top-level'));
    expect(rename.code).toBe(0);
    expect(rename.stdout).toMatch(/account\.renamed queued/);
    expect(jobTypes('cap-new')).toEqual(['account.renamed']);
    const disable = await wpp(['hook', 'virtualmin', 'post'], { ...captured('disable-sub-server'), VIRTUALSERVER_DISABLED: 'web' });
    expect(disable.code).toBe(0);
    const enable = await wpp(['hook', 'virtualmin', 'post'], { ...captured('disable-sub-server'), VIRTUALSERVER_ACTION: 'ENABLE_DOMAIN' });
    expect(enable.code).toBe(0);
    // The website alone: no account suspension is queued.
    expect(
      jobTypes('cap-top')
        .filter((job) => job.includes('suspended'))
        .sort(),
    ).toEqual(['domain.suspended blog.cap-top.example.com', 'domain.unsuspended blog.cap-top.example.com']);
    // A disable that disabled nothing (as the testbed's sub-server) queues nothing and is no failure.
    const nothing = await wpp(['hook', 'virtualmin', 'post'], captured('disable-alias'));
    expect(nothing.code).toBe(0);
    expect(nothing.stdout).toMatch(/nothing was disabled/);
    expect(jobTypes('cap-new')).toEqual(['account.renamed']);
  });

  it('pre: does nothing and exits 0, even on an environment it could not read', async () => {
    const before = jobTypes().length;
    const pre = await wpp(['hook', 'virtualmin', 'pre'], { VIRTUALSERVER_ACTION: 'DELETE_DOMAIN', VIRTUALSERVER_DOM: 'not a domain' });
    expect(pre.code).toBe(0);
    expect(pre.stdout).toMatch(/pre-change command, nothing to do/);
    expect(jobTypes()).toHaveLength(before);
  });

  it('post: exits 1 with the reason on standard error for an environment it cannot use, queuing nothing', async () => {
    const before = jobTypes('cap-top').length;
    const bad = await wpp(['hook', 'virtualmin', 'post'], { ...captured('create-sub-server'), VIRTUALSERVER_USER: '' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^wpp hook virtualmin: .*VIRTUALSERVER_USER is missing/m);
    expect(jobTypes('cap-top')).toHaveLength(before);
    const phase = await wpp(['hook', 'virtualmin', 'later'], captured('create-sub-server'));
    expect(phase.code).toBe(1);
    expect(phase.stderr).toMatch(/the phase is "pre" or "post", not "later"/);
  });
});
