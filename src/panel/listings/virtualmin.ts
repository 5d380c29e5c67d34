/**
 * Virtualmin's virtual servers, from `virtualmin list-domains --json` (as root): one entry per
 * server, `{name, values}` with every value a list of strings (`type`: "Top-level server",
 * "Sub-server", "Alias"; `username`; `contact_email`; `ip_address` "192.0.2.2 (Shared)";
 * `disabled` present only while the server is disabled). As the hooks do, the account is the
 * top-level server's Unix user and every server of that user (sub-servers and aliases too) is
 * one of its domains.
 */
import { z } from 'zod';
import { AppError } from '../../errors.js';
import type { ToolRunner } from '../../install/tools.js';
import type { PanelListingInput } from '../../core/panel-listing.js';
import { contactAddress } from '../adapters/virtualmin.js';

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

/** Reads list-domains' JSON into a listing; throws with Virtualmin's reason when it is not one. */
export function parseVirtualminDomains(text: string): PanelListingInput {
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
    }
    const ip = first(entry, 'ip_address')?.split(/\s+/)[0];
    account.domains?.push({ domain: name, ...(ip ? { ip } : {}) });
  }
  return { panel: 'virtualmin', accounts: [...accounts.values()].sort((a, b) => a.account.localeCompare(b.account)) };
}

export async function readVirtualminListing(tools: ToolRunner): Promise<PanelListingInput> {
  if (!(await tools.exists(VIRTUALMIN_CLI))) {
    throw new AppError('NOT_FOUND', `${tools.at(VIRTUALMIN_CLI)} is not there: is this a Virtualmin server?`);
  }
  const result = await tools.check(VIRTUALMIN_CLI, ['list-domains', '--json']);
  return parseVirtualminDomains(result.stdout);
}
