/**
 * The owner of a Plesk domain, for the event handlers whose events do not name it.
 *
 * `plesk bin domain --info <domain>` prints a "General" block with the line
 *   Owner's contact name:                   Jane Doe (jdoe)
 * (the contact name, then the owner's login in parentheses; "Administrator (admin)" for the
 * administrator's own subscriptions), as public tools that read it show. The login is the
 * account the plugin knows from client_create's NEW_LOGIN_NAME.
 */
import { failure, nothingToDo, type AdapterResult } from './adapters/result.js';
import { pleskOwnerQuestion, translatePleskEvent } from './adapters/plesk.js';
import type { ToolRunner } from '../install/tools.js';

/** The Plesk command-line entry point, by the path Plesk installs it at. */
export const PLESK_TOOL = '/usr/sbin/plesk';

/** The owner's login from `domain --info` output, or undefined when the output has no owner line. */
export function ownerFromDomainInfo(info: string): string | undefined {
  const line = info.split(/\r?\n/).find((l) => /^\s*Owner's contact name\s*:/i.test(l));
  // The last parenthesised group: a contact name may hold parentheses itself ("Doe (Ltd) (jdoe)").
  const login = line?.match(/\(([^()\s]+)\)\s*$/)?.[1];
  return login === undefined || login === '' ? undefined : login;
}

/** Asks Plesk who owns `domain`; throws with a message an administrator can act on. */
export async function askPleskForOwner(tools: ToolRunner, domain: string): Promise<string> {
  const result = await tools.check(PLESK_TOOL, ['bin', 'domain', '--info', domain], { timeoutMs: 30_000 });
  const owner = ownerFromDomainInfo(result.stdout);
  if (owner === undefined)
    throw new Error(`${PLESK_TOOL} bin domain --info ${domain} printed no "Owner's contact name: Name (login)" line`);
  return owner;
}

export interface PleskOwnerSources {
  /** Runs /usr/sbin/plesk: the real one ('/') in production, a fake one below a test root in tests. */
  tools: ToolRunner;
  /** The account the plugin has a website under, for removals (Plesk no longer knows the domain). */
  websiteAccount(domain: string): string | undefined;
}

/**
 * What `wpp hook plesk <event>` queues: the adapter's translation, with the owner found first
 * where the event needs one. A removal of a domain the plugin does not protect is nothing to do.
 */
export async function translatePleskHook(
  event: string,
  env: Record<string, string | undefined>,
  sources: PleskOwnerSources,
  now?: Date,
): Promise<AdapterResult> {
  const question = pleskOwnerQuestion(event, env);
  if (question === undefined) return translatePleskEvent(event, env, now);
  if (question.removal) {
    const account = sources.websiteAccount(question.domain);
    if (account === undefined) return nothingToDo(`Plesk ${event}: ignored: ${question.domain} is not a website wpp protects`);
    return translatePleskEvent(event, env, now, account);
  }
  let owner: string;
  try {
    owner = await askPleskForOwner(sources.tools, question.domain);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return failure(`Plesk ${event}: could not find the owner of ${question.domain}: ${message}`, [
      { path: 'owner', message: 'plesk bin domain --info did not name the owner' },
    ]);
  }
  return translatePleskEvent(event, env, now, owner);
}
