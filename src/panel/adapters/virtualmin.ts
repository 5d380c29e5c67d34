/**
 * Virtualmin's pre/post change command -> panel events. Virtualmin runs the command once per
 * virtual server changed, with the server's record as VIRTUALSERVER_<FIELD> variables and
 * VIRTUALSERVER_ACTION saying what happened (seen on the real Virtualmin GPL 8.1.0):
 * CREATE_DOMAIN, MODIFY_DOMAIN, DELETE_DOMAIN, DISABLE_DOMAIN, ENABLE_DOMAIN.
 *
 * - The account is the top-level server's Unix user: VIRTUALSERVER_USER, which a sub-server
 *   and an alias carry too (they belong to the same user).
 * - Sub-servers and aliases are websites of that account. Which a server is comes from
 *   VIRTUALSERVER_PARENT / VIRTUALSERVER_ALIAS being non-empty (ids of the parent / target),
 *   never from PARENT_VIRTUALSERVER_* or ALIAS_VIRTUALSERVER_* being present: those leak into
 *   later calls of one cascaded delete, and the caller's whole environment is passed on.
 * - A rename is a MODIFY_DOMAIN with the old record as VIRTUALSERVER_OLDSERVER_* in the post
 *   phase (VIRTUALSERVER_NEWSERVER_* in the pre phase): a new domain name in _DOM, a new Unix
 *   user (`modify-domain --user`) in _USER. A user rename calls the command for the top-level
 *   server only; its sub-servers and aliases take the new user without a call of their own.
 * - A disable records in VIRTUALSERVER_DISABLED the features it really disabled; empty means
 *   Virtualmin keeps the server enabled (enable-domain then refuses it), so nothing was suspended.
 * - Only the post phase acts: a failing pre command aborts the user's action, and before the
 *   change there is nothing to protect yet.
 * - Protection per package: wpp is a Virtualmin feature ("Web Protection", virtual_feature.pl's
 *   feature_setup), ticked per top-level server and chosen for new servers by the plan's allowed
 *   features and the template's defaults. Virtualmin keeps a feature plugin's state in the record
 *   under its module name (create-domain.pl: `$dom{$plugin} = 1 or 0`), so the change command
 *   gets VIRTUALSERVER_WPP (set_domain_envs upper-cases every key; read in the GPL 8.1.0 sources,
 *   not captured: the captured records predate the feature and have no such field, which says
 *   nothing). disable-feature / enable-feature run the command as a MODIFY_DOMAIN (disable-feature
 *   without the old record); modify-domain with it (VIRTUALSERVER_OLDSERVER_WPP, _PLAN).
 */
import { z } from 'zod';
import { eventIdOf, type PanelEventDraft } from '../events.js';
import { failure, finishDrafts, nothingToDo, text, type AdapterResult, type SourcedDraft } from './result.js';

export const VIRTUALMIN_ACTIONS = ['CREATE_DOMAIN', 'MODIFY_DOMAIN', 'DELETE_DOMAIN', 'DISABLE_DOMAIN', 'ENABLE_DOMAIN'] as const;

/** Every variable this adapter reads: the launcher passes these (and only these) to `hook virtualmin`. */
export const VIRTUALMIN_VARIABLES = [
  'VIRTUALSERVER_ACTION',
  'VIRTUALSERVER_DOM',
  'VIRTUALSERVER_USER',
  'VIRTUALSERVER_PARENT',
  'VIRTUALSERVER_ALIAS',
  'VIRTUALSERVER_EMAILTO',
  'VIRTUALSERVER_EMAIL',
  'VIRTUALSERVER_IP',
  'VIRTUALSERVER_OLDSERVER_DOM',
  'VIRTUALSERVER_NEWSERVER_DOM',
  'VIRTUALSERVER_OLDSERVER_USER',
  'VIRTUALSERVER_DISABLED',
  'VIRTUALSERVER_LASTSAVE',
  'VIRTUALSERVER_RESELLER',
  'VIRTUALSERVER_OLDSERVER_RESELLER',
  'VIRTUALSERVER_WPP',
  'VIRTUALSERVER_OLDSERVER_WPP',
  'VIRTUALSERVER_PLAN',
  'VIRTUALSERVER_OLDSERVER_PLAN',
] as const;

export type VirtualminPhase = 'pre' | 'post';

/** Present-and-non-empty text; Virtualmin writes an unset field as an empty variable. */
const field = z.preprocess((value) => text(value), z.string().max(255).optional());

