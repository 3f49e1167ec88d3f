import type { ObjectReference } from '@service/storage';

/**
 * Every column whose rows name stored objects. The sweep never removes an object one of them names,
 * and the tenant migration `unclaimed_objects` records an object as released by a trigger on each
 * of them when its row is deleted or names another object.
 */
export const OBJECT_REFERENCES: readonly ObjectReference[] = [
  { table: 'evidence_images', column: 'storage_key', sha256Column: 'sha256', sizeColumn: 'size' },
  {
    table: 'report_styles',
    column: 'template_storage_key',
    sha256Column: 'template_sha256',
    sizeColumn: 'template_size',
  },
];
