/**
 * `wpp limits` and `wpp resume` as an admin runs them: real processes against a temp data
 * folder. A bad value or subject is refused (exit 2, one message) and changes nothing; a
 * subject spelled loosely is stored as enforcement looks it up, so it really applies.
 */
import { userInfo } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createJobsRepo } from '../../src/db/jobs.repo.js';
import { createAccountsRepo } from '../../src/db/accounts.repo.js';
import { openPluginDatabase } from '../../src/db/plugin-database.js';
import type { LimitLayer } from '../../src/core/quota.js';
import { createSettingsRepo } from '../../src/db/settings.repo.js';
import { runWpp } from '../helpers/cli.js';
import { testEnv, withPlugin } from '../helpers/plugin.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

type Plugin = Parameters<Parameters<typeof withPlugin>[0]>[0];

/** Each `wpp` run is a process start (about a second on a busy 2-core machine); tests run several. */
const PROCESSES = 60_000;

let dataDir: string;
// No provider: `wpp limits` only touches the plugin's database.
const env = () => ({ WPP_DATA_DIR: dataDir, WPP_PANEL_SECRET: 'limits-cli-secret-0123456789', WPP_LOG_LEVEL: 'silent' });
const limits = (...args: string[]) => runWpp(['limits', ...args], { env: env() });

