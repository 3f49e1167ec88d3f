import { Type } from 'typebox';
import type { Fields } from '../field.ts';

/** Library items copied from the global library carry its key and the revision they came from. */
export const globalFields: Fields = {
  globalKey: { column: 'global_key', schema: Type.Union([Type.String(), Type.Null()], { description: 'Set on items copied from the global library; null for your own.' }) },
  globalRevision: { column: 'global_revision', schema: Type.Union([Type.Integer(), Type.Null()]) },
};
