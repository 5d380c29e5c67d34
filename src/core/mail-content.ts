/**
 * What each mail says (issue 22): the payload an `email.send` job stores (data only: names,
 * dates, counts; never a secret) and its rendering, at send time, in the reader's language,
 * as plain text and HTML from the same lines. Written in code rather than templates: every
 * mail is a title, paragraphs, lists and a link, so one small renderer keeps the text and the
 * HTML part saying the same thing, and every word comes from the catalogs (locales/, `mail.*`).
 */
import { z } from 'zod';
import type { Format } from './format.js';
import type { Translate } from './i18n.js';
import { SUPPORTED_LOCALES } from './locale.js';

/** Who a mail is for: each audience's kinds are switched off separately (core/mail-settings.ts). */
export const MAIL_AUDIENCES = ['customer', 'reseller', 'admin'] as const;
export type MailAudience = (typeof MAIL_AUDIENCES)[number];
/** What a customer (and, in the digest, a reseller) is told of. */
export const WEBSITE_MAIL_KINDS = ['approaching', 'paused', 'resumed', 'protecting'] as const;
export type WebsiteMailKind = (typeof WEBSITE_MAIL_KINDS)[number];

export const websiteEventSchema = z.object({
  kind: z.enum(WEBSITE_MAIL_KINDS),
  account: z.string().min(1),
  /** Null: an account-wide warning (the account's pooled limit). */
  domain: z.string().min(1).nullable(),
  at: z.number(),
  usage: z.number().nullable().optional(),
  limit: z.number().nullable().optional(),
  periodEnd: z.number().nullable().optional(),
  forecastAt: z.number().nullable().optional(),
  /**
   * Of the account's reseller's pool (a `reseller_warning` or `reseller_limit`): the pool is all
   * the reseller's customers' hits together, so a customer's event carries only the share used
   * (usage and limit left out: they are other customers' hits too); the reseller's digest keeps them.
   */
  pool: z.object({ percent: z.number().int().min(0) }).optional(),
  /** The host's upgrade page for this account and website (WPP_UPGRADE_URL filled in). */
  upgradeUrl: z
    .url({ protocol: /^https?$/ })
    .nullable()
    .optional(),
});
export type WebsiteEvent = z.output<typeof websiteEventSchema>;

const line = z.string().max(2000);
export const adminDigestSchema = z.object({
  since: z.number(),
  until: z.number(),
  websitesInError: z.array(z.object({ domain: z.string(), account: z.string(), error: line })),
  deadJobs: z.array(z.object({ id: z.number(), kind: z.string(), domain: z.string().nullable(), error: line })),
  pauses: z.array(z.object({ domain: z.string(), account: z.string(), at: z.number() })),
  drift: z.array(z.object({ panel: z.string(), at: z.number(), total: z.number() })),
  failedRuns: z.array(z.object({ name: z.string(), at: z.number(), error: line })),
  providerAnsweredAt: z.number().nullable(),
});
export type AdminDigest = z.output<typeof adminDigestSchema>;

export const mailMessageSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('website'), event: websiteEventSchema }),
  z.object({ kind: z.literal('reseller_digest'), reseller: z.string().min(1), events: z.array(websiteEventSchema).min(1) }),
  z.object({ kind: z.literal('admin_digest'), digest: adminDigestSchema }),
]);
export type MailMessage = z.output<typeof mailMessageSchema>;

/** An `email.send` job's payload: whom, in which language, what (rendered when sent), and its mail_log row. */
export const mailJobSchema = z.object({
  logId: z.number().int(),
  to: z.email(),
  locale: z.enum(SUPPORTED_LOCALES),
  audience: z.enum(MAIL_AUDIENCES),
  message: mailMessageSchema,
});
export type MailJob = z.output<typeof mailJobSchema>;

/** A rendered mail, ready for SMTP. */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** A mail's blocks: paragraphs, headed lists and a link, rendered alike as text and HTML. */
type Block = { p: string } | { heading: string; items: string[]; empty?: string } | { link: string; label: string };

export interface MailLanguage {
  t: Translate;
  format: Format;
  /** WPP_HOST_NAME or the machine's full name; undefined: "your hosting provider" in the mail's language. */
  hostName: string | undefined;
}

/** Renders a stored mail in its reader's language. */
export function renderMail(message: MailMessage, language: MailLanguage): RenderedMail {
  const { t } = language;
  const host = language.hostName ?? t('mail.hostFallback');
  const { subject, blocks, greeting, footer } = composeMail(message, language, host);
  const all: Block[] = [{ p: greeting }, ...blocks, { p: `${t('mail.signature')}\n${host}` }];
  return {
    subject,
    text: `${all.map(blockText).join('\n\n')}\n\n-- \n${footer}\n`,
    html: htmlPage(subject, all, footer, language.format.locale),
  };
}

