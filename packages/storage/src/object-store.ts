import type { Readable } from 'node:stream';

/** Bytes `start` to `end` of an object, both included (as HTTP `Range: bytes=start-end`). */
export interface ByteRange {
  start: number;
  end: number;
}

/** An object being read: its bytes as a stream (the whole object, or the range asked for) and its full size. */
export interface ObjectRead {
  body: Readable;
  /** Size of the whole object. */
  size: number;
  /** The range `body` holds; absent when it holds the whole object. */
  range?: ByteRange;
}

/** What a write stored: its size and SHA-256 (hex), computed from the bytes as they were sent. */
export interface StoredObject {
  size: number;
  sha256: string;
}

export interface ListedObject {
  key: string;
  size: number;
}

/**
 * Where stored files live. Keys are paths of `[a-z0-9-]` segments joined by `/` (see
 * object-keys.ts); a backend maps them to its own names. Objects are written once: `put` never
 * replaces an object, and a key is never reused. Bodies are streamed both ways, so no object is
 * ever held whole in memory. Every method throws StoreUnavailableError when the store cannot be
 * reached and StoreFullError when it has no room.
 */
export interface ObjectStore {
  /** `local` or `s3`. */
  readonly kind: 'local' | 's3';
  /** Where it is, for logs and the administration page: a directory, or bucket and endpoint (never a secret). */
  readonly description: string;
  /**
   * Checks that the store can be used: reachable, credentials accepted, bucket present, writable
   * (a probe object is written and removed). Throws StoreUnavailableError naming the problem.
   */
  check(): Promise<void>;
  /**
   * Writes `body` (exactly `size` bytes) under `key`. Nothing is left under the key when it fails.
   * Throws ObjectExistsError when the key is taken.
   */
  put(key: string, body: Readable | Uint8Array, size: number): Promise<StoredObject>;
  /** Opens an object (or a range of it) for reading. Throws ObjectNotFoundError, RangeNotSatisfiableError. */
  get(key: string, range?: ByteRange): Promise<ObjectRead>;
  /** The object's size, or null when there is none. */
  head(key: string): Promise<{ size: number } | null>;
  /** Removes an object; a missing one is not an error. */
  remove(key: string): Promise<void>;
  /** Every object whose key starts with `prefix` (ending in `/`), in key order. */
  list(prefix: string): AsyncIterable<ListedObject>;
  /** Releases what the store holds open (connections). */
  close(): Promise<void>;
}
