import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseListing } from '../../src/core/panel-listing.js';
import { createToolRunner } from '../../src/install/tools.js';
import { cpanelListing } from '../../src/panel/listings/cpanel.js';
import { DIRECTADMIN_USERS, readDirectAdminListing } from '../../src/panel/listings/directadmin.js';
import { readListingFile, readPanelListing } from '../../src/panel/listings/index.js';
import { parseDomainInfo, pleskListing } from '../../src/panel/listings/plesk.js';
import { installDirectAdminFiles, installFakePlesk, LISTINGS, readListingFixture } from '../helpers/panel-listings.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const withRoot = async (fn: (root: string) => Promise<void>) => {
  const root = createTempDir('wpp-listing-');
  try {
    await fn(root);
  } finally {
    removeTempDir(root);
  }
};

describe('cPanel listing (whmapi1 listaccts + get_domain_info)', () => {
  const listing = () =>
    parseListing(cpanelListing(readListingFixture('cpanel/listaccts.json'), readListingFixture('cpanel/get_domain_info.json')), 'cpanel');

  it('gives each account its main, addon and parked domains, and sub domains as labels of the domain they end with', () => {
    const [bob, carol, dave] = listing().accounts;
    expect(bob).toEqual({
      account: 'bob',
      email: 'bob@mail.example',
      plan: 'Business',
      suspended: false,
      // listaccts' owner is root: the host's own account.
      reseller: null,
      domains: [
        { domain: 'bob.example', subdomains: ['blog'], ip: '192.0.2.10' },
        { domain: 'shop.example', subdomains: ['dev'], ip: '192.0.2.10' },
        { domain: 'bob-alias.example', subdomains: [], ip: '192.0.2.10' },
      ],
    });
    expect(carol).toMatchObject({ account: 'carol', suspended: true, domains: [{ domain: 'carol.example' }] });
    // cPanel writes "*unknown*" for an account without a contact address.
    expect(dave?.email).toBeUndefined();
  });

  it("leaves out the subdomain an addon domain sits on: get_domain_info lists it as a sub with the addon's document root", () => {
    const restored = parseListing(
      cpanelListing(readListingFixture('cpanel/listaccts.json'), readListingFixture('cpanel/get_domain_info-restore.json')),
      'cpanel',
    );
    expect(restored.accounts[0]?.domains).toEqual([
      { domain: 'bob.example', subdomains: ['blog'], ip: '192.0.2.10' },
      { domain: 'shop.example', subdomains: ['dev'], ip: '192.0.2.10' },
      { domain: 'bob-alias.example', subdomains: [], ip: '192.0.2.10' },
    ]);
  });

  it("names each account's reseller from listaccts' owner (root: the host's own) and lists the resellers with their own account's e-mail", () => {
    const listing = parseListing(
      cpanelListing(readListingFixture('cpanel/listaccts-resellers.json'), readListingFixture('cpanel/get_domain_info.json')),
      'cpanel',
    );
    expect(listing.accounts.map((a) => [a.account, a.reseller])).toEqual([
      ['bob', null],
      ['carol', 'res1'],
      // A reseller owns its own account.
      ['res1', 'res1'],
      ['dave', 'res2'],
    ]);
    // res2 has no account of its own on this server (or none listed): no address.
    expect(listing.resellers).toEqual([
      { name: 'res1', email: 'res1@mail.example' },
      { name: 'res2', email: undefined },
    ]);
  });

  it('refuses a failed call with the reason whmapi1 gave', () => {
    expect(() =>
      cpanelListing(readListingFixture('cpanel/listaccts-denied.json'), readListingFixture('cpanel/get_domain_info.json')),
    ).toThrow('whmapi1 listaccts failed: Permission denied');
  });

  it('refuses output that is not whmapi1 JSON, or of another shape', () => {
    expect(() => cpanelListing('<html>login</html>', '{}')).toThrow('whmapi1 listaccts did not print JSON');
    const wrongType = readListingFixture('cpanel/get_domain_info.json').replace('"domain_type": "parked"', '"domain_type": "alias"');
    expect(() => cpanelListing(readListingFixture('cpanel/listaccts.json'), wrongType)).toThrow(
      /get_domain_info printed an unexpected shape: data.domains.2.domain_type/,
    );
  });

  it('refuses a listing whose names are not valid, naming each', () => {
    const bad = readListingFixture('cpanel/get_domain_info.json').replace('"domain": "shop.example"', '"domain": "shop_example"');
    expect(() => parseListing(cpanelListing(readListingFixture('cpanel/listaccts.json'), bad), 'cpanel')).toThrow(
      /accounts\.0\.domains\.1\.domain: "shop_example" is not a valid domain name/,
    );
  });
});

