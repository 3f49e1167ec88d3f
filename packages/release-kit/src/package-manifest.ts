import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { ReleaseKitError } from './release-kit-error.ts';
import { assertSafeRelativePath } from './sha256-sums.ts';
import { checkMinUpgradeFrom, isReleaseVersion } from './versions.ts';

export const MANIFEST_FORMAT = 'service-package-manifest-v1';
export const IMAGE_ROLES = ['app', 'database', 'files', 'proxy'] as const;
export type ImageRole = (typeof IMAGE_ROLES)[number];
const MAX_MANIFEST_BYTES = 256 * 1024;

const Version = Type.String({ minLength: 5, maxLength: 64 });
const SchemaHead = Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()]);

export const ManifestImageSchema = Type.Object(
  {
    role: Type.Union([Type.Literal('app'), Type.Literal('database'), Type.Literal('files'), Type.Literal('proxy')]),
    /** Repository name as the container engine knows it: `service/app`, `postgres`. */
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '^[a-z0-9][a-z0-9._/-]*$' }),
    tag: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]*$' }),
    /** The image id (digest of its configuration) as `docker image inspect` reports it after loading. */
    digest: Type.String({ pattern: '^sha256:[0-9a-f]{64}$' }),
    /** The archive `docker save` wrote, relative to the package folder: `images/app.tar`. */
    archive: Type.String({ minLength: 1, maxLength: 200 }),
    bytes: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

export const PackageManifestSchema = Type.Object(
  {
    format: Type.Literal(MANIFEST_FORMAT),
    product: Type.Literal('service'),
    version: Version,
    /** The oldest installed version that may upgrade straight to this one. */
    minUpgradeFrom: Version,
    /** Fixed per release (the changelog date), never the build time, so builds are reproducible. */
    createdAt: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{3})?Z$' }),
    /** Source commit the release was built from. */
    sourceSha: Type.String({ maxLength: 64 }),
    images: Type.Array(ManifestImageSchema, { minItems: 1, maxItems: 16 }),
    library: Type.Object(
      { version: Type.String({ minLength: 1, maxLength: 128 }), items: Type.Integer({ minimum: 0 }) },
      { additionalProperties: false },
    ),
    /** Last migration of each database after this release has started. */
    schemaHeads: Type.Object(
      { controlPlane: SchemaHead, shared: SchemaHead, tenant: SchemaHead },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export type ManifestImage = Static<typeof ManifestImageSchema>;
export type PackageManifest = Static<typeof PackageManifestSchema>;

const check = Compile(PackageManifestSchema);

const PACKAGE_HINT = 'The package was not made by the release tool or was altered; get it again from the vendor.';

/**
 * A JSON file of a package, size-capped and checked against its schema; every failure is an
 * `invalid_manifest` naming the file and the field.
 */
export function parsePackageJsonFile<T>(
  text: string,
  source: string,
  maxBytes: number,
  check: { Check(value: unknown): value is T; Errors(value: unknown): Iterable<unknown> },
): T {
  const hint = PACKAGE_HINT;
  if (text.length > maxBytes)
    throw new ReleaseKitError('invalid_manifest', `${source} is larger than ${maxBytes} bytes`, { hint });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new ReleaseKitError('invalid_manifest', `${source} is not valid JSON (${(cause as Error).message})`, {
      hint,
      cause,
    });
  }
  if (!check.Check(value)) {
    const first = [...(check.Errors(value) as Iterable<{ instancePath: string; message: string }>)][0];
    throw new ReleaseKitError(
      'invalid_manifest',
      `${source} field ${first?.instancePath || '/'} ${first?.message ?? 'is invalid'}`,
      { hint },
    );
  }
  return value;
}

/** Reads and validates manifest.json; every failure names the field. */
export function parsePackageManifest(text: string, source = 'manifest.json'): PackageManifest {
  const manifest = parsePackageJsonFile(text, source, MAX_MANIFEST_BYTES, check);
  validateManifestRules(manifest, source);
  return manifest;
}

/** Rules a schema cannot say: real semver, minUpgradeFrom not newer, safe archive paths, one image per role. */
export function validateManifestRules(manifest: PackageManifest, source = 'manifest.json'): void {
  const hint = PACKAGE_HINT;
  for (const [field, value] of [
    ['version', manifest.version],
    ['minUpgradeFrom', manifest.minUpgradeFrom],
  ] as const) {
    if (!isReleaseVersion(value))
      throw new ReleaseKitError('invalid_manifest', `${source} ${field} "${value}" is not a semantic version`, {
        hint,
      });
  }
  checkMinUpgradeFrom(manifest.version, manifest.minUpgradeFrom);
  const roles = new Set<string>();
  const archives = new Set<string>();
  for (const image of manifest.images) {
    assertSafeRelativePath(image.archive, `${source} image ${image.name}`);
    if (!image.archive.startsWith('images/'))
      throw new ReleaseKitError(
        'invalid_manifest',
        `${source} image ${image.name} is not stored under images/ (${image.archive})`,
        { hint },
      );
    if (roles.has(image.role))
      throw new ReleaseKitError('invalid_manifest', `${source} has two images with the role ${image.role}`, { hint });
    if (archives.has(image.archive))
      throw new ReleaseKitError('invalid_manifest', `${source} names ${image.archive} for two images`, { hint });
    roles.add(image.role);
    archives.add(image.archive);
  }
  if (!roles.has('app')) throw new ReleaseKitError('invalid_manifest', `${source} has no app image`, { hint });
}

/** manifest.json bytes: fixed key order, two-space indent, final newline (the build is reproducible). */
export function serializePackageManifest(manifest: PackageManifest): string {
  validateManifestRules(manifest);
  const ordered: PackageManifest = {
    format: manifest.format,
    product: manifest.product,
    version: manifest.version,
    minUpgradeFrom: manifest.minUpgradeFrom,
    createdAt: manifest.createdAt,
    sourceSha: manifest.sourceSha,
    images: [...manifest.images]
      .sort((a, b) => IMAGE_ROLES.indexOf(a.role) - IMAGE_ROLES.indexOf(b.role))
      .map((i) => ({ role: i.role, name: i.name, tag: i.tag, digest: i.digest, archive: i.archive, bytes: i.bytes })),
    library: { version: manifest.library.version, items: manifest.library.items },
    schemaHeads: {
      controlPlane: manifest.schemaHeads.controlPlane,
      shared: manifest.schemaHeads.shared,
      tenant: manifest.schemaHeads.tenant,
    },
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

export function imageReference(image: Pick<ManifestImage, 'name' | 'tag'>): string {
  return `${image.name}:${image.tag}`;
}
