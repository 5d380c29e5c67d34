import { lookup } from 'node:dns/promises';

export type ResolverMode = 'simulated' | 'system';

export interface Resolver {
  /** True when the name resolves to at least one address. */
  resolves(domain: string): Promise<boolean>;
}

/**
 * Offline stand-in for DNS: every well-formed name resolves except names under the
 * reserved `.invalid` top-level domain and names the control API marked NXDOMAIN.
 */
export function createSimulatedResolver(isNxdomain: (domain: string) => boolean): Resolver {
  return {
    async resolves(domain) {
      if (domain === 'invalid' || domain.endsWith('.invalid')) return false;
      return !isNxdomain(domain);
    },
  };
}

/** Asks the system resolver (A or AAAA, /etc/hosts included), giving up after `timeoutMs`. */
export function createSystemResolver(timeoutMs = 5000): Resolver {
  return {
    async resolves(domain) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      try {
        return await Promise.race([
          lookup(domain, { all: true }).then(
            (addresses) => addresses.length > 0,
            () => false,
          ),
          timeout,
        ]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
