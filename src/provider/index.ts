/** Public surface of the provider client; the rest of src/ imports from here only. */
export {
  createProviderClient,
  parseRetryAfter,
  type ProviderAttempt,
  type ProviderBudget,
  type ProviderPriority,
  type ProviderClient,
  type ProviderClientOptions,
  type ProviderClientWithKey,
  type ProviderLogger,
  type ProviderRetryOptions,
  type StatisticsRange,
} from './client.js';
export {
  isProviderError,
  PROVIDER_ERROR_CODES,
  ProviderError,
  type ProviderErrorCause,
  type ProviderErrorCode,
  type ProviderErrorDetail,
} from './errors.js';
export * from './schemas.js';
export * from './spec.js';
