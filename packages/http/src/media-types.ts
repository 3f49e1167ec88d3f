/** JSON Merge Patch (RFC 7396): accepted on PATCH with the same meaning as our JSON PATCH (absent = unchanged). */
export const MERGE_PATCH_JSON_TYPE = 'application/merge-patch+json';
