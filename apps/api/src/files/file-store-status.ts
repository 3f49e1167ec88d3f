import { HttpError, UNAVAILABLE_RETRY_AFTER_SECONDS, type JsonLogger } from '@service/http';
import {
  isNoSpaceError,
  ObjectNotFoundError,
  StoreFullError,
  StoreUnavailableError,
  type ObjectStore,
} from '@service/storage';

/** What the administration page shows about the file store. */
export interface FileStoreState {
  kind: ObjectStore['kind'];
  where: string;
  state: 'ok' | 'unavailable' | 'full';
  /** Why it is not ok (`unreachable`, `bad credentials`, `disk full`, ...), never a host or secret. */
  reason: string | null;
  /** Since when it is not ok. */
  since: Date | null;
  /** The last time a request or a check reached it. */
  lastOk: Date | null;
}

/** Probed by housekeeping: a key that never exists, so the answer is "no such object" from a store that works. */
const PING_KEY = 'probe/ping';

/**
 * The file store's health as requests and the periodic check meet it: a failure is logged once
 * when it begins (`file_store_unavailable`, `file_store_full`) and once when it ends
 * (`file_store_recovered`), and shown to administrators on the administration page.
 */
export class FileStoreStatus {
  private problem: { state: 'unavailable' | 'full'; reason: string; since: Date } | null = null;
  private lastOk: Date | null = null;

  constructor(
    private readonly store: ObjectStore,
    private readonly logger: JsonLogger,
  ) {}

  failed(err: StoreUnavailableError | StoreFullError): void {
    const state = err instanceof StoreFullError ? 'full' : 'unavailable';
    const reason = err instanceof StoreUnavailableError ? err.reason : 'no room left';
    if (this.problem?.state === state && this.problem.reason === reason) return;
    this.problem = { state, reason, since: new Date() };
    this.logger.error(state === 'full' ? 'file_store_full' : 'file_store_unavailable', {
      kind: this.store.kind,
      where: this.store.description,
      reason,
    });
  }

  reached(): void {
    this.lastOk = new Date();
    if (!this.problem) return;
    this.logger.info('file_store_recovered', { kind: this.store.kind, where: this.store.description });
    this.problem = null;
  }

  /** Asks the store for an object that does not exist: an answer means it can be reached. */
  async check(): Promise<void> {
    try {
      await this.store.head(PING_KEY);
      this.reached();
    } catch (err) {
      if (err instanceof StoreUnavailableError || err instanceof StoreFullError) this.failed(err);
      else throw err;
    }
  }

  snapshot(): FileStoreState {
    return {
      kind: this.store.kind,
      where: this.store.description,
      state: this.problem?.state ?? 'ok',
      reason: this.problem?.reason ?? null,
      since: this.problem?.since ?? null,
      lastOk: this.lastOk,
    };
  }

  /**
   * The store's errors as answers (and noted here): unreachable 503 `storage_unavailable` with
   * `Retry-After`, full 507 `storage_full` (also a full temporary-upload disk), a missing object 404.
   */
  httpErrorOf(err: unknown): HttpError | null {
    if (err instanceof StoreUnavailableError) {
      this.failed(err);
      return new HttpError(503, 'storage_unavailable', 'The file store is unavailable right now; try again shortly.', {
        cause: err,
        expose: true,
        headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
      });
    }
    if (err instanceof StoreFullError || isNoSpaceError(err)) {
      if (err instanceof StoreFullError) this.failed(err);
      return new HttpError(507, 'storage_full', 'There is no room left to store this file; nothing was stored.', {
        cause: err,
        expose: true,
      });
    }
    if (err instanceof ObjectNotFoundError) return new HttpError(404, 'not_found', 'The file is missing from storage.');
    return null;
  }
}
