import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { hashingStream } from './local-object-store.ts';
import type { ByteRange, ListedObject, ObjectRead, ObjectStore, StoredObject } from './object-store.ts';
import { assertObjectKey } from './object-keys.ts';
import {
  ObjectExistsError,
  ObjectNotFoundError,
  RangeNotSatisfiableError,
  StoreFullError,
  StoreUnavailableError,
} from './store-errors.ts';

/** An S3-compatible store: `FILES_STORE=s3` and the `S3_*` settings. Unset values fall back to the AWS SDK's own chain. */
export interface S3StoreSettings {
  /** `https://s3.example.com`; null: AWS S3 of the region. */
  endpoint: string | null;
  bucket: string;
  /** null: the SDK's chain (`AWS_REGION`, the profile), else `us-east-1`. */
  region: string | null;
  /** null (with the secret): the SDK's credential chain (environment, profile, container or instance role). */
  accessKeyId: string | null;
  secretAccessKey: string | null;
  sessionToken: string | null;
  /** Bucket in the path (`endpoint/bucket/key`), as most self-hosted servers need, rather than in the host name. */
  forcePathStyle: boolean;
  /** Put before every key (`service/`), so several installations can share a bucket; empty or ending in `/`. */
  prefix: string;
}

/** How long a connection may take, and a request with no answer. Short: a request waiting on a dead store answers 503 soon. */
const CONNECT_TIMEOUT_MS = 3_000;
const REQUEST_TIMEOUT_MS = 60_000;

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

/** The S3 answer as the store's errors; `key` for not-found. Reasons name no host and no secret. */
function errorOf(err: unknown, key?: string): Error {
  const name = (err as { name?: string; Code?: string })?.name ?? '';
  const status = statusOf(err);
  if (name === 'NoSuchKey' || (key !== undefined && (name === 'NotFound' || status === 404) && name !== 'NoSuchBucket'))
    return new ObjectNotFoundError(key ?? '');
  if (name === 'NoSuchBucket') return new StoreUnavailableError('bucket missing', { cause: err });
  if (name === 'PreconditionFailed' || status === 412) return new ObjectExistsError(key ?? '');
  if (name === 'InvalidRange' || status === 416) return new RangeNotSatisfiableError(0);
  if (status === 507 || name === 'InsufficientCapacity' || name === 'QuotaExceeded' || name === 'InsufficientStorage')
    return new StoreFullError({ cause: err });
  if (name === 'InvalidAccessKeyId' || name === 'SignatureDoesNotMatch' || name === 'CredentialsProviderError')
    return new StoreUnavailableError('bad credentials', { cause: err });
  if (name === 'AccessDenied' || status === 403) return new StoreUnavailableError('access denied', { cause: err });
  if (name === 'TimeoutError' || name === 'RequestTimeout')
    return new StoreUnavailableError('timed out', { cause: err });
  if (status !== undefined && status >= 500) return new StoreUnavailableError(`server error ${status}`, { cause: err });
  if (status === undefined) return new StoreUnavailableError('unreachable', { cause: err });
  return err as Error;
}

/**
 * Objects in an S3-compatible bucket (AWS S3, Ceph RGW, MinIO, R2, Garage, SeaweedFS) through the
 * AWS SDK v3. Single PutObjects with `If-None-Match: *` (write once; multipart uploads cannot be
 * made conditional on every server), streamed with their length, checksums only where an
 * operation requires them (servers differ in the newer checksum headers).
 */
export class S3ObjectStore implements ObjectStore {
  readonly kind = 's3' as const;
  readonly description: string;
  private readonly client: S3Client;

