export type { RateLimitDecision, RateLimitStore } from './rate-limit-store.ts';
export { MemoryRateLimitStore } from './memory-rate-limit-store.ts';
export type { MemoryRateLimitStoreOptions } from './memory-rate-limit-store.ts';
export { PostgresRateLimitStore } from './postgres-rate-limit-store.ts';
export { chargeDeferredCost, rateLimit } from './rate-limit-middleware.ts';
export type { RateLimitInfo, RateLimitOptions, RateLimitWarnLogger } from './rate-limit-middleware.ts';
export { clientIp, canonicalIp } from './client-ip.ts';
export type { ClientIpSource } from './client-ip.ts';
export { ipRateLimitKey } from './ip-rate-limit-key.ts';
