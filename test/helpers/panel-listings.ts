/**
 * Panels for `wpp import` tests: the recorded listings of test/fixtures/panels/listings/, a
 * deterministic generator that scales the recorded cPanel records to any size (every record a
 * copy of a recorded one with its names changed), and fake panel tools (sh scripts at the
 * vendors' paths under a temporary root) that print the recorded output for their arguments.
 */
import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const LISTINGS = new URL('../fixtures/panels/listings/', import.meta.url).pathname;

export const readListingFixture = (path: string) => readFileSync(join(LISTINGS, path), 'utf8');

export interface ModelAccount {
  user: string;
  email: string;
  plan: string;
  suspended: boolean;
  /** listaccts' owner: the reseller who owns the account. Default root (the host's own). */
  owner?: string;
  /** The first is the main domain; then addon and parked ones. */
  domains: { domain: string; type: 'main' | 'addon' | 'parked'; subdomains: string[] }[];
}

const pad = (i: number) => String(i).padStart(3, '0');

/**
 * `accounts` accounts with `domains` domains in all (spread evenly, the first of each its main
 * domain); every fifth account has a `blog` subdomain on its main domain, every fiftieth is suspended.
 */
export function generateAccounts(accounts: number, domains: number): ModelAccount[] {
  return Array.from({ length: accounts }, (_, index) => {
    const i = index + 1;
    const count = Math.floor(domains / accounts) + (index < domains % accounts ? 1 : 0);
    const user = `acct${pad(i)}`;
    return {
      user,
      email: `${user}@mail.example`,
      plan: i % 2 === 0 ? 'business' : 'default',
      suspended: i % 50 === 0,
      domains: Array.from({ length: count }, (_, d) => ({
        domain: d === 0 ? `${user}.example` : `${user}-site${d}.example`,
        type: d === 0 ? ('main' as const) : d % 2 === 1 ? ('addon' as const) : ('parked' as const),
        subdomains: d === 0 && i % 5 === 0 ? ['blog'] : [],
      })),
    };
  });
}

/** whmapi1's listaccts and get_domain_info output for the model, each record a recorded one renamed. */
export function cpanelOutput(model: ModelAccount[]): { listaccts: string; domainInfo: string } {
  const accounts = JSON.parse(readListingFixture('cpanel/listaccts.json')) as {
    data: { acct: Record<string, unknown>[] };
    metadata: unknown;
  };
  const info = JSON.parse(readListingFixture('cpanel/get_domain_info.json')) as {
    data: { domains: Record<string, unknown>[] };
    metadata: unknown;
  };
  const [acct] = accounts.data.acct;
  const [main, addon, parked, sub] = info.data.domains;
  const templates = { main, addon, parked };
  const acct_ = model.map((a) => ({
    ...acct,
    user: a.user,
    domain: a.domains[0]?.domain ?? '',
    email: a.email,
    plan: a.plan,
    suspended: a.suspended ? 1 : 0,
    owner: a.owner ?? 'root',
  }));
  const domains = model.flatMap((a) => {
    const parent = a.domains[0]?.domain ?? '';
    return a.domains.flatMap((d) => [
      { ...templates[d.type], domain: d.domain, user: a.user, parent_domain: parent, docroot: `/home/${a.user}/${d.domain}` },
      ...d.subdomains.map((label) => ({ ...sub, domain: `${label}.${d.domain}`, user: a.user, parent_domain: parent })),
    ]);
  });
  return {
    listaccts: JSON.stringify({ ...accounts, data: { acct: acct_ } }),
    domainInfo: JSON.stringify({ ...info, data: { domains } }),
  };
}

function writeTool(root: string, path: string, script: string): void {
  const at = join(root, path);
  mkdirSync(dirname(at), { recursive: true });
  writeFileSync(at, `#!/bin/sh\n${script}`);
  chmodSync(at, 0o755);
}

/** The feature lists of the recorded packages (listings/cpanel/listpkgs.json). */
const FEATURE_LISTS = ['default', 'business_features', 'starter_features'];

/** A fake whmapi1 printing the given outputs; every call is appended to $root/calls.log. */
export function installFakeWhmapi(
  root: string,
  output: { listaccts: string; domainInfo: string; packages?: Record<string, string> },
): void {
  const out = join(root, 'recorded');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'listaccts.json'), output.listaccts);
  writeFileSync(join(out, 'get_domain_info.json'), output.domainInfo);
  // The packages and their feature lists (protection per package) as recorded, unless the test gives its own.
  for (const name of ['listpkgs', ...FEATURE_LISTS.map((list) => `get_featurelist_data-${list}`)])
    writeFileSync(join(out, `${name}.json`), output.packages?.[name] ?? readListingFixture(`cpanel/${name}.json`));
  writeTool(
    root,
    '/usr/local/cpanel/bin/whmapi1',
    `echo "whmapi1 $*" >> '${root}/calls.log'
[ "$1" = "--output=json" ] || { echo "expected --output=json first" >&2; exit 2; }
case "$2" in
  listaccts) cat '${out}/listaccts.json' ;;
  get_domain_info) cat '${out}/get_domain_info.json' ;;
  listpkgs) cat '${out}/listpkgs.json' ;;
  get_featurelist_data) cat "${out}/get_featurelist_data-\${3#featurelist=}.json" ;;
  *) echo "unknown function $2" >&2; exit 1 ;;
esac
`,
  );
}

/**
 * A fake plesk printing the recorded listings (test/fixtures/panels/listings/plesk/); `plesk db`
 * prints the recorded owners (db-owners.txt), resellers (db-resellers.txt), service plans
 * (db-plans.txt) or subscriptions' plans (db-subscriptions.txt) for the listing's four queries, or fails as a Plesk without its database would (`db: false`).
 */
export function installFakePlesk(root: string, options: { db?: boolean } = {}): void {
  const out = join(root, 'recorded');
  cpSync(join(LISTINGS, 'plesk'), out, { recursive: true });
  const db =
    options.db === false
      ? 'echo "Unable to connect to the database" >&2; exit 1'
      : `case "$3" in *"type = 'reseller'"*) cat '${out}/db-resellers.txt' ;; *PlansSubscriptions*) cat '${out}/db-subscriptions.txt' ;; *"FROM Templates"*) cat '${out}/db-plans.txt' ;; *) cat '${out}/db-owners.txt' ;; esac; exit 0`;
  writeTool(
    root,
    '/usr/sbin/plesk',
    `echo "plesk $*" >> '${root}/calls.log'
if [ "$1 $2" = "db -Ne" ]; then ${db}; fi
case "$2 $3" in
  "customer --list") cat '${out}/customer-list.txt' ;;
  "domain --list") cat '${out}/domain-list.txt' ;;
  "domain --info") [ -f "${out}/domain-info/$4.txt" ] || { echo "Unable to find domain $4" >&2; exit 1; }; cat "${out}/domain-info/$4.txt" ;;
  *) echo "unknown command $2 $3" >&2; exit 1 ;;
esac
`,
  );
}

/** DirectAdmin's user files of the recorded sample, under the root. */
export function installDirectAdminFiles(root: string): void {
  cpSync(join(LISTINGS, 'directadmin/users'), join(root, '/usr/local/directadmin/data/users'), { recursive: true });
}

/** The model as a `wpp import --file` listing. */
export function listingFileOf(model: ModelAccount[]) {
  return {
    panel: 'generated',
    accounts: model.map((a) => ({
      account: a.user,
      email: a.email,
      plan: a.plan,
      suspended: a.suspended,
      domains: a.domains.map((d) => ({ domain: d.domain, subdomains: d.subdomains })),
    })),
  };
}
