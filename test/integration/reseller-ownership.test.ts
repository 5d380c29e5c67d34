/**
 * Which reseller owns which account (issue 22), end to end with a real plugin database and the
 * real sandbox: a panel's account.created names the owner, account.transferred moves it, and
 * `wpp import --apply` follows a transfer the panel made without a hook (and records the
 * resellers' e-mail addresses the listing gives). The provider knows nothing of resellers: its
 * users and websites stay as they were.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWpp } from '../helpers/cli.js';
import { cpanelOutput, generateAccounts, installFakeWhmapi } from '../helpers/panel-listings.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';
import { testEnv, withPlugin } from '../helpers/plugin.js';

const listingWith = (reseller: string | null) => ({
  panel: 'hosting-panel',
  accounts: [{ account: 'alice', reseller, domains: [{ domain: 'alice-shop.example' }] }],
  resellers: [{ name: 'res3', email: 'Res3@Mail.example' }],
});

describe('resellers: the owner of each account', () => {
  it('takes the owner from account.created, follows account.transferred, and wpp import --apply follows a transfer the panel made', async () => {
    await withPlugin(async (plugin, sandbox) => {
      const owner = () => plugin.accounts.getAccount('alice')?.reseller;
      expect(
        (
          await plugin.postEvents([
            { type: 'account.created', account: 'alice', email: 'alice@example.net', reseller: 'Res1' },
            { type: 'domain.added', account: 'alice', domain: 'alice-shop.example', ip: '198.51.100.20' },
          ])
        ).status,
      ).toBe(202);
      await plugin.idle();
      expect(owner()).toBe('res1');
      expect(plugin.accounts.getReseller('res1')).toEqual({ name: 'res1', email: null });
      expect(plugin.accounts.accountsOfReseller('res1')).toEqual(['alice']);
      const usersBefore = await sandbox.control<{ id: string }[]>('GET', '/v1.0/user');

      // A later event that does not say who owns the account leaves the owner as it is.
      await plugin.postEvents([{ type: 'account.created', account: 'alice', email: 'alice@example.org' }]);
      await plugin.idle();
      expect(owner()).toBe('res1');

      await plugin.postEvents([{ type: 'account.transferred', account: 'alice', reseller: 'res2' }]);
      await plugin.idle();
      expect(owner()).toBe('res2');
      expect(plugin.accounts.accountsOfReseller('res1')).toEqual([]);
      expect(plugin.accounts.accountsOfReseller('res2')).toEqual(['alice']);

      // Back to the host: null, not a reseller named "root".
      await plugin.postEvents([{ type: 'account.transferred', account: 'alice', reseller: null }]);
      await plugin.idle();
      expect(owner()).toBeNull();

      // The panel moved alice to res3 with no hook: the import reports it, and --apply queues the transfer.
      const file = join(plugin.dataDir, 'listing.json');
      writeFileSync(file, JSON.stringify(listingWith('res3')));
      const env = testEnv(plugin.dataDir, sandbox);
      const report = await runWpp(['import', '--file', file], { env });
      expect(report.code).toBe(0);
      expect(report.stdout).toContain('differences: 1 reseller.differs');
      expect(report.stdout).toContain('reseller.differs         alice (transferred from the host to res3)');
      expect(owner()).toBeNull();
      // wpp doctor counts the owners and warns that the panel's comparison disagreed.
      const doctorBefore = await runWpp(['doctor'], { env });
      expect(doctorBefore.stdout).toMatch(
        /^warn +resellers +no account owned by a reseller; 1 account the host's own; 3 resellers the panel named without accounts here; the panel comparison of .* found 1 account owned by another reseller: wpp import <panel> --apply follows the transfers$/m,
      );
      const applied = await runWpp(['import', '--file', file, '--apply'], { env });
      expect(applied.stdout).toContain('queued 1 event');
      await plugin.idle();
      expect(owner()).toBe('res3');
      expect(plugin.accounts.getReseller('res3')).toEqual({ name: 'res3', email: 'res3@mail.example' });
      const again = await runWpp(['import', '--file', file, '--apply'], { env });
      expect(again.stdout).toContain('differences: no difference');
      const doctorAfter = await runWpp(['doctor'], { env });
      expect(doctorAfter.stdout).toMatch(
        /^ok +resellers +1 reseller \(res3 1\); 0 accounts the host's own; 2 resellers the panel named without accounts here; the panel agreed at /m,
      );

      // The provider's users are the same ones: an owner is the plugin's record only.
      expect(await sandbox.control<{ id: string }[]>('GET', '/v1.0/user')).toEqual(usersBefore);
      expect(plugin.accounts.getWebsite('alice-shop.example')?.account).toBe('alice');
    });
  }, 60_000);

  it("wpp import cpanel brings each account with listaccts' owner and the resellers' e-mail, and follows a reseller change", async () => {
    await withPlugin(async (plugin, sandbox) => {
      const root = createTempDir('wpp-reseller-root-');
      try {
        // acct001 is a reseller (it owns itself and acct002); acct003 is the host's own.
        const model = generateAccounts(3, 3);
        const owners = (acct002: string) => model.map((a, i) => ({ ...a, owner: ['acct001', acct002, 'root'][i] as string }));
        installFakeWhmapi(root, cpanelOutput(owners('acct001')));
        const env = testEnv(plugin.dataDir, sandbox);
        const first = await runWpp(['import', 'cpanel', '--root', root, '--apply'], { env });
        expect(first.code).toBe(0);
        await plugin.idle();
        const owner = (account: string) => plugin.accounts.getAccount(account)?.reseller;
        expect([owner('acct001'), owner('acct002'), owner('acct003')]).toEqual(['acct001', 'acct001', null]);
        expect(plugin.accounts.listResellers()).toEqual([{ name: 'acct001', email: 'acct001@mail.example' }]);

        // WHM's "Change Ownership" moved acct002 to root, with no hook the plugin heard.
        installFakeWhmapi(root, cpanelOutput(owners('root')));
        const moved = await runWpp(['import', 'cpanel', '--root', root, '--apply'], { env });
        expect(moved.stdout).toContain('reseller.differs         acct002 (transferred from acct001 to the host)');
        await plugin.idle();
        expect(owner('acct002')).toBeNull();
        expect(plugin.accounts.accountsOfReseller('acct001')).toEqual(['acct001']);
      } finally {
        removeTempDir(root);
      }
    });
  }, 60_000);
});
