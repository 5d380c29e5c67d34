/**
 * Virtualmin's virtual servers, from `virtualmin list-domains --json` (as root): one entry per
 * server, `{name, values}` with every value a list of strings (`type`: "Top-level server",
 * "Sub-server", "Alias"; `username`; `contact_email`; `ip_address` "192.0.2.2 (Shared)";
 * `disabled` present only while the server is disabled). As the hooks do, the account is the
 * top-level server's Unix user and every server of that user (sub-servers and aliases too) is
 * one of its domains.
 *
 * Resellers: the top-level server's `reseller` value (list-domains prints "Reseller: name" only
 * when the server has one, virtualmin-gpl list-domains.pl; --json names the same values in
 * lower case), none meaning the host's own. The resellers themselves come from
 * `virtualmin list-resellers --json` (Virtualmin Pro; GPL has no resellers and no such command,
 * so none are listed), each with its `email` value when it has one.
 *
 * Protection per package (virtualmin-packages.ts): each top-level server's Web Protection
 * feature (Features value, else its record's `wpp=` line) and its plan (by id, `plan_id`); the
 * plans with allowed features of their own from `virtualmin list-plans --json`.
 */
import { z } from 'zod';
import { AppError } from '../../errors.js';
import type { ToolRunner } from '../../install/tools.js';
import type { PanelListingInput } from '../../core/panel-listing.js';
import { contactAddress, virtualminReseller } from '../adapters/virtualmin.js';
import { featuresInclude, parseVirtualminPlans, readRecordProtection, VIRTUALMIN_DOMAINS_DIR } from './virtualmin-packages.js';

export const VIRTUALMIN_CLI = '/usr/sbin/virtualmin';

const values = z.record(z.string(), z.array(z.string()));

const listDomainsSchema = z.object({
  status: z.string(),
  error: z.string().optional(),
  data: z
    .array(z.object({ name: z.string().min(1), values }))
    .optional()
    .default([]),
});

const first = (entry: z.output<typeof values>, key: string) => entry[key]?.[0]?.trim() || undefined;

/** The top-level server's Web Protection feature: on in its Features, else what its record says (by id). */
function serverProtection(entry: z.output<typeof values>, records: ReadonlyMap<string, boolean>): boolean | undefined {
  if (featuresInclude(first(entry, 'features'))) return true;
  const id = first(entry, 'id');
  return id === undefined ? undefined : records.get(id);
}

/**
 * Reads list-domains' JSON into a listing; throws with Virtualmin's reason when it is not one.
 * `records`: the feature as each server's record has it, by id (readRecordProtection).
 */
export function parseVirtualminDomains(text: string, records: ReadonlyMap<string, boolean> = new Map()): PanelListingInput {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AppError('VALIDATION_FAILED', `${VIRTUALMIN_CLI} list-domains --json did not print JSON`);
  }
  const parsed = listDomainsSchema.safeParse(json);
  if (!parsed.success) {
    throw new AppError(
      'VALIDATION_FAILED',
      `${VIRTUALMIN_CLI} list-domains --json printed another shape: ${parsed.error.issues[0]?.message ?? ''}`,
    );
  }
  if (parsed.data.status !== 'success') {
    throw new AppError('VALIDATION_FAILED', `${VIRTUALMIN_CLI} list-domains failed: ${parsed.data.error ?? parsed.data.status}`);
  }
  const accounts = new Map<string, PanelListingInput['accounts'][number]>();
  const accountOf = (user: string) => {
    let account = accounts.get(user);
    if (!account) {
      account = { account: user, domains: [] };
      accounts.set(user, account);
    }
    return account;
  };
  for (const { name, values: entry } of parsed.data.data) {
    const user = first(entry, 'username');
    if (user === undefined) throw new AppError('VALIDATION_FAILED', `virtual server ${name} has no username in list-domains`);
    const account = accountOf(user);
    if (first(entry, 'type') === 'Top-level server') {
      const email = contactAddress(first(entry, 'contact_email'));
      if (email !== undefined) account.email = email;
      account.suspended = first(entry, 'disabled') !== undefined;
      account.reseller = virtualminReseller(first(entry, 'reseller') ?? '');
      const plan = first(entry, 'plan_id');
      if (plan !== undefined) account.plan = plan;
      const protection = serverProtection(entry, records);
      if (protection !== undefined) account.protection = protection;
    }
    const ip = first(entry, 'ip_address')?.split(/\s+/)[0];
    account.domains?.push({ domain: name, ...(ip ? { ip } : {}) });
  }
  return { panel: 'virtualmin', accounts: [...accounts.values()].sort((a, b) => a.account.localeCompare(b.account)) };
}

/** list-resellers' JSON as resellers; none when it is not that JSON (Virtualmin GPL has no resellers). */
export function parseVirtualminResellers(text: string): { name: string; email?: string }[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return [];
  }
  const parsed = listDomainsSchema.safeParse(json);
  if (!parsed.success || parsed.data.status !== 'success') return [];
  return parsed.data.data.map(({ name, values: entry }) => {
    const email = contactAddress(first(entry, 'email'));
    return { name, ...(email ? { email } : {}) };
  });
}

export async function readVirtualminListing(tools: ToolRunner): Promise<PanelListingInput> {
  if (!(await tools.exists(VIRTUALMIN_CLI))) {
    throw new AppError('NOT_FOUND', `${tools.at(VIRTUALMIN_CLI)} is not there: is this a Virtualmin server?`);
  }
  const result = await tools.check(VIRTUALMIN_CLI, ['list-domains', '--json']);
  const listing = parseVirtualminDomains(result.stdout, await readRecordProtection(tools.at(VIRTUALMIN_DOMAINS_DIR)));
  const resellers = await tools.check(VIRTUALMIN_CLI, ['list-resellers', '--json']).catch(() => null);
  const plans = await tools.check(VIRTUALMIN_CLI, ['list-plans', '--json']).catch(() => null);
  return {
    ...listing,
    resellers: resellers === null ? [] : parseVirtualminResellers(resellers.stdout),
    // Not read (the call failed): the listing names no packages, rather than none at all.
    ...(plans === null ? {} : { packages: parseVirtualminPlans(plans.stdout) }),
  };
}
