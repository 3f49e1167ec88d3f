export type { ByteRange, ListedObject, ObjectRead, ObjectStore, StoredObject } from './object-store.ts';
export {
  isNoSpaceError,
  ObjectExistsError,
  ObjectNotFoundError,
  RangeNotSatisfiableError,
  StoreFullError,
  StoreUnavailableError,
} from './store-errors.ts';
export { assertObjectKey, isObjectKey, newObjectKey, organizationPrefix, type ObjectKind } from './object-keys.ts';
export { hashingStream, LocalObjectStore, STALE_PARTIAL_MS } from './local-object-store.ts';
export { S3ObjectStore, type S3StoreSettings } from './s3-object-store.ts';
export {
  createObjectStore,
  FileStoreStartError,
  openObjectStore,
  type FileStoreSettings,
} from './open-object-store.ts';
export {
  OrganizationFiles,
  StoredFiles,
  SWEEP_BATCH,
  SWEEP_GRACE_MS,
  type ObjectReference,
  type WrittenObject,
} from './stored-files.ts';
export { copyObject, copyObjects, type CopyOutcome, type ExpectedObject } from './copy-objects.ts';
