export * from './http-error.ts';
export { createJsonLogger } from './json-logger.ts';
export type { JsonLogger, LogLevel } from './json-logger.ts';
export { requestLog } from './request-log.ts';
export { errorMiddleware } from './error-middleware.ts';
export type { ErrorTranslator } from './error-middleware.ts';
export { OpenApiRegistry, IDEMPOTENCY_KEY_HEADER, NUL_FREE_PATTERN } from './openapi-registry.ts';
export type { HttpMethod, OperationDoc, ResponseDoc, HeaderDoc, HeaderParameterDoc } from './openapi-registry.ts';
export { Validator, findNulCharacters } from './validate.ts';
export { MAX_JSON_DEPTH, tooDeepAt } from './json-depth.ts';
export { defineRoute, requiredFile } from './define-route.ts';
export type { RouteDefinition, RouteInput, RouteDefaults, UploadedFile } from './define-route.ts';
export { MERGE_PATCH_JSON_TYPE } from './media-types.ts';
export * from './rate-limit/index.ts';
export {
  PaginationQuery,
  toPage,
  setPaginationHeaders,
  PAGINATION_HEADERS,
  DEFAULT_PER_PAGE,
  MAX_PER_PAGE,
} from './pagination.ts';
export type { Page } from './pagination.ts';
export {
  runIdempotent,
  requestFingerprint,
  pruneIdempotencyRecords,
  validateIdempotencyKey,
  IDEMPOTENCY_WINDOW_MS,
} from './idempotency.ts';
export type { StoredResponse, IdempotencyOutcome } from './idempotency.ts';
export { absoluteLocation, externalOrigin, externalOriginOf, resolveExternalOrigin } from './external-origin.ts';
export type { ExternalOriginSource } from './external-origin.ts';
export { conditionalGet, ifNoneMatchHits, STREAMED_ETAG_MAX_BYTES } from './conditional-get.ts';
export { compressResponses, isCompressibleType, COMPRESSION_THRESHOLD_BYTES } from './compress-responses.ts';
export { corsPolicy, CORS_EXPOSED_HEADERS, CORS_ALLOWED_HEADERS } from './cors-policy.ts';
export { allowedMethodsOf, answerOptions, answerUnrouted } from './allowed-methods.ts';
export { parseByteRange, rangeResponses, RANGE_HEADERS, sendStoredFile, storedFileEtag } from './stored-download.ts';
export type { ByteSpan } from './stored-download.ts';
