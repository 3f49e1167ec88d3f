import { LocalObjectStore } from './local-object-store.ts';
import type { ObjectStore } from './object-store.ts';
import { S3ObjectStore, type S3StoreSettings } from './s3-object-store.ts';
import { StoreUnavailableError } from './store-errors.ts';

/** `FILES_STORE` and what each backend needs, as `loadConfig` reads them. */
export type FileStoreSettings = { kind: 'local'; dir: string } | ({ kind: 's3' } & S3StoreSettings);

/** The store the settings name (nothing is contacted yet). */
export function createObjectStore(settings: FileStoreSettings): ObjectStore {
  return settings.kind === 'local' ? new LocalObjectStore(settings.dir) : new S3ObjectStore(settings);
}

/** Why a store cannot be used at start, as one line: `file store S3 bucket b at http://h:1: bucket missing`. */
export class FileStoreStartError extends Error {
  constructor(store: ObjectStore, err: StoreUnavailableError) {
    super(`file store ${store.description}: ${err.reason}`, { cause: err });
    this.name = 'FileStoreStartError';
  }
}

/** Opens and checks the store (reachable, credentials, bucket, writable); throws FileStoreStartError naming what is wrong. */
export async function openObjectStore(settings: FileStoreSettings): Promise<ObjectStore> {
  const store = createObjectStore(settings);
  try {
    await store.check();
  } catch (err) {
    await store.close();
    if (err instanceof StoreUnavailableError) throw new FileStoreStartError(store, err);
    throw err;
  }
  return store;
}