function composeMail(message: MailMessage, language: MailLanguage, host: string) {
  const { t, format } = language;
  if (message.kind === 'website') {
    const { subject, blocks } = websiteMail(message.event, language, host);
    return { subject, blocks, greeting: t('mail.greeting'), footer: t('mail.footer', { host }) };
  }
  if (message.kind === 'reseller_digest') {
    const items = message.events.map((event) => `${format.dayTime(event.at)}: ${digestLine(event, language)}`);
    return {
      subject: t('mail.resellerDigest.subject', { host }),
      blocks: [{ p: t('mail.resellerDigest.intro', { count: items.length }) }, { heading: '', items }],
      greeting: t('mail.greetingReseller', { reseller: message.reseller }),
      footer: t('mail.footerReseller', { host }),
    };
  }
  return {
    subject: t('mail.adminDigest.subject', { host }),
    blocks: adminDigestBlocks(message.digest, language),
    greeting: t('mail.greeting'),
    footer: t('mail.footerAdmin'),
  };
}

function websiteMail(event: WebsiteEvent, language: MailLanguage, host: string): { subject: string; blocks: Block[] } {
  const { t, format, hostName } = language;
  if (event.pool && (event.kind === 'approaching' || event.kind === 'paused')) return poolMail(event, event.pool, language, host);
  // Without WPP_HOST_NAME the host is "your hosting provider", whose case a language may change within a sentence.
  const hostNamed = hostName !== undefined;
  const domain = event.domain ?? event.account;
  const usage: Block[] =
    event.usage != null && event.limit != null && event.periodEnd != null
      ? [
          {
            p: t('mail.limitLine', {
              usage: format.number(event.usage),
              limit: format.number(event.limit),
              periodEnd: format.lastDay(event.periodEnd),
            }),
          },
        ]
      : [];
  switch (event.kind) {
    case 'approaching': {
      const account = event.domain === null;
      const forecast =
        event.forecastAt == null
          ? t('mail.approaching.noForecast')
          : t('mail.approaching.forecast', { when: format.dayTime(event.forecastAt) });
      return {
        subject: account ? t('mail.approaching.subjectAccount', { account: event.account }) : t('mail.approaching.subject', { domain }),
        blocks: [
          { p: account ? t('mail.approaching.bodyAccount', { account: event.account }) : t('mail.approaching.body', { domain }) },
          ...usage,
          { p: forecast },
          { p: t('mail.approaching.consequence') },
        ],
      };
    }
    case 'paused': {
      const until: Block[] = event.periodEnd != null ? [{ p: t('mail.paused.until', { until: format.date(event.periodEnd) }) }] : [];
      const next: Block = event.upgradeUrl
        ? { link: event.upgradeUrl, label: t('mail.paused.upgrade') }
        : { p: hostNamed ? t('mail.paused.contact', { host }) : t('mail.paused.contactNoName') };
      return {
        subject: t('mail.paused.subject', { domain }),
        blocks: [{ p: t('mail.paused.body', { domain }) }, ...usage, ...until, next],
      };
    }
    case 'resumed':
      return { subject: t('mail.resumed.subject', { domain }), blocks: [{ p: t('mail.resumed.body', { domain }) }] };
    case 'protecting':
      return { subject: t('mail.protecting.subject', { domain }), blocks: [{ p: t('mail.protecting.body', { domain }) }] };
  }
}

/**
 * A customer's mail of the reseller's pool: that their websites share an allowance, how much
 * of it is used, and what follows; never the pool's hits or limit (other customers' hits). No
 * forecast (enforcement makes none of a pool) and no date: the pool's period need not be the
 * account's, whose end the event carries.
 */
function poolMail(event: WebsiteEvent, pool: { percent: number }, { t, format, hostName }: MailLanguage, host: string) {
  const values = { account: event.account, domain: event.domain ?? event.account, host };
  const named = hostName !== undefined ? '' : 'NoName';
  const next: Block = event.upgradeUrl
    ? { link: event.upgradeUrl, label: t('mail.paused.upgrade') }
    : { p: hostName !== undefined ? t('mail.paused.contact', { host }) : t('mail.paused.contactNoName') };
  if (event.kind === 'approaching')
    return {
      subject: t('mail.pool.approaching.subject'),
      blocks: [
        { p: t(`mail.pool.approaching.body${named}`, values) },
        { p: t('mail.pool.approaching.used', { percent: format.number(Math.min(pool.percent, 100)) }) },
        { p: t('mail.pool.approaching.consequence') },
      ],
    };
  return {
    subject: t('mail.paused.subject', values),
    blocks: [{ p: t(`mail.pool.paused.body${named}`, values) }, { p: t('mail.pool.paused.until') }, next],
  };
}

