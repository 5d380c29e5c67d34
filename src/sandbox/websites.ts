import { randomUUID } from 'node:crypto';
import {
  mergeSettings,
  type Certificate,
  type CertificateStatus,
  type RequestableStatus,
  type SandboxStatus,
  type Settings,
  type SettingsPatch,
} from '../provider/spec.js';
import type { WireWebsite } from '../provider/wire.js';
import { checkCertificatePair } from './certificates.js';
import { alreadyExists, forbidden, notFound, SandboxError, validationFailed, type ErrorDetail } from './errors.js';
import type { Resolver } from './resolver.js';
import type { SandboxStore, StoredUser, StoredWebsite } from './store.js';

/** Who is calling: the owner of the API key in the request. */
export interface Principal {
  user: StoredUser;
}

/** The settings a website gets for every key a create leaves out (documented in docs/sandbox.md). */
export const DEFAULT_SETTINGS: Settings = {
  rules: {
    content_scrapers: 'deny',
    emulated_humans: 'captcha',
    humans: 'grant',
    search_engines: 'grant',
    security_issues: 'deny',
    services_and_payments: 'grant',
    social_networks: 'grant',
    suspicious_behaviour: 'captcha',
  },
  rulesets: {
    bitrix: false,
    cpanel: false,
    dokuwiki: false,
    drupal: false,
    joomla: false,
    nextcloud: false,
    prestashop: false,
    wordpress: false,
    xenforo: false,
  },
  loadbalancer: {
    upstreams_use_https: false,
    enable_http3: true,
    force_https: true,
    cache_static_files: true,
    cache_dynamic_pages: false,
    ddos_protection: true,
    ddos_protection_advanced: false,
    bot_protection: true,
    certs_issuer: 'acme',
    force_subdomains_redirect: false,
  },
};

export interface WebsiteCreateInput {
  domain: string;
  user_id?: string | undefined;
  subdomain?: string[] | undefined;
  ip?: string[] | undefined;
  ipv6?: string[] | undefined;
  tag?: string[] | undefined;
  status?: RequestableStatus | undefined;
  callbackUrl?: string | undefined;
  certificate?: Certificate | undefined;
  settings?: SettingsPatch | undefined;
}

export type WebsiteUpdateInput = Partial<WebsiteCreateInput>;

export interface WebsiteServiceOptions {
  store: SandboxStore;
  resolver: Resolver;
  now: () => number;
  /** How long after creation the owner's DNS change is seen; null: only through the control API. */
  dnsDelayMs: number | null;
  /** How long ACME issuance takes (`certificate_status` `issuing`); 0 issues at once. */
  certDelayMs: number;
  /** Called after a callback was queued, so the dispatcher can send it at once. */
  onCallbackQueued: () => void;
}

/**
 * A website's status follows from what was asked for and whether DNS is verified. Certificate
 * issuance never hides it: that is `certificateStatus`.
 */
export function effectiveStatus(website: Pick<StoredWebsite, 'requestedStatus' | 'dnsVerifiedAt'>): SandboxStatus {
  if (website.requestedStatus === 'setup') return 'setup';
  if (website.dnsVerifiedAt === null) return 'pending_dns';
  return website.requestedStatus;
}

/**
 * Where the website's certificate stands: `custom` whenever the issuer is custom (the pair is
 * stored with the website); with ACME, `none` until DNS is verified, `issuing` while the
 * certificate is being issued, then `issued`.
 */
export function certificateStatus(website: Pick<StoredWebsite, 'settings' | 'dnsVerifiedAt' | 'certReadyAt'>): CertificateStatus {
  if (website.settings.loadbalancer.certs_issuer === 'custom') return 'custom';
  if (website.dnsVerifiedAt === null) return 'none';
  return website.certReadyAt === null ? 'issued' : 'issuing';
}