function withDb<T>(fn: (db: ReturnType<typeof openPluginDatabase>) => T): T {
  const db = openPluginDatabase(loadConfig(env()));
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** The limits table as stored, updated_at included: "unchanged" means byte for byte. */
const limitsTable = () => withDb((db) => db.prepare('SELECT * FROM limits ORDER BY scope, subject').all());
const limitRow = (scope: string, subject: string) =>
  withDb((db) =>
    db
      .prepare(
        'SELECT period, anchor_day, website_hits, account_hits, domain_limit, warning_percent, exempt FROM limits WHERE scope = ? AND subject = ?',
      )
      .get(scope, subject),
  );

beforeAll(() => {
  dataDir = createTempDir('wpp-limits-cli-');
  // What the plugin knows: account alice on plan Gold with website one.example.
  withDb((db) => {
    const accounts = createAccountsRepo(db);
    accounts.saveAccount({
      account: 'alice',
      email: null,
      plan: 'Gold',
      providerUserId: 'alice@panel.example',
      providerApiKey: null,
      state: 'active',
    });
    accounts.saveWebsite({
      domain: 'one.example',
      account: 'alice',
      subdomains: [],
      originIps: [],
      state: 'active',
      desiredStatus: 'online',
      pausedBy: null,
      providerStatus: null,
      providerCheckedAt: null,
      callbackTokenHash: 'hash-one',
    });
  });
});
afterAll(() => removeTempDir(dataDir));

describe('wpp limits: bad values never become limits', () => {
  it(
    'refuses an empty hit limit (it was stored as 0 and paused every website) and changes nothing; none clears',
    async () => {
      expect((await limits('--scope', 'global', '--website-hits', '5000', '--account-hits', '0200', '--anchor-day', '05')).code).toBe(0);
      const before = limitsTable();
      for (const value of ['', ' ']) {
        const run = await limits('--scope', 'global', '--website-hits', value);
        expect(run.code).toBe(2);
        expect(run.stderr).toContain('--website-hits');
        expect(run.stderr).toMatch(/whole number/);
      }
      expect(limitsTable()).toEqual(before);
      // Leading zeros are harmless.
      expect(limitRow('global', '')).toMatchObject({ website_hits: 5000, account_hits: 200, anchor_day: 5 });

      const cleared = await limits('--scope', 'global', '--website-hits', 'none');
      expect(cleared.code).toBe(0);
      expect(limitRow('global', '')).toMatchObject({ website_hits: null, account_hits: 200, anchor_day: 5 });
      // What it stored is printed, one parseable `scope:subject<TAB>JSON` row per layer.
      const line = cleared.stdout.split('\n').find((l) => l.startsWith('global:\t')) ?? '';
      expect(JSON.parse(line.split('\t')[1] ?? '')).toMatchObject({ websiteHits: null, accountHits: 200, anchorDay: 5 });
    },
    PROCESSES,
  );

  it(
    'names every bad value in one message (blank, hex, negative, fractional, signed) and changes nothing',
    async () => {
      const before = limitsTable();
      const run = await limits(
        '--scope',
        'global',
        '--website-hits',
        '10',
        '--account-hits',
        ' ',
        '--domain-limit',
        '0x10',
        '--anchor-day=-1',
        '--warning-percent',
        '1.5',
        '--period',
        'weekly',
      );
      expect(run.code).toBe(2);
      const message = run.stderr.split('\n\nUsage:')[0] ?? '';
      for (const option of ['--account-hits', '--domain-limit', '--anchor-day', '--warning-percent', '--period'])
        expect(message).toContain(option);
      expect(message).not.toContain('--website-hits');
      expect(limitsTable()).toEqual(before);
      // Every other spelling (1e3, +5, ' 5', ...) value by value: test/unit/limits-args.test.ts.
    },
    PROCESSES,
  );

  it(
    'refuses value options without --scope, --subject with --scope global, and repeated options',
    async () => {
      const before = limitsTable();
      const noScope = await limits('--website-hits', '5');
      expect(noScope.code).toBe(2);
      expect(noScope.stderr).toMatch(/--scope/);
      const globalSubject = await limits('--scope', 'global', '--subject', 'alice', '--website-hits', '5');
      expect(globalSubject.code).toBe(2);
      expect(globalSubject.stderr).toMatch(/--subject/);
      const repeated = await limits('--scope', 'global', '--website-hits', '5', '--website-hits', '6');
      expect(repeated.code).toBe(2);
      expect(repeated.stderr).toMatch(/--website-hits.*(once|2 times)/);
      expect(limitsTable()).toEqual(before);

      // Every command: `last wins` is gone from the shared option parser and from `hook emit`.
      const jobs = await runWpp(['jobs', '--limit', '5', '--limit', '6'], { env: env() });
      expect(jobs.code).toBe(2);
      expect(jobs.stderr).toMatch(/--limit.*(once|2 times)/);
      const emit = await runWpp(['hook', 'emit', 'domain.added', '--account', 'a', '--account', 'b', '--domain', 'x.example'], {
        env: env(),
      });
      expect(emit.code).not.toBe(0);
      expect(emit.stderr).toMatch(/--account.*(once|2 times)/);
      expect(withDb((db) => createJobsRepo(db).list({ limit: 100 }))).toEqual([]);
    },
    PROCESSES,
  );
});

describe('wpp limits: subjects', () => {
  it(
    'stores account, plan and website subjects as enforcement looks them up',
    async () => {
      expect((await limits('--scope', 'account', '--subject', ' ALICE ', '--account-hits', '900')).code).toBe(0);
      expect((await limits('--scope', 'plan', '--subject', ' Gold ', '--domain-limit', '4')).code).toBe(0);
      const website = await limits('--scope', 'website', '--subject', 'ONE.Example.', '--exempt', 'true');
      expect(website.code).toBe(0);
      expect(website.stdout).toContain('website:one.example\t');
      expect(limitRow('account', 'alice')).toMatchObject({ account_hits: 900 });
      expect(limitRow('plan', 'Gold')).toMatchObject({ domain_limit: 4 });
      expect(limitRow('website', 'one.example')).toMatchObject({ exempt: 1 });
    },
    PROCESSES,
  );

  it(
    'refuses a subject the plugin does not know unless --allow-unknown, and an invalid one always',
    async () => {
      const before = limitsTable();
      for (const [scope, subject] of [
        ['website', 'nope.example'],
        ['account', 'bob'],
        ['plan', 'Silver'],
      ] as const) {
        const run = await limits('--scope', scope, '--subject', subject, '--website-hits', '5');
        expect(run.code, `${scope} ${subject}`).toBe(2);
        expect(run.stderr).toContain('--allow-unknown');
        expect(run.stderr).toContain(subject);
      }
      // --allow-unknown lets an unknown name through, never an invalid one.
      const invalid = await limits('--scope', 'account', '--subject', 'a b', '--website-hits', '5', '--allow-unknown');
      expect(invalid.code).toBe(2);
      expect(invalid.stderr).toContain('account may only contain');
      expect(limitsTable()).toEqual(before);

      // Set before the account exists: allowed when said so, and normalised all the same.
      expect((await limits('--scope', 'account', '--subject', 'Bob', '--website-hits', '5', '--allow-unknown')).code).toBe(0);
      expect(limitRow('account', 'bob')).toMatchObject({ website_hits: 5 });
    },
    PROCESSES,
  );
});

describe('wpp limits: who changed what', () => {
  it(
    'records a change in settings_changes as cli:<os user>, with the row before and after; a refused one records nothing',
    async () => {
      const changes = () => withDb((db) => createSettingsRepo(db).listChanges({ what: 'limits:account:alice' }));
      const before = changes();
      expect((await limits('--scope', 'account', '--subject', 'alice', '--website-hits', '4321')).code).toBe(0);
      expect((await limits('--scope', 'account', '--subject', 'alice', '--website-hits', 'x')).code).toBe(2);
      const recorded = changes();
      expect(recorded).toHaveLength(before.length + 1);
      expect(recorded[0]).toMatchObject({ actor: `cli:${userInfo().username}`, after: { websiteHits: 4321 } });
      // The row as it was: the audit says what the change replaced.
      expect((recorded[0]?.before as LimitLayer | null)?.websiteHits).not.toBe(4321);
    },
    PROCESSES,
  );
});

describe('wpp limits: a reseller pool', () => {
  it(
    "sets a reseller's pool with --pool-hits once the plugin knows the reseller, and refuses what a reseller row has no use for",
    async () => {
      const unknown = await limits('--scope', 'reseller', '--subject', 'r1', '--pool-hits', '50000');
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('--subject: the plugin knows no reseller "r1"');
      expect(limitRow('reseller', 'r1')).toBeUndefined();

      // The panel names alice's reseller: r1 is known from then on.
      withDb((db) => createAccountsRepo(db).setAccountReseller('alice', 'r1'));
      const set = await limits(
        '--scope',
        'reseller',
        '--subject',
        'r1',
        '--pool-hits',
        '50000',
        '--anchor-day',
        '5',
        '--period',
        'monthly',
      );
      expect(set.stderr).toBe('');
      expect(set.code).toBe(0);
      // The pool is the row's account hits: all the reseller's customers' websites together.
      expect(limitRow('reseller', 'r1')).toMatchObject({ account_hits: 50000, anchor_day: 5, period: 'monthly', website_hits: null });
      const line = set.stdout.split('\n').find((l) => l.startsWith('reseller:r1\t')) ?? '';
      expect(JSON.parse(line.split('\t')[1] ?? '')).toMatchObject({ accountHits: 50000, anchorDay: 5 });

      const before = limitsTable();
      const wrong = await limits('--scope', 'reseller', '--subject', 'r1', '--website-hits', '5', '--exempt', 'true');
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toContain('--website-hits does not apply to --scope reseller');
      expect(wrong.stderr).toContain('--exempt does not apply to --scope reseller');
      const elsewhere = await limits('--scope', 'account', '--subject', 'alice', '--pool-hits', '5');
      expect(elsewhere.code).toBe(2);
      expect(elsewhere.stderr).toContain("--pool-hits is a reseller's pool: only with --scope reseller (not account)");
      expect(limitsTable()).toEqual(before);
    },
    PROCESSES,
  );
});

const traffic = (sb: TestSandbox, domain: string, hits: number) => sb.control('POST', `/_sandbox/websites/${domain}/traffic`, { hits });
const requested = async (sb: TestSandbox, domain: string) =>
  (await sb.control<{ requested_status: string }>('GET', `/v1.0/website?domain=${domain}`)).requested_status;

async function provision(plugin: Plugin, account: string, domains: string[]) {
  await plugin.postEvents(domains.map((domain) => ({ type: 'domain.added', account, domain })));
  await plugin.idle();
}

describe('normalised subjects in enforcement', () => {
  it(
    'an exempt ONE.EXAMPLE exempts one.example, and an IDN subject applies to its punycode website',
    async () => {
      await withPlugin(async (plugin, sb) => {
        const cli = testEnv(plugin.dataDir, sb);
        await provision(plugin, 'alice', ['one.example', 'two.example', 'bücher.example']);
        const set = (...args: string[]) => runWpp(['limits', ...args], { env: cli });
        expect((await set('--scope', 'global', '--website-hits', '100')).code).toBe(0);
        expect((await set('--scope', 'website', '--subject', 'ONE.EXAMPLE', '--exempt', 'true')).code).toBe(0);
        expect((await set('--scope', 'website', '--subject', 'bücher.example', '--website-hits', '10000')).code).toBe(0);
        for (const domain of ['one.example', 'two.example', 'xn--bcher-kva.example']) await traffic(sb, domain, 500);

        await plugin.syncStatistics();
        expect((await plugin.enforceLimits()).paused).toBe(1);
        expect(await requested(sb, 'two.example')).toBe('paused');
        expect(await requested(sb, 'one.example')).toBe('online');
        expect(await requested(sb, 'xn--bcher-kva.example')).toBe('online');
      });
    },
    PROCESSES,
  );

  it(
    'wpp resume takes the domain as the panel spells it (IDN, upper case)',
    async () => {
      await withPlugin(async (plugin, sb) => {
        await provision(plugin, 'alice', ['bücher.example']);
        plugin.stats.setLimits('global', '', { websiteHits: 100 });
        await traffic(sb, 'xn--bcher-kva.example', 500);
        await plugin.syncStatistics();
        await plugin.enforceLimits();
        expect(await requested(sb, 'xn--bcher-kva.example')).toBe('paused');

        const run = await runWpp(['resume', 'Bücher.example', '--admin', 'ops-anna'], { env: testEnv(plugin.dataDir, sb) });
        expect(run.stderr).toBe('');
        expect(run.code).toBe(0);
        expect(run.stdout).toContain('xn--bcher-kva.example resumed by ops-anna');
        expect(await requested(sb, 'xn--bcher-kva.example')).toBe('online');

        const bad = await runWpp(['resume', 'not a domain', '--admin', 'ops-anna'], { env: testEnv(plugin.dataDir, sb) });
        expect(bad.code).toBe(2);
      });
    },
    PROCESSES,
  );
});
