import { describe, expect, it } from 'vitest';
import { hostPauseOf, unpausedAtProvider } from '../../src/core/host-pause.js';
import type { PausedBy } from '../../src/core/types.js';

describe('host pauses', () => {
  it('are the panel’s, an admin’s and the hit limit’s; a customer’s own pause is not one', () => {
    const of = (pausedBy: PausedBy | null, desiredStatus: 'online' | 'paused' | 'setup' = 'paused') =>
      hostPauseOf({ desiredStatus, pausedBy });
    for (const by of ['suspension', 'admin', 'enforcement', 'account_deleted', 'domain_removed'] as const) expect(of(by)).toBe(by);
    expect(of('customer')).toBeNull();
    expect(of('external')).toBeNull();
    expect(of(null)).toBeNull();
    // Not paused any more (an admin resumed it): nothing to hold.
    expect(of('admin', 'online')).toBeNull();
  });

  it('count as undone only when the provider was asked for online or setup, never on an ambiguous status', () => {
    expect(unpausedAtProvider({ status: 'online', requested_status: 'online' })).toBe('online');
    expect(unpausedAtProvider({ status: 'setup', requested_status: 'setup' })).toBe('setup');
    // Waiting for DNS shows pending_dns whatever was asked: the request decides.
    expect(unpausedAtProvider({ status: 'pending_dns', requested_status: 'online' })).toBe('online');
    expect(unpausedAtProvider({ status: 'pending_dns', requested_status: 'paused' })).toBeNull();
    // A provider that reports no requested status: judged on what it shows, pending_dns taken for nothing.
    expect(unpausedAtProvider({ status: 'online', requested_status: undefined })).toBe('online');
    expect(unpausedAtProvider({ status: 'pending_dns', requested_status: undefined })).toBeNull();
    expect(unpausedAtProvider({ status: 'paused', requested_status: undefined })).toBeNull();
  });
});
