import { randomBytes } from 'node:crypto';

/**
 * Object keys. Every object the service writes lives under its organization's prefix
 * (`org/<organization id>/`), in a folder for its kind, under 40 random hex characters sharded by
 * their first two: `org/6f1c…/evidence/3a/3a9f…`. No client-supplied name ever reaches a key,
 * and a random key of 160 bits cannot collide. Keys written before organizations had prefixes
 * (`evidence/3a/3a9f…`) stay valid and are read where they are.
 */

/** What an object is: an evidence image, a Word template (uploaded or from the library), a print-ready image. */
export type ObjectKind = 'evidence' | 'templates';

const SEGMENT = '[a-z0-9][a-z0-9-]{0,63}';
const KEY = new RegExp(`^${SEGMENT}(/${SEGMENT}){0,7}$`);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** True for a key a backend may map to a name: lower-case segments, no `.`, no `..`, no leading `/`. */
export function isObjectKey(key: string): boolean {
  return KEY.test(key);
}

/** Throws for anything that is not an object key, so no key can name a path outside the store. */
export function assertObjectKey(key: string): void {
  if (!isObjectKey(key)) throw new TypeError(`invalid object key ${JSON.stringify(key.slice(0, 120))}`);
}

/** The prefix all of an organization's objects live under, ending in `/`. */
export function organizationPrefix(organizationId: string): string {
  const id = organizationId.toLowerCase();
  if (!UUID.test(id)) throw new TypeError(`invalid organization id ${JSON.stringify(organizationId.slice(0, 80))}`);
  return `org/${id}/`;
}

/** A new key for an object of `kind` of the organization. */
export function newObjectKey(organizationId: string, kind: ObjectKind): string {
  const random = randomBytes(20).toString('hex');
  return `${organizationPrefix(organizationId)}${kind}/${random.slice(0, 2)}/${random}`;
}