  constructor(private readonly settings: S3StoreSettings) {
    const config: S3ClientConfig = {
      forcePathStyle: settings.forcePathStyle,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.region ? { region: settings.region } : {}),
      ...(settings.accessKeyId && settings.secretAccessKey
        ? {
            credentials: {
              accessKeyId: settings.accessKeyId,
              secretAccessKey: settings.secretAccessKey,
              ...(settings.sessionToken ? { sessionToken: settings.sessionToken } : {}),
            },
          }
        : {}),
    };
    this.client = new S3Client(config);
    this.description =
      `S3 bucket ${settings.bucket}` +
      (settings.prefix ? ` under ${settings.prefix}` : '') +
      (settings.endpoint ? ` at ${new URL(settings.endpoint).origin}` : '');
  }

  private objectKey(key: string): string {
    assertObjectKey(key);
    return `${this.settings.prefix}${key}`;
  }

  private async send<T>(run: () => Promise<T>, key?: string): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw errorOf(err, key);
    }
  }

  async check(): Promise<void> {
    // Why a listing rather than HeadBucket: a HEAD answer has no body, so a wrong key, a wrong
    // secret and a missing permission all look alike; a GET's error body names which it is.
    try {
      await this.client.send(
        new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: this.settings.prefix, MaxKeys: 1 }),
      );
    } catch (err) {
      const mapped = errorOf(err);
      if (mapped instanceof StoreUnavailableError) throw mapped;
      throw new StoreUnavailableError(`unexpected answer ${statusOf(err) ?? (err as Error).name}`, { cause: err });
    }
    const probe = `probe/${randomBytes(10).toString('hex')}`;
    try {
      await this.put(probe, Buffer.from('probe'), 5);
      await this.remove(probe);
    } catch (err) {
      if (err instanceof StoreUnavailableError && err.reason !== 'access denied') throw err;
      throw new StoreUnavailableError('not writable', { cause: err });
    }
  }

  async put(key: string, body: Readable | Uint8Array, size: number): Promise<StoredObject> {
    const Key = this.objectKey(key);
    if (!(body instanceof Readable) && body.byteLength !== size)
      throw new Error(`expected ${size} bytes, got ${body.byteLength}`);
    const hasher = hashingStream();
    const source = body instanceof Readable ? body : Readable.from([Buffer.from(body)]);
    // Why abort: a body that fails or ends short would leave the server waiting for the bytes announced.
    const abort = new AbortController();
    const piped = pipeline(source, hasher).then(
      () => {
        const { size: sent } = hasher.digest();
        if (sent !== size) {
          const err = new Error(`expected ${size} bytes, got ${sent}`);
          abort.abort(err);
          throw err;
        }
      },
      (err: unknown) => {
        abort.abort(err);
        throw err;
      },
    );
    const sent = this.send(
      () =>
        this.client.send(
          new PutObjectCommand({
            Bucket: this.settings.bucket,
            Key,
            Body: hasher,
            ContentLength: size,
            IfNoneMatch: '*',
          }),
          { abortSignal: abort.signal },
        ),
      key,
    );
    // Why destroy on a failed request: nobody reads the body any more, and the source would wait forever.
    sent.catch((err: unknown) => hasher.destroy(err as Error));
    const [sourceResult, sendResult] = await Promise.allSettled([piped, sent]);
    if (sendResult.status === 'rejected') throw sendResult.reason;
    if (sourceResult.status === 'rejected') throw sourceResult.reason;
    return hasher.digest();
  }

  async get(key: string, range?: ByteRange): Promise<ObjectRead> {
    const Key = this.objectKey(key);
    try {
      const res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.settings.bucket,
          Key,
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      const body = res.Body as Readable;
      const total = res.ContentRange ? Number(/\/(\d+)$/.exec(res.ContentRange)?.[1]) : Number(res.ContentLength);
      if (range && res.ContentRange) {
        const m = /bytes (\d+)-(\d+)\//.exec(res.ContentRange);
        return { body, size: total, range: { start: Number(m?.[1]), end: Number(m?.[2]) } };
      }
      return { body, size: total };
    } catch (err) {
      const mapped = errorOf(err, key);
      if (mapped instanceof RangeNotSatisfiableError) {
        const head = await this.head(key);
        if (!head) throw new ObjectNotFoundError(key);
        throw new RangeNotSatisfiableError(head.size);
      }
      throw mapped;
    }
  }

  async head(key: string): Promise<{ size: number } | null> {
    try {
      const res = await this.client.send(
        new HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }),
      );
      return { size: Number(res.ContentLength) };
    } catch (err) {
      const mapped = errorOf(err, key);
      if (mapped instanceof ObjectNotFoundError) return null;
      throw mapped;
    }
  }

  async remove(key: string): Promise<void> {
    await this.send(
      () => this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) })),
      key,
    );
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    if (!prefix.endsWith('/')) throw new TypeError('a list prefix ends in /');
    const full = `${this.objectKey(prefix.slice(0, -1))}/`;
    let token: string | undefined;
    do {
      const page = await this.send(() =>
        this.client.send(
          new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: full, ContinuationToken: token }),
        ),
      );
      for (const item of page.Contents ?? [])
        if (item.Key) yield { key: item.Key.slice(this.settings.prefix.length), size: Number(item.Size ?? 0) };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
