export { ApiError, retryAfterSeconds, type ErrorDetail } from './api-error.ts';
export { DEFAULT_MAX_UPLOAD_BYTES, fileFrom, type FileFromOptions, type UploadSource } from './file-from.ts';
export type { components, operations, paths } from './generated/openapi.ts';
export { nextLink } from './link-header.ts';
export { NoAnswerError, retryingFetch, type RetryEvent, type RetryOptions } from './retrying-fetch.ts';
export { retrySafetyOf, type RetrySafety } from './operation-retries.ts';
export {
  createServiceClient,
  fileNameOf,
  ok,
  serializeBody,
  type Download,
  type DownloadParams,
  type DownloadPath,
  type ListPath,
  type ListQuery,
  type ListRow,
  type ServiceClient,
  type ServiceClientOptions,
} from './service-client.ts';
