/**
 * An organization's slug: the short name its users sign in with in the hosted edition (the
 * sign-in request names the organization by it, so an e-mail address may have accounts in several
 * organizations). Lower-case letters, digits and inner `-`, at most 63 characters, unique. The
 * control-plane migration that introduced it holds the same rule as a check constraint.
 */
export const ORGANIZATION_SLUG = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** Slugs of at most this many characters are derived from names, leaving room for a suffix. */
const DERIVED_MAX_LENGTH = 40;

/**
 * The slug a name suggests: lower-case ASCII letters and digits, every other run of characters one
 * `-`, at most 40 characters; `organization` when nothing is left (a name in another script).
 */
export function slugOfOrganizationName(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, DERIVED_MAX_LENGTH)
    .replace(/^-+|-+$/g, '');
  return slug === '' ? 'organization' : slug;
}