const envSchema = z.object({
  VIRTUALSERVER_ACTION: z.preprocess((value) => text(value), z.enum(VIRTUALMIN_ACTIONS, `must be one of ${VIRTUALMIN_ACTIONS.join(', ')}`)),
  VIRTUALSERVER_DOM: field,
  VIRTUALSERVER_USER: field,
  VIRTUALSERVER_PARENT: field,
  VIRTUALSERVER_ALIAS: field,
  VIRTUALSERVER_EMAILTO: field,
  VIRTUALSERVER_EMAIL: field,
  VIRTUALSERVER_IP: field,
  VIRTUALSERVER_OLDSERVER_DOM: field,
  VIRTUALSERVER_NEWSERVER_DOM: field,
  VIRTUALSERVER_OLDSERVER_USER: field,
  // Kept as given: empty (nothing disabled) means something else than absent (a launcher that does not pass it).
  VIRTUALSERVER_DISABLED: z.string().trim().max(1000).optional(),
  // The server's reseller(s) (`reseller` of the record, as list-domains --multiline prints it: "Reseller: name").
  // Kept as given: empty (no reseller, the host's own) means something else than absent (not passed).
  VIRTUALSERVER_RESELLER: z.string().trim().max(1000).optional(),
  VIRTUALSERVER_OLDSERVER_RESELLER: z.string().trim().max(1000).optional(),
  // The Web Protection feature (1 or 0) and the plan's id, now and (modify-domain) before.
  VIRTUALSERVER_WPP: field,
  VIRTUALSERVER_OLDSERVER_WPP: field,
  VIRTUALSERVER_PLAN: field,
  VIRTUALSERVER_OLDSERVER_PLAN: field,
  // When Virtualmin saved the record (Unix seconds): which change this call is about. Only an id
  // hint: a malformed value falls back to the id derived from the minute (withChangeId).
  VIRTUALSERVER_LASTSAVE: z
    .preprocess(
      (value) => text(value),
      z
        .string()
        .regex(/^\d{1,12}$/)
        .optional(),
    )
    .catch(undefined),
});

type VirtualServer = z.output<typeof envSchema>;
type Kind = 'top-level server' | 'sub-server' | 'alias';

const kindOf = (env: VirtualServer): Kind =>
  env.VIRTUALSERVER_ALIAS !== undefined ? 'alias' : env.VIRTUALSERVER_PARENT !== undefined ? 'sub-server' : 'top-level server';

const ACCOUNT = { account: 'VIRTUALSERVER_USER' };

/**
 * The contact address, when it is one: a server created without one gets `<user>@<hostname>`
 * (seen: "second@vm"), which is no address to write to and must not fail the account's creation.
 */
export function contactAddress(...candidates: (string | undefined)[]): string | undefined {
  return candidates.find((value) => value !== undefined && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value));
}

function website(
  env: VirtualServer,
  type: 'domain.added' | 'domain.removed',
  domain = env.VIRTUALSERVER_DOM,
  from = 'VIRTUALSERVER_DOM',
): SourcedDraft {
  return {
    draft: {
      type,
      account: env.VIRTUALSERVER_USER as string,
      domain,
      ...(type === 'domain.added' && env.VIRTUALSERVER_IP !== undefined ? { ip: env.VIRTUALSERVER_IP } : {}),
    },
    from: { ...ACCOUNT, domain: from, ip: 'VIRTUALSERVER_IP' },
  };
}

function accountOnly(env: VirtualServer, type: 'account.deleted' | 'account.suspended' | 'account.unsuspended'): SourcedDraft {
  return { draft: { type, account: env.VIRTUALSERVER_USER as string }, from: ACCOUNT };
}

function websiteOnly(env: VirtualServer, type: 'domain.suspended' | 'domain.unsuspended'): SourcedDraft {
  return {
    draft: { type, account: env.VIRTUALSERVER_USER as string, domain: env.VIRTUALSERVER_DOM },
    from: { ...ACCOUNT, domain: 'VIRTUALSERVER_DOM' },
  };
}

/**
 * The reseller who owns the server. Virtualmin passes every field of the server's record to the
 * change command as VIRTUALSERVER_<FIELD> (set_domain_envs in virtual-server-lib-funcs.pl:
 * the upper-cased key), so the record's `reseller` (list-domains.pl prints it as "Reseller: ..."
 * and filters with --reseller on it) arrives as VIRTUALSERVER_RESELLER; the environments
 * captured from GPL 8.1.0 carry it, empty (GPL has no resellers), and the old record's as
 * VIRTUALSERVER_OLDSERVER_RESELLER on a modify. It may name several resellers, space-separated
 * (can_edit_domain and list-domains.pl split it on whitespace): the first owns the account
 * here. Empty: no reseller, the host's own (null); absent: not said.
 */
