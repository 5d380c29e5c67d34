/**
 * Which panel server serves a website, from its tags at the provider (core/serving-server.ts):
 * what the receiving server adopts, what the sending server leaves alone, and the tags each writes.
 */
import { describe, expect, it } from 'vitest';
import {
  adoptedStatus,
  adoptedTags,
  adoptionOf,
  claimedTags,
  createServingCheck,
  releasedTags,
  servedByTag,
  servedElsewhereFact,
  standingOf,
} from '../../src/core/serving-server.js';
import { ProviderError } from '../../src/provider/index.js';
import type { ProviderWebsite } from '../../src/provider/index.js';
import type { Website } from '../../src/core/types.js';

const A = 'srv-aaaaaaaa-0000-4000-8000-000000000001';
const B = 'srv-bbbbbbbb-0000-4000-8000-000000000002';

describe('standingOf', () => {
  it('tells this server, another server, a release and an untagged (older) website apart', () => {
    expect(standingOf(['plan:default', servedByTag(A)], A)).toEqual({ kind: 'ours' });
    expect(standingOf(['plan:default', servedByTag(B)], A)).toEqual({ kind: 'elsewhere', serverId: B });
    expect(standingOf(['plan:default', `released-by:${B}`], A)).toEqual({ kind: 'released', serverId: B });
    expect(standingOf(['plan:default', 'server:web1.host.example'], A)).toEqual({ kind: 'untagged' });
    expect(standingOf([], A)).toEqual({ kind: 'untagged' });
  });

  it('takes a served-by tag over a released-by one, and ignores an empty one', () => {
    expect(standingOf([`released-by:${A}`, servedByTag(B)], A)).toEqual({ kind: 'elsewhere', serverId: B });
    expect(standingOf(['served-by:'], A)).toEqual({ kind: 'untagged' });
  });
});

describe('the tags each side writes', () => {
  it('a release replaces the served-by tag with released-by, keeping the others', () => {
    expect(releasedTags(['plan:gold', servedByTag(A), 'rack-7'], A)).toEqual(['plan:gold', 'rack-7', `released-by:${A}`]);
  });

  it('an adoption writes its own plan and server tags, dropping the other server’s, keeping foreign tags', () => {
    const own = ['plan:default', 'server:web2.host.example', servedByTag(B)];
    expect(adoptedTags(['plan:gold', 'server:web1.host.example', servedByTag(A), 'customer-x'], own)).toEqual([...own, 'customer-x']);
  });

  it('leaves out a tag read from the provider that a write could not carry (a comma, over 100 characters)', () => {
    const unwritable = ['a,b', 'x'.repeat(101)];
    expect(releasedTags(['plan:gold', ...unwritable], A)).toEqual(['plan:gold', `released-by:${A}`]);
    expect(adoptedTags(['keep-me', ...unwritable], [servedByTag(B)])).toEqual([servedByTag(B), 'keep-me']);
    expect(claimedTags(['plan:gold', ...unwritable], A)).toEqual(['plan:gold', servedByTag(A)]);
  });

  it('every tag is a tag the provider takes: no comma, at most 100 characters', () => {
    for (const tag of [servedByTag(A), ...releasedTags([], A)]) {
      expect(tag).not.toContain(',');
      expect(tag.length).toBeLessThanOrEqual(100);
    }
  });
});

describe('adoptionOf', () => {
  const user = 'alice@panel.example';
  it('adopts what another server serves or let go, for the same provider user', () => {
    expect(adoptionOf({ user_id: user, tag: [servedByTag(A)] }, user, B)).toEqual({ from: A, released: false });
    expect(adoptionOf({ user_id: user, tag: [`released-by:${A}`] }, user, B)).toEqual({ from: A, released: true });
  });

  it('adopts nothing of its own, nothing untagged, and nothing of another provider user', () => {
    expect(adoptionOf({ user_id: user, tag: [servedByTag(B)] }, user, B)).toBeNull();
    expect(adoptionOf({ user_id: user, tag: [`released-by:${B}`] }, user, B)).toBeNull();
    expect(adoptionOf({ user_id: user, tag: ['plan:default'] }, user, B)).toBeNull();
    expect(adoptionOf({ user_id: 'mallory@panel.example', tag: [servedByTag(A)] }, user, B)).toBeNull();
  });
});

