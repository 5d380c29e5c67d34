import type { Db } from '../db/open.js';
import type { RequestableStatus, SandboxStatus, Settings } from '../provider/spec.js';

/** A user as the sandbox keeps it. The partner is a user with `isPartner`. */
export interface StoredUser {
  id: string;
  apiKey: string;
  isPartner: boolean;
  domainLimit: number | null;
  tag: string[];
  createdAt: number;
  updatedAt: number;
}

export interface StoredAsset {
  id: string;
  ip: string;
  userId: string;
  name: string | null;
  zone: string | null;
  tag: string | null;
  createdAt: number;
}

export interface StoredWebsite {
  domain: string;
  userId: string;
  subdomain: string[];
  ip: string[];
  ipv6: string[];
  tag: string[];
  requestedStatus: RequestableStatus;
  status: SandboxStatus;
  callbackUrl: string | null;
  settings: Settings;
  certificatePublic: string | null;
  certificatePrivate: string | null;
  dnsVerifyAt: number | null;
  dnsVerifiedAt: number | null;
  certReadyAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** A website's traffic as the sandbox stores it; its API answers derive `permitted` and `mitigated` from these. */
export interface TrafficCounters {
  total: number;
  blocked: number;
  captcha: number;
}

export interface TrafficTotals extends TrafficCounters {
  byCategory: Record<string, number>;
}

export interface StoredCallback {
  id: string;
  domain: string;
  userId: string;
  url: string;
  body: string;
  createdAt: number;
  nextAttemptAt: number | null;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: number | null;
  gaveUpAt: number | null;
}

interface UserRow {
  id: string;
  api_key: string;
  is_partner: number;
  domain_limit: number | null;
  tag: string;
  created_at: number;
  updated_at: number;
}

interface WebsiteRow {
  domain: string;
  user_id: string;
  subdomain: string;
  ip: string;
  ipv6: string;
  tag: string;
  requested_status: string;
  status: string;
  callback_url: string | null;
  settings: string;
  certificate_public: string | null;
  certificate_private: string | null;
  dns_verify_at: number | null;
  dns_verified_at: number | null;
  cert_ready_at: number | null;
  created_at: number;
  updated_at: number;
}

interface CallbackRow {
  id: string;
  domain: string;
  user_id: string;
  url: string;
  body: string;
  created_at: number;
  next_attempt_at: number | null;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  delivered_at: number | null;
  gave_up_at: number | null;
}

const toUser = (row: UserRow): StoredUser => ({
  id: row.id,
  apiKey: row.api_key,
  isPartner: row.is_partner === 1,
  domainLimit: row.domain_limit,
  tag: JSON.parse(row.tag) as string[],
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toWebsite = (row: WebsiteRow): StoredWebsite => ({
  domain: row.domain,
  userId: row.user_id,
  subdomain: JSON.parse(row.subdomain) as string[],
  ip: JSON.parse(row.ip) as string[],
  ipv6: JSON.parse(row.ipv6) as string[],
  tag: JSON.parse(row.tag) as string[],
  requestedStatus: row.requested_status as RequestableStatus,
  status: row.status as SandboxStatus,
  callbackUrl: row.callback_url,
  settings: JSON.parse(row.settings) as Settings,
  certificatePublic: row.certificate_public,
  certificatePrivate: row.certificate_private,
  dnsVerifyAt: row.dns_verify_at,
  dnsVerifiedAt: row.dns_verified_at,
  certReadyAt: row.cert_ready_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toCallback = (row: CallbackRow): StoredCallback => ({
  id: row.id,
  domain: row.domain,
  userId: row.user_id,
  url: row.url,
  body: row.body,
  createdAt: row.created_at,
  nextAttemptAt: row.next_attempt_at,
  attempts: row.attempts,
  lastStatus: row.last_status,
  lastError: row.last_error,
  deliveredAt: row.delivered_at,
  gaveUpAt: row.gave_up_at,
});

const websiteParams = (w: StoredWebsite) => ({
  domain: w.domain,
  user_id: w.userId,
  subdomain: JSON.stringify(w.subdomain),
  ip: JSON.stringify(w.ip),
  ipv6: JSON.stringify(w.ipv6),
  tag: JSON.stringify(w.tag),
  requested_status: w.requestedStatus,
  status: w.status,
  callback_url: w.callbackUrl,
  settings: JSON.stringify(w.settings),
  certificate_public: w.certificatePublic,
  certificate_private: w.certificatePrivate,
  dns_verify_at: w.dnsVerifyAt,
  dns_verified_at: w.dnsVerifiedAt,
  cert_ready_at: w.certReadyAt,
  created_at: w.createdAt,
  updated_at: w.updatedAt,
});

const HOUR_MS = 3_600_000;

/** Users, and the devices and servers they register. */
function prepareUserStatements(db: Db) {
  return {
    insertUser: db.prepare(
      `INSERT INTO users (id, api_key, is_partner, domain_limit, tag, created_at, updated_at)
       VALUES (@id, @api_key, @is_partner, @domain_limit, @tag, @created_at, @updated_at)`,
    ),
    userById: db.prepare<[string], UserRow>('SELECT * FROM users WHERE id = ?'),
    userByKey: db.prepare<[string], UserRow>('SELECT * FROM users WHERE api_key = ?'),
    listUsers: db.prepare<[], UserRow>('SELECT * FROM users WHERE is_partner = 0 ORDER BY created_at, id'),
    updateUser: db.prepare('UPDATE users SET domain_limit = @domain_limit, tag = @tag, updated_at = @updated_at WHERE id = @id'),
    deleteUser: db.prepare('DELETE FROM users WHERE id = ? AND is_partner = 0'),
    countWebsites: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM websites WHERE user_id = ?'),
    serverIps: db.prepare<[string], { ip: string }>('SELECT ip FROM servers WHERE user_id = ? ORDER BY created_at'),
    insertDevice: db.prepare(
      'INSERT INTO devices (id, ip, user_id, name, zone, tag, created_at) VALUES (@id, @ip, @userId, @name, @zone, @tag, @createdAt)',
    ),
    insertServer: db.prepare(
      'INSERT INTO servers (id, ip, user_id, name, zone, tag, created_at) VALUES (@id, @ip, @userId, @name, @zone, @tag, @createdAt)',
    ),
    deviceByIp: db.prepare<[string], { id: string }>('SELECT id FROM devices WHERE ip = ?'),
    serverByIp: db.prepare<[string], { id: string }>('SELECT id FROM servers WHERE ip = ?'),
  };
}

/** Websites, the seeded demo set, and their DNS and certificate schedule. */
function prepareWebsiteStatements(db: Db) {
  return {
    websiteByDomain: db.prepare<[string], WebsiteRow>('SELECT * FROM websites WHERE domain = ?'),
    websitesAll: db.prepare<[], WebsiteRow>('SELECT * FROM websites ORDER BY created_at, domain'),
    websitesOfUser: db.prepare<[string], WebsiteRow>('SELECT * FROM websites WHERE user_id = ? ORDER BY created_at, domain'),
    insertWebsite: db.prepare(
      `INSERT INTO websites (domain, user_id, subdomain, ip, ipv6, tag, requested_status, status, callback_url, settings,
         certificate_public, certificate_private, dns_verify_at, dns_verified_at, cert_ready_at, created_at, updated_at)
       VALUES (@domain, @user_id, @subdomain, @ip, @ipv6, @tag, @requested_status, @status, @callback_url, @settings,
         @certificate_public, @certificate_private, @dns_verify_at, @dns_verified_at, @cert_ready_at, @created_at, @updated_at)`,
    ),
    saveWebsite: db.prepare(
      `UPDATE websites SET user_id = @user_id, subdomain = @subdomain, ip = @ip, ipv6 = @ipv6, tag = @tag,
         requested_status = @requested_status, status = @status, callback_url = @callback_url, settings = @settings,
         certificate_public = @certificate_public, certificate_private = @certificate_private,
         dns_verify_at = @dns_verify_at, dns_verified_at = @dns_verified_at, cert_ready_at = @cert_ready_at,
         updated_at = @updated_at
       WHERE domain = @domain`,
    ),
    deleteWebsite: db.prepare('DELETE FROM websites WHERE domain = ?'),
    websiteExists: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM websites WHERE domain = ?'),
    insertSeeded: db.prepare(
      `INSERT INTO websites (domain, user_id, subdomain, ip, ipv6, tag, requested_status, status, callback_url, settings,
         dns_verify_at, dns_verified_at, cert_ready_at, total, created_at, updated_at)
       VALUES (?, ?, '[]', ?, '[]', '[]', ?, ?, NULL, ?, NULL, ?, NULL, ?, ?, ?)`,
    ),
    insertSeededHourly: db.prepare(
      "INSERT INTO traffic_hourly (domain, hour, category, total, blocked, captcha) VALUES (?, ?, '', ?, 0, 0)",
    ),
    dueDns: db.prepare<[number, number], { domain: string }>(
      `SELECT domain FROM websites WHERE dns_verified_at IS NULL AND dns_verify_at IS NOT NULL AND dns_verify_at <= ?
       ORDER BY dns_verify_at LIMIT ?`,
    ),
    dueCerts: db.prepare<[number, number], { domain: string }>(
      'SELECT domain FROM websites WHERE cert_ready_at IS NOT NULL AND cert_ready_at <= ? ORDER BY cert_ready_at LIMIT ?',
    ),
  };
}

/** Traffic counters, per website and per hour. */
function prepareTrafficStatements(db: Db) {
  return {
    counters: db.prepare<[string], TrafficCounters>('SELECT total, blocked, captcha FROM websites WHERE domain = ?'),
    addCounters: db.prepare(
      'UPDATE websites SET total = total + @hits, blocked = blocked + @blocked, captcha = captcha + @captcha WHERE domain = @domain',
    ),
    addHourly: db.prepare(
      `INSERT INTO traffic_hourly (domain, hour, category, total, blocked, captcha) VALUES (@domain, @hour, @category, @hits, @blocked, @captcha)
       ON CONFLICT (domain, hour, category) DO UPDATE SET
         total = total + excluded.total, blocked = blocked + excluded.blocked, captcha = captcha + excluded.captcha`,
    ),
    resetCounters: db.prepare('UPDATE websites SET total = 0, blocked = 0, captcha = 0, counters_reset_at = ? WHERE domain = ?'),
    categoriesSince: db.prepare<[string, number, number], { category: string; n: number }>(
      `SELECT category, SUM(blocked + captcha) AS n FROM traffic_hourly
       WHERE domain = ? AND hour >= ? AND hour < ? AND category != '' GROUP BY category`,
    ),
    rangeTotals: db.prepare<[string, number, number], TrafficCounters>(
      `SELECT COALESCE(SUM(total), 0) AS total, COALESCE(SUM(blocked), 0) AS blocked, COALESCE(SUM(captcha), 0) AS captcha
       FROM traffic_hourly WHERE domain = ? AND hour >= ? AND hour < ?`,
    ),
    resetAt: db.prepare<[string], { at: number | null }>('SELECT counters_reset_at AS at FROM websites WHERE domain = ?'),
    userTotals: db.prepare<[string], TrafficCounters & { websites: number }>(
      `SELECT COALESCE(SUM(total), 0) AS total, COALESCE(SUM(blocked), 0) AS blocked, COALESCE(SUM(captcha), 0) AS captcha,
         COUNT(*) AS websites FROM websites WHERE user_id = ?`,
    ),
  };
}

/** Callbacks waiting to be delivered, and the domains that do not resolve. */
function prepareCallbackStatements(db: Db) {
  return {
    insertCallback: db.prepare(
      `INSERT INTO callbacks (id, domain, user_id, url, body, created_at, next_attempt_at)
       VALUES (@id, @domain, @userId, @url, @body, @createdAt, @createdAt)`,
    ),
    dueCallbacks: db.prepare<[number, number], CallbackRow>(
      `SELECT * FROM callbacks WHERE delivered_at IS NULL AND gave_up_at IS NULL AND next_attempt_at <= ?
       ORDER BY next_attempt_at LIMIT ?`,
    ),
    callbackDelivered: db.prepare(
      'UPDATE callbacks SET attempts = attempts + 1, last_status = ?, last_error = NULL, delivered_at = ?, next_attempt_at = NULL WHERE id = ?',
    ),
    callbackFailed: db.prepare(
      `UPDATE callbacks SET attempts = attempts + 1, last_status = @status, last_error = @error,
         next_attempt_at = @nextAttemptAt, gave_up_at = @gaveUpAt WHERE id = @id`,
    ),
    listCallbacks: db.prepare<[number], CallbackRow>('SELECT * FROM callbacks ORDER BY created_at DESC, rowid DESC LIMIT ?'),
    nextCallbackDue: db.prepare<[], { at: number | null }>(
      'SELECT MIN(next_attempt_at) AS at FROM callbacks WHERE delivered_at IS NULL AND gave_up_at IS NULL',
    ),
    addNxdomain: db.prepare('INSERT OR IGNORE INTO nxdomains (domain) VALUES (?)'),
    isNxdomain: db.prepare<[string], { domain: string }>('SELECT domain FROM nxdomains WHERE domain = ?'),
    removeNxdomain: db.prepare('DELETE FROM nxdomains WHERE domain = ?'),
  };
}

/** Every SQL statement of the sandbox, prepared once per database. */
function prepareSandboxStatements(db: Db) {
  return {
    ...prepareUserStatements(db),
    ...prepareWebsiteStatements(db),
    ...prepareTrafficStatements(db),
    ...prepareCallbackStatements(db),
  };
}

/** The sandbox's storage: records in and out of SQLite, no provider rules (those are in the API handlers). */
export function createSandboxStore(db: Db) {
  const s = prepareSandboxStatements(db);

  const addTraffic = db.transaction((domain: string, at: number, hits: number, blocked: number, captcha: number, category: string) => {
    s.addCounters.run({ domain, hits, blocked, captcha });
    s.addHourly.run({ domain, hour: Math.floor(at / HOUR_MS), category, hits, blocked, captcha });
  });

  return {
    /** Runs `fn` in one transaction (nested calls join the outer one). */
    transaction<T>(fn: () => T): T {
      return db.transaction(fn)();
    },

    insertUser(user: StoredUser): void {
      s.insertUser.run({
        id: user.id,
        api_key: user.apiKey,
        is_partner: user.isPartner ? 1 : 0,
        domain_limit: user.domainLimit,
        tag: JSON.stringify(user.tag),
        created_at: user.createdAt,
        updated_at: user.updatedAt,
      });
    },
    getUser: (id: string) => {
      const row = s.userById.get(id);
      return row ? toUser(row) : null;
    },
    getUserByKey: (key: string) => {
      const row = s.userByKey.get(key);
      return row ? toUser(row) : null;
    },
    listUsers: () => s.listUsers.all().map(toUser),
    saveUser(user: StoredUser): void {
      s.updateUser.run({ id: user.id, domain_limit: user.domainLimit, tag: JSON.stringify(user.tag), updated_at: user.updatedAt });
    },
    deleteUser: (id: string) => s.deleteUser.run(id).changes > 0,
    countWebsites: (userId: string) => s.countWebsites.get(userId)?.n ?? 0,
    serverIps: (userId: string) => s.serverIps.all(userId).map((row) => row.ip),

    deviceExists: (ip: string) => s.deviceByIp.get(ip) !== undefined,
    serverExists: (ip: string) => s.serverByIp.get(ip) !== undefined,
    insertDevice: (device: StoredAsset) => void s.insertDevice.run(device),
    insertServer: (server: StoredAsset) => void s.insertServer.run(server),

    getWebsite: (domain: string) => {
      const row = s.websiteByDomain.get(domain);
      return row ? toWebsite(row) : null;
    },
    listWebsites: (userId: string | null) => (userId === null ? s.websitesAll.all() : s.websitesOfUser.all(userId)).map(toWebsite),
    insertWebsite: (website: StoredWebsite) => void s.insertWebsite.run(websiteParams(website)),
    saveWebsite: (website: StoredWebsite) => void s.saveWebsite.run(websiteParams(website)),
    deleteWebsite: (domain: string) => s.deleteWebsite.run(domain).changes > 0,
    websiteExists: (domain: string) => s.websiteExists.get(domain) !== undefined,
    /**
     * Seeding (`POST /_sandbox/websites/bulk`): inserts many websites of one user, DNS verified
     * at `at`, no certificate in progress, `settings` as given, `hits` cumulative hits each (none
     * blocked or challenged, recorded in the hour of `at` too). One transaction; the caller
     * has checked that no domain exists. Returns how many were inserted.
     */
    insertSeededWebsites(seed: {
      userId: string;
      domains: readonly string[];
      ip: readonly string[];
      status: 'online' | 'paused';
      settings: Settings;
      hits: number;
      at: number;
    }): number {
      const ip = JSON.stringify(seed.ip);
      const settings = JSON.stringify(seed.settings);
      const hour = Math.floor(seed.at / HOUR_MS);
      return db.transaction(() => {
        for (const domain of seed.domains) {
          s.insertSeeded.run(domain, seed.userId, ip, seed.status, seed.status, settings, seed.at, seed.hits, seed.at, seed.at);
          if (seed.hits > 0) s.insertSeededHourly.run(domain, hour, seed.hits);
        }
        return seed.domains.length;
      })();
    },
    dueDnsVerifications: (now: number, limit: number) => s.dueDns.all(now, limit).map((row) => row.domain),
    dueCertificates: (now: number, limit: number) => s.dueCerts.all(now, limit).map((row) => row.domain),

    counters: (domain: string): TrafficCounters | null => s.counters.get(domain) ?? null,
    addTraffic: (domain: string, at: number, hits: number, blocked: number, captcha: number, category = '') =>
      addTraffic(domain, at, hits, blocked, captcha, category),
    resetCounters: (domain: string, at: number) => s.resetCounters.run(at, domain).changes > 0,
    /** Totals in [from, to) by hour, or cumulative since creation (or the last reset) without a range. */
    trafficTotals(domain: string, range?: { from: number; to: number }): TrafficTotals | null {
      const cumulative = s.counters.get(domain);
      if (!cumulative) return null;
      const fromHour = range ? Math.floor(range.from / HOUR_MS) : Math.floor((s.resetAt.get(domain)?.at ?? 0) / HOUR_MS);
      const toHour = range ? Math.ceil(range.to / HOUR_MS) : Number.MAX_SAFE_INTEGER;
      const totals = range ? (s.rangeTotals.get(domain, fromHour, toHour) ?? cumulative) : cumulative;
      const byCategory: Record<string, number> = {};
      for (const row of s.categoriesSince.all(domain, fromHour, toHour)) byCategory[row.category] = row.n;
      return { total: totals.total, blocked: totals.blocked, captcha: totals.captcha, byCategory };
    },
    userTotals: (userId: string) => s.userTotals.get(userId) ?? { total: 0, blocked: 0, captcha: 0, websites: 0 },

    insertCallback: (callback: { id: string; domain: string; userId: string; url: string; body: string; createdAt: number }) =>
      void s.insertCallback.run(callback),
    dueCallbacks: (now: number, limit: number) => s.dueCallbacks.all(now, limit).map(toCallback),
    markCallbackDelivered: (id: string, status: number, at: number) => void s.callbackDelivered.run(status, at, id),
    markCallbackFailed: (
      id: string,
      failure: { status: number | null; error: string; nextAttemptAt: number | null; gaveUpAt: number | null },
    ) => void s.callbackFailed.run({ id, ...failure }),
    listCallbacks: (limit: number) => s.listCallbacks.all(limit).map(toCallback),
    nextCallbackAt: () => s.nextCallbackDue.get()?.at ?? null,

    addNxdomain: (domain: string) => void s.addNxdomain.run(domain),
    isNxdomain: (domain: string) => s.isNxdomain.get(domain) !== undefined,
    /** The domain resolves again (its owner fixed the DNS). */
    removeNxdomain: (domain: string) => void s.removeNxdomain.run(domain),

    /** Forgets everything but the partner, as `POST /_sandbox/reset` promises. */
    reset(): void {
      db.transaction(() => {
        for (const table of ['traffic_hourly', 'callbacks', 'websites', 'devices', 'servers', 'nxdomains']) {
          db.exec(`DELETE FROM ${table}`);
        }
        db.exec('DELETE FROM users WHERE is_partner = 0');
      })();
    },
  };
}

export type SandboxStore = ReturnType<typeof createSandboxStore>;