describe('Plesk listing (customer --list, domain --list, domain --info)', () => {
  it("reads the owner login from the Owner line and nests a domain under its owner's parent domain", () => {
    const infos = ['bob.example', 'shop.example', 'blog.bob.example', 'carol.example', 'server.example'].map((d) =>
      parseDomainInfo(d, readListingFixture(`plesk/domain-info/${d}.txt`)),
    );
    const listing = parseListing(pleskListing(readListingFixture('plesk/customer-list.txt'), infos), 'plesk');
    expect(listing.accounts).toEqual([
      {
        account: 'bob',
        domains: [
          { domain: 'bob.example', subdomains: ['blog'], ip: '192.0.2.20' },
          { domain: 'shop.example', subdomains: [], ip: '192.0.2.20' },
        ],
      },
      { account: 'carol', domains: [{ domain: 'carol.example', subdomains: [], ip: '192.0.2.21' }] },
      // The administrator's own domains belong to the admin login, which customer --list leaves out.
      { account: 'admin', domains: [{ domain: 'server.example', subdomains: [], ip: '192.0.2.20' }] },
    ]);
  });

  it('refuses domain --info output without an owner', () => {
    expect(() => parseDomainInfo('broken.example', readListingFixture('plesk/domain-info-no-owner.txt'))).toThrow(
      'plesk bin domain --info broken.example printed no owner',
    );
  });

  it('runs the fake plesk at its vendor path under the root', async () => {
    await withRoot(async (root) => {
      installFakePlesk(root);
      const listing = await readPanelListing({ panel: 'plesk', root });
      expect(listing.accounts.map((a) => a.account)).toEqual(['bob', 'carol', 'admin']);
    });
  });

  it("reads each customer's owner and the resellers from plesk db: a reseller, the administrator's (null), or not said", async () => {
    await withRoot(async (root) => {
      installFakePlesk(root);
      const listing = await readPanelListing({ panel: 'plesk', root });
      // admin is no customer: the clients query does not name its owner, so none is compared.
      expect(listing.accounts.map((a) => [a.account, a.reseller])).toEqual([
        ['bob', 'res1'],
        ['carol', null],
        ['admin', undefined],
      ]);
      expect(listing.resellers).toEqual([
        { name: 'res1', email: 'res1@mail.example' },
        { name: 'res2', email: undefined },
      ]);
    });
  });

  it("reads each service plan's Web Protection permission and each account's from its subscriptions' plans (plesk db)", async () => {
    await withRoot(async (root) => {
      installFakePlesk(root);
      const listing = await readPanelListing({ panel: 'plesk', root });
      // bob: one subscription of Basic (without), one of Default Domain (with): included, by the plan that includes it.
      // carol: only Basic. admin: Legacy, a plan without a stored value: the permission's default, on.
      expect(listing.accounts.map((a) => [a.account, a.plan, a.protection])).toEqual([
        ['bob', 'Default Domain', true],
        ['carol', 'Basic', false],
        ['admin', 'Legacy', true],
      ]);
      expect(listing.packages).toEqual([
        { name: 'Default Domain', protection: true },
        { name: 'Basic', protection: false },
        { name: 'Legacy', protection: true },
      ]);
    });
  });

  it('still lists the accounts when plesk db cannot be read, saying nothing of owners', async () => {
    await withRoot(async (root) => {
      installFakePlesk(root, { db: false });
      const listing = await readPanelListing({ panel: 'plesk', root });
      expect(listing.accounts.map((a) => [a.account, a.reseller])).toEqual([
        ['bob', undefined],
        ['carol', undefined],
        ['admin', undefined],
      ]);
      expect(listing.resellers).toBeUndefined();
      // Nor of packages: an account whose package is not known is not left out.
      expect(listing.accounts.map((a) => a.protection)).toEqual([undefined, undefined, undefined]);
      expect(listing.packages).toBeUndefined();
    });
  });
});

