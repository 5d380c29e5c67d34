import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAccountsRepo } from '../../src/db/accounts.repo.js';
import { migrate } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/open.js';
import { paths } from '../../src/paths.js';
import { withTempDir } from '../helpers/temp.js';

const account = (name: string, reseller?: string | null) => ({
  account: name,
  email: null,
  plan: null,
  providerUserId: `${name}@panel.example`,
  providerApiKey: null,
  state: 'active' as const,
  ...(reseller === undefined ? {} : { reseller }),
});

describe('which reseller owns an account (migration 018)', () => {
  it('keeps the reseller an event did not name, follows a transfer, and a renamed reseller keeps its customers', async () => {
    await withTempDir(async (dir) => {
      const db = openDatabase(join(dir, 'plugin.sqlite'));
      try {
        migrate(db, paths.migrations);
        const accounts = createAccountsRepo(db, () => 1_000);
        accounts.saveAccount(account('alice', 'res1'));
        accounts.saveAccount(account('bob', 'res1'));
        accounts.saveAccount(account('res1', null));
        // An update that does not say (a suspension, a plan change) leaves the owner as it was.
        accounts.saveAccount(account('alice'));
        expect(accounts.getAccount('alice')?.reseller).toBe('res1');
        expect(accounts.accountsOfReseller('res1')).toEqual(['alice', 'bob']);

        // A transfer to another reseller, and one back to the host.
        expect(accounts.setAccountReseller('bob', 'res2')).toBe(true);
        accounts.saveAccount(account('alice', null));
        expect(accounts.accountsOfReseller('res1')).toEqual([]);
        expect(accounts.accountsOfReseller('res2')).toEqual(['bob']);
        expect(accounts.getAccount('alice')?.reseller).toBeNull();
        expect(accounts.setAccountReseller('nobody', 'res2')).toBe(false);

        // cPanel resellers are accounts too: renaming one carries its customers and its row along.
        accounts.saveAccount(account('res2', null));
        accounts.saveReseller({ name: 'res2', email: 'res2@example.net' });
        accounts.saveReseller({ name: 'res2', email: null });
        expect(accounts.getReseller('res2')).toEqual({ name: 'res2', email: 'res2@example.net' });
        expect(accounts.renameAccount('res2', 'res3')).toBe('renamed');
        expect(accounts.accountsOfReseller('res3')).toEqual(['bob']);
        expect(accounts.listResellers()).toEqual([{ name: 'res3', email: 'res2@example.net' }]);
      } finally {
        db.close();
      }
    });
  });
});