export function virtualminReseller(raw: string | undefined): string | null | undefined {
  if (raw === undefined) return undefined;
  return raw.split(/\s+/).find((name) => name !== '') ?? null;
}

/** A top-level server handed to another reseller (modify-domain --reseller): when the old record's reseller differs, or is not given. */
function transferDraft(env: VirtualServer): SourcedDraft[] {
  const now = virtualminReseller(env.VIRTUALSERVER_RESELLER);
  if (now === undefined) return [];
  const before = virtualminReseller(env.VIRTUALSERVER_OLDSERVER_RESELLER);
  if (before !== undefined && before?.toLowerCase() === now?.toLowerCase()) return [];
  return [
    {
      draft: { type: 'account.transferred', account: env.VIRTUALSERVER_USER as string, reseller: now },
      from: { ...ACCOUNT, reseller: 'VIRTUALSERVER_RESELLER' },
    },
  ];
}

/**
 * Whether the server has the Web Protection feature: "1" yes, "0" no; absent or anything else,
 * not said (a record made before wpp was a feature has no field, and must not read as "no").
 */
export function virtualminProtection(raw: string | undefined): boolean | undefined {
  return raw === '1' ? true : raw === '0' ? false : undefined;
}

/**
 * A top-level server whose feature was toggled or which got another plan: a plan.changed saying
 * the protection it has now. Without the old record (disable-feature), said again: core acts
 * only on a change. The package is named by the plan's id (VIRTUALSERVER_PLAN: the record keeps
 * no plan name), as the listing names it too, so the two meet on the Settings page.
 */
function protectionDraft(env: VirtualServer): SourcedDraft[] {
  const protection = virtualminProtection(env.VIRTUALSERVER_WPP);
  if (protection === undefined) return [];
  // A server from before wpp was a feature, saved with the box left as the form showed it (off): no decision, nothing said.
  const fieldNew = env.VIRTUALSERVER_OLDSERVER_DOM !== undefined && virtualminProtection(env.VIRTUALSERVER_OLDSERVER_WPP) === undefined;
  if (fieldNew && !protection) return [];
  const samePlan = env.VIRTUALSERVER_OLDSERVER_PLAN !== undefined && env.VIRTUALSERVER_OLDSERVER_PLAN === env.VIRTUALSERVER_PLAN;
  if (samePlan && virtualminProtection(env.VIRTUALSERVER_OLDSERVER_WPP) === protection) return [];
  return [
    {
      draft: { type: 'plan.changed', account: env.VIRTUALSERVER_USER as string, plan: env.VIRTUALSERVER_PLAN ?? 'default', protection },
      from: { ...ACCOUNT, plan: 'VIRTUALSERVER_PLAN' },
    },
  ];
}

/** The top-level server's Unix user renamed (`modify-domain --user`): the old name, when it really changed. */
function previousUser(env: VirtualServer, top: boolean): string | undefined {
  const old = env.VIRTUALSERVER_OLDSERVER_USER;
  // A sub-server or alias has its parent's user: the top-level server's own call renames the account.
  if (!top || old === undefined || env.VIRTUALSERVER_USER === undefined) return undefined;
  return old.toLowerCase() === env.VIRTUALSERVER_USER.toLowerCase() ? undefined : old;
}

/**
 * The event's id from the change it reports: the record's save time (VIRTUALSERVER_LASTSAVE)
 * instead of the minute the hook ran. The same change reported twice (a command chained twice)
 * is still one event, but a server disabled, enabled and disabled again within one minute is
 * two disables (seen in the real-panel suite: the second was dropped as already queued, and the
 * account stayed active while Virtualmin had it disabled). Every field of the event counts too:
 * the save time is to the second, and disable-feature then enable-feature on a fast machine
 * save within one; with only type and account in the id, the enable's plan.changed was taken
 * for a replay of the disable's and dropped, and the websites stayed paused (seen in a
 * fresh-clone run of the real-panel suite). Without the variable, the derived id.
 */
function withChangeId(draft: PanelEventDraft, lastSave: string | undefined): PanelEventDraft {
  if (lastSave === undefined) return draft;
  return { ...draft, id: eventIdOf('virtualmin', draft, `lastsave:${lastSave}`) };
}

