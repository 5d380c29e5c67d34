/**
 * The words people read for the provider's settings: one label and one line of help for each
 * visitor category, policy, rule set, load balancer switch and address field. The one source
 * of these words: the customer's settings form, the admin's plan defaults, the validation
 * messages and the provider's own rules editor (the sandbox's dashboard) all name a setting
 * with them, so a customer who moves between the panel and the editor reads the same thing.
 * It lives with the API's vocabulary (spec.ts) because it words that vocabulary; it imports
 * nothing, so every area may use it.
 */
import type { CertsIssuer, LoadbalancerFlag, RuleCategory, RulePolicy, Ruleset } from './spec.js';

export interface SettingWords {
  label: string;
  help: string;
}

/** The kinds of visitor a rule applies to (`settings.rules.<category>`). */
export const CATEGORY_WORDS: Record<RuleCategory, SettingWords> = {
  humans: { label: 'People', help: 'Visitors using an ordinary web browser.' },
  search_engines: { label: 'Search engines', help: 'Google, Bing and the other crawlers that list your website.' },
  social_networks: { label: 'Social networks', help: 'The previews fetched when someone shares a link to your website.' },
  services_and_payments: {
    label: 'Services and payments',
    help: 'Payment providers, uptime monitors and other services your website relies on.',
  },
  emulated_humans: { label: 'Bots posing as people', help: 'Automated browsers that imitate a real visitor.' },
  suspicious_behaviour: { label: 'Suspicious behaviour', help: 'Visitors who behave oddly: too fast, too many pages, odd headers.' },
  content_scrapers: { label: 'Content scrapers', help: 'Programs that copy your pages’ text and pictures.' },
  security_issues: { label: 'Exploit attempts', help: 'Requests that try known attacks, such as injections and exploits.' },
};

/** What a rule does with a kind of visitor (`grant`, `captcha`, `deny`). */
export const POLICY_WORDS: Record<RulePolicy, SettingWords> = {
  grant: { label: 'Let in', help: 'The visitor reaches your website.' },
  captcha: { label: 'Ask for a captcha', help: 'The visitor must solve a captcha first.' },
  deny: { label: 'Turn away', help: 'The visitor is refused.' },
};

/** The policies in the order people read them, from the most open to the most closed (the API lists them otherwise). */
export const POLICY_ORDER = ['grant', 'captcha', 'deny'] as const satisfies readonly RulePolicy[];

/** The software names as their makers spell them. */
const RULESET_NAMES: Record<Ruleset, string> = {
  bitrix: '1C-Bitrix',
  cpanel: 'cPanel',
  dokuwiki: 'DokuWiki',
  drupal: 'Drupal',
  joomla: 'Joomla!',
  nextcloud: 'Nextcloud',
  prestashop: 'PrestaShop',
  wordpress: 'WordPress',
  xenforo: 'XenForo',
};

/** Rule sets made for one kind of website software (`settings.rulesets.<name>`). */
export const RULESET_WORDS = Object.fromEntries(
  Object.entries(RULESET_NAMES).map(([name, label]) => [name, { label, help: `Blocks attacks aimed at ${label} websites.` }]),
) as Record<Ruleset, SettingWords>;

/** The load balancer's switches (`settings.loadbalancer.<flag>`). */
export const FLAG_WORDS: Record<LoadbalancerFlag, SettingWords> = {
  force_https: { label: 'Always use HTTPS', help: 'Visitors who arrive over plain HTTP are sent to the HTTPS address.' },
  upstreams_use_https: {
    label: 'Send visitors to your server over HTTPS',
    help: 'The protection service connects to your server with HTTPS: your server needs a certificate.',
  },
  enable_http3: { label: 'Offer HTTP/3', help: 'A faster connection for the browsers that support it.' },
  cache_static_files: {
    label: 'Cache images, styles and scripts',
    help: 'Served from the protection service, faster and lighter on your server.',
  },
  cache_dynamic_pages: { label: 'Cache pages too', help: 'Leave this off for shops and websites where visitors sign in.' },
  ddos_protection: { label: 'DDoS protection', help: 'Filters floods of traffic meant to take your website down.' },
  ddos_protection_advanced: { label: 'Advanced DDoS protection', help: 'Stricter filtering against large attacks.' },
  bot_protection: { label: 'Bot protection', help: 'Checks visitors for the signs of an automated browser.' },
  force_subdomains_redirect: {
    label: 'Send subdomains to the domain',
    help: 'Visitors of a protected subdomain (www) are redirected to the domain itself.',
  },
};