describe('DirectAdmin listing (data/users/<user>/ files)', () => {
  it('reads user.conf, domains.list and the .subdomains files under the root', async () => {
    await withRoot(async (root) => {
      installDirectAdminFiles(root);
      const listing = parseListing(await readDirectAdminListing(createToolRunner(root)), 'directadmin');
      expect(listing.accounts).toEqual([
        {
          account: 'bob',
          email: 'bob@mail.example',
          plan: 'business',
          suspended: false,
          // creator=admin: the host's own user.
          reseller: null,
          domains: [
            { domain: 'bob.example', subdomains: ['blog', 'staging'], ip: '192.0.2.30' },
            { domain: 'shop.example', subdomains: [], ip: '192.0.2.30' },
          ],
        },
        {
          account: 'carol',
          email: 'carol@mail.example',
          plan: 'default',
          suspended: true,
          reseller: null,
          domains: [{ domain: 'carol.example', subdomains: [], ip: '192.0.2.30' }],
        },
        { account: 'dave', email: 'dave@mail.example', plan: 'business', suspended: false, reseller: null, domains: [] },
      ]);
    });
  });

  it("names each user's reseller from user.conf's creator, and lists the users of usertype=reseller as resellers", async () => {
    await withRoot(async (root) => {
      cpSync(join(LISTINGS, 'directadmin-resellers/users'), join(root, DIRECTADMIN_USERS), { recursive: true });
      const listing = parseListing(await readDirectAdminListing(createToolRunner(root)), 'directadmin');
      expect(listing.accounts.map((a) => [a.account, a.reseller])).toEqual([
        ['erin', 'res1'],
        ['res1', null],
      ]);
      expect(listing.resellers).toEqual([{ name: 'res1', email: 'res1@mail.example' }]);
    });
  });

  it('says so when the root holds no DirectAdmin', async () => {
    await withRoot(async (root) => {
      await expect(readPanelListing({ panel: 'directadmin', root })).rejects.toThrow('is not there: is this a DirectAdmin server?');
    });
  });
});

describe('JSON listing file', () => {
  it('reads the documented shape', async () => {
    const listing = await readListingFile(`${LISTINGS}file/listing.json`);
    expect(listing.panel).toBe('hosting-panel');
    expect(listing.accounts[1]).toEqual({ account: 'frank', suspended: true, domains: [{ domain: 'frank.example', subdomains: [] }] });
  });

  it("takes each account's reseller (null: the host's own) and the resellers with their e-mail", () => {
    const listing = parseListing(
      {
        accounts: [
          { account: 'Erin', reseller: 'Res1', domains: [] },
          { account: 'frank', reseller: null, domains: [] },
          { account: 'gina', domains: [] },
        ],
        resellers: [{ name: 'Res1', email: 'Res1@Mail.example' }],
      },
      'f.json',
    );
    expect(listing.accounts.map((a) => [a.account, a.reseller])).toEqual([
      ['erin', 'res1'],
      ['frank', null],
      ['gina', undefined],
    ]);
    expect(listing.resellers).toEqual([{ name: 'res1', email: 'res1@mail.example' }]);
    expect(() => parseListing({ accounts: [{ account: 'a', reseller: 'no spaces here', domains: [] }] }, 'f.json')).toThrow(
      /accounts\.0\.reseller/,
    );
  });

  it('refuses unknown fields and a domain listed twice', () => {
    expect(() => parseListing({ accounts: [{ account: 'a', domains: [], owner: 'x' }] }, 'f.json')).toThrow(/Unrecognized key/);
    expect(() =>
      parseListing(
        {
          accounts: [
            { account: 'a', domains: [{ domain: 'x.example' }] },
            { account: 'b', domains: [{ domain: 'X.example.' }] },
          ],
        },
        'f.json',
      ),
    ).toThrow('x.example is listed twice (also under a)');
  });
});