export function translateVirtualminHook(phase: VirtualminPhase, raw: Record<string, string | undefined>, now?: Date): AdapterResult {
  const label = `Virtualmin ${text(raw.VIRTUALSERVER_ACTION) ?? 'change'}`;
  // A rename's pre phase is the only one Virtualmin marks (NEWSERVER_*); the phase argument says it for the rest.
  if (phase === 'pre' || text(raw.VIRTUALSERVER_NEWSERVER_DOM) !== undefined) {
    return nothingToDo(`${label}: pre-change command, nothing to do: wpp acts after the change (post_command)`);
  }
  const parsed = envSchema.safeParse(raw);
  if (!parsed.success) {
    const details = parsed.error.issues.map((issue) => ({ path: issue.path.join('.') || 'environment', message: issue.message }));
    return failure(`Virtualmin change command: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`, details);
  }
  const env = parsed.data;
  const kind = kindOf(env);
  const top = kind === 'top-level server';
  const named = `${label} (${kind} ${env.VIRTUALSERVER_DOM ?? '?'})`;
  let drafts: SourcedDraft[];
  switch (env.VIRTUALSERVER_ACTION) {
    case 'CREATE_DOMAIN':
      drafts = top
        ? [
            {
              draft: {
                type: 'account.created',
                account: env.VIRTUALSERVER_USER as string,
                email: contactAddress(env.VIRTUALSERVER_EMAILTO, env.VIRTUALSERVER_EMAIL),
                reseller: virtualminReseller(env.VIRTUALSERVER_RESELLER),
                protection: virtualminProtection(env.VIRTUALSERVER_WPP),
              },
              from: { ...ACCOUNT, email: 'VIRTUALSERVER_EMAILTO', reseller: 'VIRTUALSERVER_RESELLER' },
            },
            website(env, 'domain.added'),
          ]
        : [website(env, 'domain.added')];
      break;
    case 'DELETE_DOMAIN':
      // Virtualmin deletes a top-level server's sub-servers and aliases first, each with its own call.
      drafts = [top ? accountOnly(env, 'account.deleted') : website(env, 'domain.removed')];
      break;
    case 'DISABLE_DOMAIN':
    case 'ENABLE_DOMAIN': {
      const disable = env.VIRTUALSERVER_ACTION === 'DISABLE_DOMAIN';
      if (disable && env.VIRTUALSERVER_DISABLED === '') {
        // Seen on 8.1.0 for a server with no feature it can disable: the record stays enabled and
        // enable-domain refuses it, so a website paused here would never be resumed.
        return nothingToDo(`${named}: nothing was disabled (VIRTUALSERVER_DISABLED is empty), Virtualmin keeps the server enabled`);
      }
      // A top-level server is the account; a sub-server or alias is one website of it, suspended on its own.
      drafts = top
        ? [accountOnly(env, disable ? 'account.suspended' : 'account.unsuspended')]
        : [websiteOnly(env, disable ? 'domain.suspended' : 'domain.unsuspended')];
      break;
    }
    case 'MODIFY_DOMAIN': {
      const previous = previousUser(env, top);
      const old = env.VIRTUALSERVER_OLDSERVER_DOM;
      const renamedDomain =
        old !== undefined && env.VIRTUALSERVER_DOM !== undefined && old.toLowerCase() !== env.VIRTUALSERVER_DOM.toLowerCase();
      const transfer = top ? transferDraft(env) : [];
      const protection = top ? protectionDraft(env) : [];
      if (previous === undefined && !renamedDomain && transfer.length === 0 && protection.length === 0)
        return nothingToDo(`${named}: name unchanged, no new reseller, plan and feature as they were, nothing to do`);
      drafts = [];
      // The account first: the domain events below are under its new name.
      if (previous !== undefined) {
        drafts.push({
          draft: { type: 'account.renamed', account: env.VIRTUALSERVER_USER as string, previousAccount: previous },
          from: { ...ACCOUNT, previousAccount: 'VIRTUALSERVER_OLDSERVER_USER' },
        });
      }
      drafts.push(...transfer, ...protection);
      // The new name first: the customer is never left without protection between the two.
      if (renamedDomain) drafts.push(website(env, 'domain.added'), website(env, 'domain.removed', old, 'VIRTUALSERVER_OLDSERVER_DOM'));
      break;
    }
  }
  const lastSave = env.VIRTUALSERVER_LASTSAVE;
  return finishDrafts(
    'virtualmin',
    named,
    drafts.map(({ draft, from }) => ({ draft: withChangeId(draft, lastSave), from })),
    now,
  );
}