/** Who issues the HTTPS certificate (`settings.loadbalancer.certs_issuer`). */
export const ISSUER_WORDS: Record<CertsIssuer, SettingWords> = {
  acme: {
    label: 'Automatic (free certificate from Let’s Encrypt)',
    help: 'Issued and renewed for you once DNS points at the protection service.',
  },
  custom: { label: 'My own certificate', help: 'Upload the certificate with its chain, and its private key.' },
};

/** The website's own fields beside its settings: its subdomains, your server's addresses, a certificate. */
export const FIELD_WORDS = {
  certs_issuer: { label: 'HTTPS certificate', help: 'Who issues the certificate visitors see.' },
  subdomain: { label: 'Subdomains', help: 'Protected with the domain, separated by commas: www, shop' },
  ip: {
    label: 'Your server’s IPv4 addresses',
    help: 'Where the protection service sends your visitors: one per line, or separated by commas',
  },
  ipv6: { label: 'Your server’s IPv6 addresses', help: 'Optional: one per line, or separated by commas' },
  certificate: { label: 'Certificate (PEM, with its chain)', help: 'The .crt or .pem file of your own certificate.' },
  private_key: { label: 'Private key (PEM)', help: 'Only needed for your own certificate; checked before anything is sent.' },
} satisfies Record<string, SettingWords>;

/** The group headings, as the settings form and the rules editor title their parts. */
export const GROUP_WORDS = {
  rules: 'Who may visit',
  rulesets: 'Rule sets for your website’s software',
  loadbalancer: 'Connection and caching',
} as const;

const own = <T extends object>(table: T, key: string): key is Extract<keyof T, string> => Object.hasOwn(table, key);

/**
 * The label of a setting by its place in the API's settings object (`['rules', 'humans']`,
 * `['loadbalancer', 'force_https']`), e.g. "Who may visit: People"; undefined for a path the
 * words do not cover (an unknown key is named as sent).
 */
export function settingPathLabel(path: readonly PropertyKey[]): string | undefined {
  const [group, key] = path.map(String);
  if (group === 'rules' && key && own(CATEGORY_WORDS, key)) return `${GROUP_WORDS.rules}: ${CATEGORY_WORDS[key].label}`;
  if (group === 'rulesets' && key && own(RULESET_WORDS, key)) return `Rule set: ${RULESET_WORDS[key].label}`;
  if (group === 'loadbalancer' && key === 'certs_issuer') return FIELD_WORDS.certs_issuer.label;
  if (group === 'loadbalancer' && key && own(FLAG_WORDS, key)) return FLAG_WORDS[key].label;
  if (group && key === undefined && own(GROUP_WORDS, group)) return GROUP_WORDS[group];
  return undefined;
}

/** The words describeSettings writes with: these tables in English, or the same shape in a page's language (core/setting-words-i18n.ts). */
export interface DescribeWords {
  categories: Record<string, SettingWords>;
  policies: Record<string, SettingWords>;
  rulesets: Record<string, SettingWords>;
  flags: Record<string, SettingWords>;
  issuers: Record<string, SettingWords>;
  fields: { certs_issuer: SettingWords };
  on: string;
  off: string;
}

const ENGLISH_DESCRIBE_WORDS: DescribeWords = {
  categories: CATEGORY_WORDS,
  policies: POLICY_WORDS,
  rulesets: RULESET_WORDS,
  flags: FLAG_WORDS,
  issuers: ISSUER_WORDS,
  fields: FIELD_WORDS,
  on: 'on',
  off: 'off',
};

/** The settings a plan or website sets, in words: "People: Ask for a captcha", "WordPress: on". */
export function describeSettings(
  settings: {
    rules?: Partial<Record<string, unknown>>;
    rulesets?: Partial<Record<string, unknown>>;
    loadbalancer?: Partial<Record<string, unknown>>;
  },
  words: DescribeWords = ENGLISH_DESCRIBE_WORDS,
): string[] {
  const onOff = (value: unknown) => (value === true ? words.on : value === false ? words.off : String(value));
  const labelOf = (table: Record<string, SettingWords>, id: string) => (own(table, id) ? (table[id] as SettingWords).label : id);
  const lines: string[] = [];
  for (const [key, value] of Object.entries(settings.rules ?? {}))
    lines.push(`${labelOf(words.categories, key)}: ${typeof value === 'string' ? labelOf(words.policies, value) : String(value)}`);
  for (const [key, value] of Object.entries(settings.rulesets ?? {})) lines.push(`${labelOf(words.rulesets, key)}: ${onOff(value)}`);
  for (const [key, value] of Object.entries(settings.loadbalancer ?? {})) {
    if (key === 'certs_issuer')
      lines.push(`${words.fields.certs_issuer.label}: ${typeof value === 'string' ? labelOf(words.issuers, value) : String(value)}`);
    else lines.push(`${labelOf(words.flags, key)}: ${onOff(value)}`);
  }
  return lines;
}