export function createWebsiteService(options: WebsiteServiceOptions) {
  const { store, resolver, now } = options;

  const assertCanManage = (principal: Principal, userId: string) => {
    if (!principal.user.isPartner && principal.user.id !== userId) {
      throw forbidden(`This API key may not manage assets of ${userId}`);
    }
  };

  const findVisible = (principal: Principal, domain: string): StoredWebsite => {
    const website = store.getWebsite(domain);
    if (!website) throw notFound(`Website ${domain} does not exist`);
    assertCanManage(principal, website.userId);
    return website;
  };

  const ownerFor = (principal: Principal, userId: string | undefined): StoredUser => {
    if (userId === undefined || userId === principal.user.id) return principal.user;
    assertCanManage(principal, userId);
    const owner = store.getUser(userId);
    if (!owner) throw notFound(`User ${userId} does not exist`);
    return owner;
  };

  const assertDomainLimit = (owner: StoredUser) => {
    if (owner.domainLimit !== null && store.countWebsites(owner.id) >= owner.domainLimit) {
      throw new SandboxError(
        403,
        'domain_limit_reached',
        `User ${owner.id} has reached its limit of ${owner.domainLimit} domain${owner.domainLimit === 1 ? '' : 's'}`,
      );
    }
  };

  const certificateProblems = (settings: Settings, certificate: Certificate | null, sent: boolean, domain: string): ErrorDetail[] => {
    if (settings.loadbalancer.certs_issuer === 'custom') {
      if (!certificate) {
        return [{ path: 'certificate', message: 'is required when settings.loadbalancer.certs_issuer is custom' }];
      }
      return sent ? checkCertificatePair(certificate, domain, now()).map((message) => ({ path: 'certificate', message })) : [];
    }
    return sent ? [{ path: 'certificate', message: 'is only used when settings.loadbalancer.certs_issuer is custom' }] : [];
  };

  /**
   * Recomputes the status and stores `website`. On a change of `status`, or of the
   * certificate status since `before`, queues the signed callback in the same transaction.
   */
  const saveWithStatus = (before: StoredWebsite, website: StoredWebsite, at: number): StoredWebsite => {
    const next: StoredWebsite = { ...website, status: effectiveStatus(website), updatedAt: at };
    const previousCertificate = certificateStatus(before);
    const nextCertificate = certificateStatus(next);
    const occurredAt = new Date(at).toISOString();
    const callbacks: { id: string; domain: string; userId: string; url: string; body: string; createdAt: number }[] = [];
    const queue = (url: string | null, event: string, fields: Record<string, string>) => {
      if (!url) return;
      const id = randomUUID();
      const body = JSON.stringify({ event, id, domain: next.domain, ...fields, occurred_at: occurredAt });
      callbacks.push({ id, domain: next.domain, userId: next.userId, url, body, createdAt: at });
    };
    if (next.status !== before.status) {
      queue(next.callbackUrl, 'website.status_changed', { status: next.status, previous_status: before.status });
    }
    if (nextCertificate !== previousCertificate) {
      queue(next.callbackUrl, 'website.certificate_changed', {
        certificate_status: nextCertificate,
        previous_certificate_status: previousCertificate,
        status: next.status,
      });
    }
    store.transaction(() => {
      store.saveWebsite(next);
      for (const callback of callbacks) store.insertCallback(callback);
    });
    if (callbacks.length > 0) options.onCallbackQueued();
    return next;
  };

  const startIssuance = (website: StoredWebsite, at: number): StoredWebsite =>
    website.settings.loadbalancer.certs_issuer === 'acme' && options.certDelayMs > 0
      ? { ...website, certReadyAt: at + options.certDelayMs }
      : { ...website, certReadyAt: null };

  const markDnsVerified = (website: StoredWebsite, at: number): StoredWebsite =>
    saveWithStatus(website, startIssuance({ ...website, dnsVerifiedAt: at }, at), at);

  return {
    list(principal: Principal): StoredWebsite[] {
      return store.listWebsites(principal.user.isPartner ? null : principal.user.id);
    },

    get: findVisible,

    async create(principal: Principal, input: WebsiteCreateInput): Promise<StoredWebsite> {
      const owner = ownerFor(principal, input.user_id);
      if (store.getWebsite(input.domain)) throw alreadyExists(`Website ${input.domain} already exists`);
      assertDomainLimit(owner);
      const settings = mergeSettings(DEFAULT_SETTINGS, input.settings);
      const problems = certificateProblems(settings, input.certificate ?? null, input.certificate !== undefined, input.domain);
      if ((input.ip?.length ?? 0) + (input.ipv6?.length ?? 0) === 0) {
        problems.push({ path: 'ip', message: 'at least one origin address (ip or ipv6) is required' });
      }
      if (problems.length > 0) throw validationFailed(problems);
      if (!(await resolver.resolves(input.domain))) {
        throw new SandboxError(422, 'domain_unresolvable', `The domain ${input.domain} does not exist or does not resolve`, [
          { path: 'domain', message: 'does not resolve' },
        ]);
      }
      const at = now();
      const website: StoredWebsite = {
        domain: input.domain,
        userId: owner.id,
        subdomain: input.subdomain ?? [],
        ip: input.ip ?? [],
        ipv6: input.ipv6 ?? [],
        tag: input.tag ?? [],
        requestedStatus: input.status ?? 'online',
        status: 'pending_dns',
        callbackUrl: input.callbackUrl || null,
        settings,
        certificatePublic: input.certificate?.public ?? null,
        certificatePrivate: input.certificate?.private ?? null,
        dnsVerifyAt: options.dnsDelayMs === null ? null : at + options.dnsDelayMs,
        dnsVerifiedAt: null,
        certReadyAt: null,
        createdAt: at,
        updatedAt: at,
      };
      website.status = effectiveStatus(website);
      store.transaction(() => {
        // Checked again after the asynchronous DNS look-up: another request may have won the race.
        if (store.getWebsite(input.domain)) throw alreadyExists(`Website ${input.domain} already exists`);
        assertDomainLimit(owner);
        store.insertWebsite(website);
      });
      return website;
    },

    update(principal: Principal, domain: string, input: WebsiteUpdateInput): StoredWebsite {
      const website = findVisible(principal, domain);
      if (input.domain !== undefined && input.domain !== domain) {
        throw validationFailed([{ path: 'domain', message: `must match the website in the path (${domain})` }]);
      }
      let userId = website.userId;
      if (input.user_id !== undefined && input.user_id !== website.userId) {
        if (!principal.user.isPartner) throw forbidden('Only the partner key may move a website to another user');
        const owner = ownerFor(principal, input.user_id);
        assertDomainLimit(owner);
        userId = owner.id;
      }
      const settings = mergeSettings(website.settings, input.settings);
      const issuer = settings.loadbalancer.certs_issuer;
      const switchedToAcme = issuer === 'acme' && website.settings.loadbalancer.certs_issuer !== 'acme';
      const storedCertificate =
        issuer === 'custom' && website.certificatePublic && website.certificatePrivate
          ? { public: website.certificatePublic, private: website.certificatePrivate }
          : null;
      const certificate = input.certificate ?? storedCertificate;
      const problems = certificateProblems(settings, certificate, input.certificate !== undefined, domain);
      const ip = input.ip ?? website.ip;
      const ipv6 = input.ipv6 ?? website.ipv6;
      if (ip.length + ipv6.length === 0) problems.push({ path: 'ip', message: 'at least one origin address (ip or ipv6) is required' });
      if (problems.length > 0) throw validationFailed(problems);

      const at = now();
      let next: StoredWebsite = {
        ...website,
        userId,
        subdomain: input.subdomain ?? website.subdomain,
        ip,
        ipv6,
        tag: input.tag ?? website.tag,
        requestedStatus: input.status ?? website.requestedStatus,
        callbackUrl: input.callbackUrl === undefined ? website.callbackUrl : input.callbackUrl || null,
        settings,
        certificatePublic: issuer === 'custom' ? (certificate?.public ?? null) : null,
        certificatePrivate: issuer === 'custom' ? (certificate?.private ?? null) : null,
      };
      if (issuer === 'custom') next.certReadyAt = null;
      if (switchedToAcme && next.dnsVerifiedAt !== null) next = startIssuance(next, at);
      return saveWithStatus(website, next, at);
    },

    remove(principal: Principal, domain: string): void {
      findVisible(principal, domain);
      store.deleteWebsite(domain);
    },

    /** The owner's DNS change was seen now (control API). Idempotent. */
    verifyDns(domain: string): StoredWebsite {
      const website = store.getWebsite(domain);
      if (!website) throw notFound(`Website ${domain} does not exist`);
      return website.dnsVerifiedAt === null ? markDnsVerified(website, now()) : website;
    },

    /** Takes every DNS verification and certificate issuance that is due; returns how many moved. */
    advance(): number {
      const at = now();
      let moved = 0;
      for (const domain of store.dueDnsVerifications(at, 500)) {
        const website = store.getWebsite(domain);
        if (website && website.dnsVerifiedAt === null) {
          markDnsVerified(website, at);
          moved++;
        }
      }
      for (const domain of store.dueCertificates(at, 500)) {
        const website = store.getWebsite(domain);
        if (website && website.certReadyAt !== null) {
          saveWithStatus(website, { ...website, certReadyAt: null }, at);
          moved++;
        }
      }
      return moved;
    },
  };
}

export type WebsiteService = ReturnType<typeof createWebsiteService>;

/** The website as the API answers it: the full schema, never the private key. */
export function websiteToJson(website: StoredWebsite): WireWebsite {
  return {
    domain: website.domain,
    user_id: website.userId,
    subdomain: website.subdomain,
    ip: website.ip,
    ipv6: website.ipv6,
    tag: website.tag,
    status: website.status,
    requested_status: website.requestedStatus,
    callbackUrl: website.callbackUrl,
    settings: website.settings,
    certificate: website.certificatePublic ? { public: website.certificatePublic } : null,
    certificate_status: certificateStatus(website),
    dns_verified: website.dnsVerifiedAt !== null,
    created_at: new Date(website.createdAt).toISOString(),
    updated_at: new Date(website.updatedAt).toISOString(),
  };
}
