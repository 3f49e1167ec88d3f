import type { LibraryFileStore } from '@service/library';
import type { OrganizationFiles } from '@service/storage';

/** Where a library import stores the Word templates of styles: the organization's files. */
export function libraryFileStore(files: OrganizationFiles): LibraryFileStore {
  return {
    put: async (bytes) => (await files.write('templates', bytes, bytes.length)).key,
    claim: (trx, keys) => files.claim(trx, keys),
    settle: (keys) => files.settle(keys),
  };
}
