/**
 * Which provisioning failures the job queue retries (issue 21): a permanent refusal, a 4xx
 * other than 408, 409 and 429, goes dead at once with its reason kept; timeouts, conflicts of
 * the moment, rate limits, 5xx and transport failures are tried again.
 */
import { describe, expect, it } from 'vitest';
import { isPermanentProvisioningError } from '../../src/core/provisioning.js';
import { AppError } from '../../src/errors.js';
import { ProviderError, type ProviderErrorCode } from '../../src/provider/index.js';

const answered = (status: number, code: ProviderErrorCode, providerCode?: string) =>
  new ProviderError({
    code,
    message: `POST /v1.0/website failed with HTTP ${status}`,
    method: 'POST',
    path: '/v1.0/website',
    attempts: 1,
    sent: true,
    status,
    ...(providerCode ? { providerCode } : {}),
  });

describe('isPermanentProvisioningError', () => {
  it('takes a 4xx refusal other than 408, 409 and 429 as permanent, an unresolvable domain included', () => {
    expect(isPermanentProvisioningError(answered(422, 'PROVIDER_VALIDATION', 'domain_unresolvable'))).toBe(true);
    expect(isPermanentProvisioningError(answered(422, 'PROVIDER_VALIDATION', 'validation_failed'))).toBe(true);
    expect(isPermanentProvisioningError(answered(400, 'PROVIDER_VALIDATION', 'bad_request'))).toBe(true);
    expect(isPermanentProvisioningError(answered(403, 'PROVIDER_LIMIT_REACHED', 'domain_limit_reached'))).toBe(true);
    expect(isPermanentProvisioningError(answered(403, 'PROVIDER_AUTH', 'forbidden'))).toBe(true);
    expect(isPermanentProvisioningError(answered(404, 'PROVIDER_NOT_FOUND', 'not_found'))).toBe(true);
  });

  it('retries 408, 409, 429, 5xx and failures without an answer', () => {
    expect(isPermanentProvisioningError(answered(408, 'PROVIDER_BAD_RESPONSE', 'request_timeout'))).toBe(false);
    // The plugin's own key refused: not a refusal of the domain, retried while the admin mends it.
    expect(isPermanentProvisioningError(answered(401, 'PROVIDER_AUTH', 'unauthorized'))).toBe(false);
    expect(isPermanentProvisioningError(answered(409, 'PROVIDER_CONFLICT', 'conflict'))).toBe(false);
    expect(isPermanentProvisioningError(answered(429, 'PROVIDER_RATE_LIMITED', 'rate_limited'))).toBe(false);
    expect(isPermanentProvisioningError(answered(500, 'PROVIDER_UNAVAILABLE', 'internal_error'))).toBe(false);
    expect(isPermanentProvisioningError(answered(503, 'PROVIDER_UNAVAILABLE', 'unavailable'))).toBe(false);
    const transport = new ProviderError({
      code: 'PROVIDER_UNAVAILABLE',
      message: 'ECONNRESET',
      method: 'POST',
      path: '/v1.0/website',
      attempts: 1,
      sent: true,
    });
    expect(isPermanentProvisioningError(transport)).toBe(false);
  });

  it("keeps the plugin's own refusals permanent: a domain another account holds, the domain limit, a bad event", () => {
    expect(isPermanentProvisioningError(new AppError('CONFLICT', 'held by bob'))).toBe(true);
    expect(isPermanentProvisioningError(new AppError('LIMIT_REACHED', 'at most 1'))).toBe(true);
    expect(isPermanentProvisioningError(new AppError('VALIDATION_FAILED', 'no origin IP'))).toBe(true);
    expect(isPermanentProvisioningError(new Error('socket hang up'))).toBe(false);
  });
});
