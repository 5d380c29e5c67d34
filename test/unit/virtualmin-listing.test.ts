/**
 * `wpp import virtualmin` reads `virtualmin list-domains --json`: the fixture is that command's
 * output on the real Virtualmin GPL 8.1.0 (a top-level server with a sub-server and an alias, and
 * a second, disabled top-level server created without a contact address).
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseListing } from '../../src/core/panel-listing.js';
import { readPanelListing } from '../../src/panel/listings/index.js';
import { parseVirtualminDomains, parseVirtualminResellers } from '../../src/panel/listings/virtualmin.js';
import { parseVirtualminPlans, readRecordProtection, recordProtection } from '../../src/panel/listings/virtualmin-packages.js';
import { LISTINGS, readListingFixture } from '../helpers/panel-listings.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

describe('Virtualmin listing (list-domains --json)', () => {
  it("gives each top-level server's user an account, with its sub-servers and aliases as domains; disabled is suspended", () => {
    const listing = parseListing(parseVirtualminDomains(readListingFixture('virtualmin/list-domains.json')), 'virtualmin');
    expect(listing.accounts).toEqual([
      {
        account: 'cap-top',
        email: 'owner@example.com',
        // The package is the plan's id (the change command knows only the id).
        plan: '0',
        suspended: false,
        // Virtualmin GPL has no resellers: list-domains names none, the host's own.
        reseller: null,
        domains: [
          { domain: 'cap-top.example.com', subdomains: [], ip: '192.0.2.2' },
          { domain: 'blog.cap-top.example.com', subdomains: [], ip: '192.0.2.2' },
          { domain: 'cap-alias.example.net', subdomains: [], ip: '192.0.2.2' },
        ],
      },
      // Created without --email: Virtualmin's made-up second@vm is no address.
      {
        account: 'second',
        plan: '0',
        suspended: true,
        reseller: null,
        domains: [{ domain: 'second.example.org', subdomains: [], ip: '192.0.2.2' }],
      },
    ]);
  });

  it("names each top-level server's reseller (the first of several; none: the host's own) and reads list-resellers' e-mail", () => {
    const listing = parseListing(parseVirtualminDomains(readListingFixture('virtualmin/list-domains-resellers.json')), 'virtualmin');
    expect(listing.accounts.map((a) => [a.account, a.reseller])).toEqual([
      ['cap-top', 'res1'],
      ['second', 'res2'],
      ['third', null],
    ]);
    expect(parseVirtualminResellers(readListingFixture('virtualmin/list-resellers.json'))).toEqual([
      { name: 'res1', email: 'res1@mail.example' },
      { name: 'res2' },
    ]);
    // Virtualmin GPL: no list-resellers command, so no resellers.
    expect(parseVirtualminResellers('Unknown command list-resellers')).toEqual([]);
  });

  it("refuses a failed call with Virtualmin's reason, and output of another shape", () => {
    expect(() => parseVirtualminDomains('{"status":"failure","error":"Virtualmin is not configured"}')).toThrow(
      'list-domains failed: Virtualmin is not configured',
    );
    expect(() => parseVirtualminDomains('Domain  Username')).toThrow('did not print JSON');
    expect(() => parseVirtualminDomains('{"status":"success","data":[{"name":"a.example","values":{"username":"x"}}]}')).toThrow(
      'another shape',
    );
  });

  it('runs virtualmin at its vendor path under the root, and says so where there is none', async () => {
    const root = createTempDir('wpp-vm-listing-');
    try {
      await expect(readPanelListing({ panel: 'virtualmin', root })).rejects.toThrow('is not there: is this a Virtualmin server?');
      mkdirSync(join(root, '/usr/sbin'), { recursive: true });
      writeFileSync(
        join(root, '/usr/sbin/virtualmin'),
        `#!/bin/sh\n[ "$*" = "list-domains --json" ] || exit 9\ncat '${join(LISTINGS, 'virtualmin/list-domains.json')}'\n`,
      );
      chmodSync(join(root, '/usr/sbin/virtualmin'), 0o755);
      const listing = await readPanelListing({ panel: 'virtualmin', root });
      expect(listing.accounts.map((a) => a.account)).toEqual(['cap-top', 'second']);
    } finally {
      removeTempDir(root);
    }
  });

  it('reads the resellers with list-resellers where Virtualmin has it (Pro), beside list-domains', async () => {
    const root = createTempDir('wpp-vm-resellers-');
    try {
      mkdirSync(join(root, '/usr/sbin'), { recursive: true });
      writeFileSync(
        join(root, '/usr/sbin/virtualmin'),
        `#!/bin/sh
case "$*" in
  "list-domains --json") cat '${join(LISTINGS, 'virtualmin/list-domains-resellers.json')}' ;;
  "list-resellers --json") cat '${join(LISTINGS, 'virtualmin/list-resellers.json')}' ;;
  *) exit 9 ;;
esac
`,
      );
      chmodSync(join(root, '/usr/sbin/virtualmin'), 0o755);
      const listing = await readPanelListing({ panel: 'virtualmin', root });
      expect(listing.accounts.map((a) => [a.account, a.reseller])).toEqual([
        ['cap-top', 'res1'],
        ['second', 'res2'],
        ['third', null],
      ]);
      expect(listing.resellers).toEqual([{ name: 'res1', email: 'res1@mail.example' }, { name: 'res2' }]);
    } finally {
      removeTempDir(root);
    }
  });
  describe('protection per package: the Web Protection feature (wpp) and the plans', () => {
    it("a top-level server with the feature in its Features includes protection; without it, its record's wpp= line says, or nothing", () => {
      const text = readListingFixture('virtualmin/list-domains-features.json');
      const said = (records: Map<string, boolean>) =>
        parseListing(parseVirtualminDomains(text, records), 'virtualmin').accounts.map((a) => [a.account, a.plan, a.protection]);
      // second.example.org's record (id 179566737427309) has no wpp= line: not said, never "no".
      expect(said(new Map())).toEqual([
        ['cap-top', '1795667400001', true],
        ['second', '0', undefined],
      ]);
      expect(said(new Map([['179566737427309', false]]))).toEqual([
        ['cap-top', '1795667400001', true],
        ['second', '0', false],
      ]);
    });

    it("reads a record's wpp= line: 1 yes, 0 no, absent nothing", () => {
      expect(recordProtection('id=1\nwpp=1\nunix=1\n')).toBe(true);
      expect(recordProtection('id=1\nwpp=0\n')).toBe(false);
      expect(recordProtection('id=1\nwpp_other=1\n')).toBeUndefined();
    });

    it('lists the plans with allowed features of their own, by id; a plan on Automatic limits nothing and is left out', () => {
      expect(parseVirtualminPlans(readListingFixture('virtualmin/list-plans.json'))).toEqual([
        { name: '1795667400001', protection: true },
        { name: '1795667400002', protection: false },
      ]);
      expect(parseVirtualminPlans('Usage: virtualmin list-plans')).toEqual([]);
    });

    it('reads list-plans and the server records under the root beside list-domains', async () => {
      const root = createTempDir('wpp-vm-packages-');
      try {
        mkdirSync(join(root, '/usr/sbin'), { recursive: true });
        writeFileSync(
          join(root, '/usr/sbin/virtualmin'),
          `#!/bin/sh
case "$*" in
  "list-domains --json") cat '${join(LISTINGS, 'virtualmin/list-domains-features.json')}' ;;
  "list-plans --json") cat '${join(LISTINGS, 'virtualmin/list-plans.json')}' ;;
  *) exit 9 ;;
esac
`,
        );
        chmodSync(join(root, '/usr/sbin/virtualmin'), 0o755);
        const domains = join(root, '/etc/webmin/virtual-server/domains');
        mkdirSync(domains, { recursive: true });
        writeFileSync(join(domains, '179566737427309'), 'id=179566737427309\ndom=second.example.org\nwpp=0\n');
        expect(await readRecordProtection(domains)).toEqual(new Map([['179566737427309', false]]));
        const listing = await readPanelListing({ panel: 'virtualmin', root });
        expect(listing.accounts.map((a) => [a.account, a.protection])).toEqual([
          ['cap-top', true],
          ['second', false],
        ]);
        expect(listing.packages).toEqual([
          { name: '1795667400001', protection: true },
          { name: '1795667400002', protection: false },
        ]);
      } finally {
        removeTempDir(root);
      }
    });
  });
});
