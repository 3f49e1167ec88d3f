import type { Config } from '@service/config';
import { createObjectStore, openObjectStore, StoredFiles } from '@service/storage';
import { OBJECT_REFERENCES } from './object-references.ts';

/**
 * The service's files: the store `FILES_STORE` names, checked (reachable, credentials, bucket,
 * writable; a crashed write's partial files removed), with the columns that name its objects.
 * Throws FileStoreStartError, whose message is the one line to print.
 */
export async function openStoredFiles(config: Pick<Config, 'filesStore'>): Promise<StoredFiles> {
  return new StoredFiles(await openObjectStore(config.filesStore), OBJECT_REFERENCES);
}

/** The same, not contacted yet: for an app that is only built (the OpenAPI document), never serving. */
export function storedFilesOf(config: Pick<Config, 'filesStore'>): StoredFiles {
  return new StoredFiles(createObjectStore(config.filesStore), OBJECT_REFERENCES);
}
