/**
 * `wpp hook plesk <event>` and protection per hosting package: when a subscription gets its
 * first domain (domain_create) or its hosting (phys_hosting_create), the hook asks Plesk's
 * database for the customer's service plans and their Web Protection permission
 * (panel/plesk-package.ts) and queues a plan.changed saying so before the domain.added, so a
 * domain of a plan without it is recorded but never set up at the provider.
 *
 * As in plesk-hook-owner.test.ts, the hook's own function runs in-process with a tool runner
 * rooted in a temporary folder (the real hook always runs the real /usr/sbin/plesk), and the
 * events go through the hook's deliverEvents into a real database.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverEvents } from '../../src/cli/hook.command.js';
import { loadConfig } from '../../src/config.js';
import { createJobsRepo } from '../../src/db/jobs.repo.js';
import { openPluginDatabase } from '../../src/db/plugin-database.js';
import { createToolRunner } from '../../src/install/tools.js';
import { PLESK_TOOL, translatePleskHook } from '../../src/panel/plesk-owner.js';
import { fakeTool, toolCalls } from '../helpers/fake-tools.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const fixturePath = (name: string) => new URL(`../fixtures/panels/plesk/${name}`, import.meta.url).pathname;
const fixture = (name: string) => JSON.parse(readFileSync(fixturePath(name), 'utf8')) as { event: string; env: Record<string, string> };

let dataDir: string;
let root: string;
const config = () =>
  loadConfig({ WPP_DATA_DIR: dataDir, WPP_PANEL_SECRET: 'plesk-package-test-secret-0123456789', WPP_LOG_LEVEL: 'silent' });
const noWebsites = () => undefined;

/** A fake /usr/sbin/plesk: jdoe owns every domain; `db` prints `dbFile` for a query about jdoe's subscriptions, or fails. */
function fakePlesk(dbFile?: string) {
  const db = dbFile ? `case "$3" in *PlansSubscriptions*"c.login = 'jdoe'"*) exec cat '${fixturePath(dbFile)}' ;; esac` : '';
  fakeTool(root, PLESK_TOOL, {
    script: `[ "$1 $2 $3" = "bin domain --info" ] && exec cat '${fixturePath('domain-info-jdoe.txt')}'
[ "$1 $2" = "db -Ne" ] && { ${db || ':'}; echo "ERROR 2002: Can't connect to the database" >&2; exit 1; }
exit 1`,
  });
}

function queued() {
  const db = openPluginDatabase(config());
  try {
    return createJobsRepo(db)
      .list({ limit: 1000 })
      .map((job) => job.payload as { type: string; account: string; domain?: string; plan?: string; protection?: boolean });
  } finally {
    db.close();
  }
}

beforeAll(() => {
  dataDir = createTempDir('wpp-plesk-package-');
  root = createTempDir('wpp-plesk-package-root-');
});
afterAll(() => {
  removeTempDir(dataDir);
  removeTempDir(root);
});

describe("wpp hook plesk: the subscription's service plan says whether it includes web protection", () => {
  it('queues a plan.changed without protection before the domain.added of a subscription whose plan lacks the permission', async () => {
    fakePlesk('db-package-jdoe-without.txt');
    const { event, env } = fixture('domain-create.json');
    const result = await translatePleskHook(event, env, { tools: createToolRunner(root), websiteAccount: noWebsites });
    if (!result.ok) throw new Error(result.error);
    expect(result.events.map((e) => [e.type, e.account, e.plan, e.protection, e.domain])).toEqual([
      ['plan.changed', 'jdoe', 'Basic', false, undefined],
      ['domain.added', 'jdoe', undefined, undefined, 'doe-shop.example'],
    ]);
    await deliverEvents(config(), result.events);
    expect(queued()).toContainEqual(expect.objectContaining({ type: 'plan.changed', account: 'jdoe', plan: 'Basic', protection: false }));
  });

  it("says included when any of the customer's plans includes it (phys_hosting_create)", async () => {
    fakePlesk('db-package-jdoe-two-plans.txt');
    const { event, env } = fixture('phys-hosting-create.json');
    const result = await translatePleskHook(event, env, { tools: createToolRunner(root), websiteAccount: noWebsites });
    if (!result.ok) throw new Error(result.error);
    expect(result.events.map((e) => [e.type, e.plan, e.protection])).toEqual([
      ['plan.changed', 'Pro', true],
      ['domain.added', undefined, undefined],
    ]);
  });

  it("still queues the domain when Plesk's database cannot be read, saying nothing of the package and why", async () => {
    fakePlesk();
    const { event, env } = fixture('domain-create.json');
    const result = await translatePleskHook(event, env, { tools: createToolRunner(root), websiteAccount: noWebsites });
    if (!result.ok) throw new Error(result.error);
    expect(result.events.map((e) => e.type)).toEqual(['domain.added']);
    expect(result.note).toMatch(/package is not known .*Can't connect.*the panel check brings it/);
  });

  it("asks nothing of packages for a further site of a subscription (site_create): its plan is the subscription's", async () => {
    fakePlesk('db-package-jdoe-without.txt');
    const before = toolCalls(root).length;
    const { event, env } = fixture('site-create.json');
    const result = await translatePleskHook(event, env, { tools: createToolRunner(root), websiteAccount: noWebsites });
    if (!result.ok) throw new Error(result.error);
    expect(result.events.map((e) => e.type)).toEqual(['domain.added']);
    expect(
      toolCalls(root)
        .slice(before)
        .filter((call) => call[1] === 'db'),
    ).toEqual([]);
  });
});