describe('adoptedStatus', () => {
  it('keeps the status at the provider: a pause as one made outside this server', () => {
    expect(adoptedStatus({ status: 'paused', requested_status: 'paused' }, false, 'active', true)).toEqual({
      desiredStatus: 'paused',
      pausedBy: 'external',
    });
    expect(adoptedStatus({ status: 'pending_dns', requested_status: 'online' }, false, 'active', false)).toEqual({
      desiredStatus: 'online',
      pausedBy: null,
    });
    expect(adoptedStatus({ status: 'setup', requested_status: undefined }, false, 'active', true)).toEqual({
      desiredStatus: 'setup',
      pausedBy: null,
    });
  });

  it('protects again what the other server’s removal paused, as a new website would be', () => {
    expect(adoptedStatus({ status: 'paused', requested_status: 'paused' }, true, 'active', true)).toEqual({
      desiredStatus: 'online',
      pausedBy: null,
    });
    expect(adoptedStatus({ status: 'paused', requested_status: 'paused' }, true, 'active', false)).toEqual({
      desiredStatus: 'setup',
      pausedBy: null,
    });
  });

  it('pauses for an account that is not active here', () => {
    expect(adoptedStatus({ status: 'online', requested_status: 'online' }, false, 'suspended', true)).toEqual({
      desiredStatus: 'paused',
      pausedBy: 'suspension',
    });
  });
});

describe('createServingCheck', () => {
  const website = { domain: 'alice.example', account: 'alice', state: 'active' } as Website;
  const remoteTagged = (tag: string[]) => ({ domain: 'alice.example', tag }) as unknown as ProviderWebsite;

  function checkWith(lookup: () => Promise<ProviderWebsite>) {
    const saved: Website[] = [];
    const facts = new Map<string, string>();
    const logs: string[] = [];
    const check = createServingCheck({
      serverId: A,
      lookupWebsite: lookup,
      accounts: { getWebsite: () => website, saveWebsite: (w) => void saved.push(w), setFact: (k, v) => void facts.set(k, v) },
      logger: { info: (_obj, msg) => void logs.push(msg) },
    });
    return { check, saved, facts, logs };
  }

  it('leaves another server’s website alone and stops managing it here', async () => {
    const { check, saved, facts, logs } = checkWith(async () => remoteTagged([servedByTag(B)]));
    expect(await check.check(website)).toEqual({ servedBy: B });
    expect(saved.map((w) => w.state)).toEqual(['removed']);
    expect(facts.get(servedElsewhereFact('alice.example'))).toBe(B);
    expect(logs).toEqual([`website now served by server ${B}: left alone`]);
  });

  it('lets this server write its own and an untagged website, and one the provider no longer has', async () => {
    for (const tag of [[servedByTag(A)], ['plan:default']]) {
      const { check, saved } = checkWith(async () => remoteTagged(tag));
      expect(await check.check(website)).toEqual({ remote: remoteTagged(tag) });
      expect(saved).toEqual([]);
    }
    const gone = checkWith(async () => {
      throw new ProviderError({
        code: 'PROVIDER_NOT_FOUND',
        message: 'no such website',
        method: 'GET',
        path: '/v1.0/website',
        attempts: 1,
        sent: true,
        status: 404,
      });
    });
    expect(await gone.check.check(website)).toEqual({ remote: null });
  });

  it('throws when the provider cannot say, so nothing is deleted or paused on a guess', async () => {
    const { check, saved } = checkWith(async () => {
      throw new ProviderError({
        code: 'PROVIDER_UNAVAILABLE',
        message: 'down',
        method: 'GET',
        path: '/v1.0/website',
        attempts: 1,
        sent: true,
        status: 503,
      });
    });
    await expect(check.check(website)).rejects.toMatchObject({ code: 'PROVIDER_UNAVAILABLE' });
    expect(saved).toEqual([]);
  });
});
