import { ConfigError } from './config-error.ts';

/** Where stored files live: a directory (`FILES_STORE=local`, the default) or an S3-compatible bucket. */
export type FilesStoreConfig =
  | { kind: 'local'; dir: string }
  | {
      kind: 's3';
      endpoint: string | null;
      bucket: string;
      region: string | null;
      accessKeyId: string | null;
      secretAccessKey: string | null;
      sessionToken: string | null;
      forcePathStyle: boolean;
      prefix: string;
    };

type Env = Record<string, string | undefined>;

/** The first of `names` that is set (trimmed), or null. */
function first(env: Env, ...names: string[]): { name: string; value: string } | null {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  return null;
}

function endpointOf(found: { name: string; value: string } | null): string | null {
  if (!found) return null;
  let url: URL | null = null;
  try {
    url = new URL(found.value);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash)
    throw new ConfigError(
      found.name,
      'expected an http:// or https:// URL such as https://s3.example.com (S3 endpoint)',
    );
  if (url.username || url.password)
    throw new ConfigError(found.name, 'put credentials in S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, not in the URL');
  return found.value.replace(/\/+$/, '');
}

function prefixOf(raw: string | undefined): string {
  const value = (raw ?? '').trim().replace(/^\/+|\/+$/g, '');
  if (value === '') return '';
  if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/.test(value) || value.length > 200)
    throw new ConfigError(
      'S3_PREFIX',
      'expected folder names of letters, digits, ".", "_" and "-" separated by "/", such as service/production (key prefix)',
    );
  return `${value}/`;
}

/**
 * `FILES_STORE` and the `S3_*` settings. Where an `S3_*` setting is unset, the standard AWS one is
 * read (`AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, `AWS_REGION`, `AWS_DEFAULT_REGION`,
 * `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`); with no key pair at all the
 * AWS SDK's own credential chain applies (profile, container or instance role).
 */
export function readFilesStore(env: Env, filesDir: string): FilesStoreConfig {
  const kind = (env.FILES_STORE ?? '').trim() || 'local';
  if (kind === 'local') return { kind: 'local', dir: filesDir };
  if (kind !== 's3') throw new ConfigError('FILES_STORE', 'expected one of local, s3 (where stored files live)');
  const bucket = first(env, 'S3_BUCKET');
  if (!bucket) throw new ConfigError('S3_BUCKET', 'required with FILES_STORE=s3 (the bucket stored files go to)');
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket.value))
    throw new ConfigError('S3_BUCKET', 'expected a bucket name of 3 to 63 lower-case letters, digits, "." and "-"');
  const endpoint = endpointOf(first(env, 'S3_ENDPOINT', 'AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL'));
  const ownKeys = [first(env, 'S3_ACCESS_KEY_ID'), first(env, 'S3_SECRET_ACCESS_KEY')];
  if ((ownKeys[0] === null) !== (ownKeys[1] === null))
    throw new ConfigError(
      ownKeys[0] ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID',
      'set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY together, or neither (then the AWS credential chain is used)',
    );
  const [accessKeyId, secretAccessKey] = ownKeys[0]
    ? [ownKeys[0].value, ownKeys[1]!.value]
    : [first(env, 'AWS_ACCESS_KEY_ID')?.value ?? null, first(env, 'AWS_SECRET_ACCESS_KEY')?.value ?? null];
  const pathStyle = first(env, 'S3_FORCE_PATH_STYLE')?.value.toLowerCase();
  if (pathStyle !== undefined && !['true', 'false', '1', '0'].includes(pathStyle))
    throw new ConfigError(
      'S3_FORCE_PATH_STYLE',
      'expected true or false (bucket in the path rather than the host name)',
    );
  return {
    kind: 's3',
    endpoint,
    bucket: bucket.value,
    region: first(env, 'S3_REGION', 'AWS_REGION', 'AWS_DEFAULT_REGION')?.value ?? (endpoint ? 'us-east-1' : null),
    accessKeyId,
    secretAccessKey,
    sessionToken: ownKeys[0] ? null : (first(env, 'AWS_SESSION_TOKEN')?.value ?? null),
    // Why path style by default with an endpoint: self-hosted servers rarely have a DNS name per bucket.
    forcePathStyle: pathStyle === undefined ? endpoint !== null : pathStyle === 'true' || pathStyle === '1',
    prefix: prefixOf(env.S3_PREFIX),
  };
}