function digestLine(event: WebsiteEvent, { t, format }: MailLanguage): string {
  const values = { domain: event.domain ?? event.account, account: event.account };
  // The reseller's own pool: its figures are the reseller's to read.
  if (event.pool && event.usage != null && event.limit != null && (event.kind === 'approaching' || event.kind === 'paused'))
    return t(event.kind === 'approaching' ? 'mail.resellerDigest.poolApproaching' : 'mail.resellerDigest.poolPaused', {
      ...values,
      usage: format.number(event.usage),
      limit: format.number(event.limit),
    });
  if (event.kind === 'approaching')
    return event.forecastAt == null
      ? t('mail.resellerDigest.approachingNoForecast', values)
      : t('mail.resellerDigest.approaching', { ...values, when: format.dayTime(event.forecastAt) });
  if (event.kind === 'paused')
    return t('mail.resellerDigest.paused', { ...values, until: event.periodEnd == null ? '–' : format.date(event.periodEnd) });
  return t(`mail.resellerDigest.${event.kind}`, values);
}

function adminDigestBlocks(digest: AdminDigest, { t, format }: MailLanguage): Block[] {
  const nothing = t('mail.adminDigest.nothing');
  const section = (heading: string, items: string[]): Block => ({ heading, items, empty: nothing });
  return [
    { p: t('mail.adminDigest.intro', { until: format.dateTime(digest.until) }) },
    section(
      t('mail.adminDigest.websitesInError'),
      digest.websitesInError.map((w) => t('mail.adminDigest.websiteInError', w)),
    ),
    section(
      t('mail.adminDigest.deadJobs'),
      digest.deadJobs.map((job) => t('mail.adminDigest.deadJob', { ...job, domain: job.domain ? ` (${job.domain})` : '' })),
    ),
    section(
      t('mail.adminDigest.pauses'),
      digest.pauses.map((pause) => t('mail.adminDigest.pause', { ...pause, when: format.dateTime(pause.at) })),
    ),
    section(
      t('mail.adminDigest.drift'),
      digest.drift.map((drift) => t('mail.adminDigest.driftLine', { ...drift, when: format.dateTime(drift.at) })),
    ),
    section(t('mail.adminDigest.trouble'), [
      ...digest.failedRuns.map((run) => t('mail.adminDigest.failedRun', { ...run, when: format.dateTime(run.at) })),
      digest.providerAnsweredAt === null
        ? t('mail.adminDigest.providerNever')
        : t('mail.adminDigest.providerAnswered', { when: format.ago(digest.providerAnsweredAt, digest.until) }),
    ]),
  ];
}

function blockText(block: Block): string {
  if ('p' in block) return block.p;
  if ('link' in block) return `${block.label}\n${block.link}`;
  const items = block.items.length > 0 ? block.items.map((item) => `- ${item}`) : [block.empty ?? ''];
  return [...(block.heading ? [block.heading] : []), ...items].join('\n');
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

function blockHtml(block: Block): string {
  if ('p' in block) return `<p>${escapeHtml(block.p).replaceAll('\n', '<br>')}</p>`;
  if ('link' in block) return `<p>${escapeHtml(block.label)}<br><a href="${escapeHtml(block.link)}">${escapeHtml(block.link)}</a></p>`;
  const heading = block.heading ? `<h2 style="font-size:16px;margin:20px 0 6px">${escapeHtml(block.heading)}</h2>` : '';
  const list =
    block.items.length > 0
      ? `<ul>${block.items.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>`
      : `<p>${escapeHtml(block.empty ?? '')}</p>`;
  return heading + list;
}

/** One HTML document with inline styles (mail clients drop style sheets), readable without them. */
function htmlPage(subject: string, blocks: Block[], footer: string, locale: string): string {
  return [
    `<!doctype html><html lang="${escapeHtml(locale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">`,
    `<title>${escapeHtml(subject)}</title></head>`,
    '<body style="margin:0;padding:24px;background:#f4f5f7;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1d2330;line-height:1.5">',
    '<main style="max-width:600px;margin:0 auto;background:#ffffff;border-radius:8px;padding:24px 28px">',
    `<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(subject)}</h1>`,
    blocks.map(blockHtml).join('\n'),
    '</main>',
    `<footer style="max-width:600px;margin:16px auto 0;font-size:13px;color:#4a5263">${escapeHtml(footer)}</footer>`,
    '</body></html>',
  ].join('\n');
}
