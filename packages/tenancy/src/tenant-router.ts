import type { Knex } from 'knex';
import { createKnex, DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts, type Logger } from '@service/db';
import { OrganizationRepository, type TenantLocation } from './organization-repository.ts';
import {
  OrganizationNotFoundError,
  TenancyError,
  TenantCapacityError,
  TenantRetainedError,
  TenantUnavailableError,
} from './tenancy-error.ts';
import { isConfiguredTenant, resolveTenantUrl, type TenantTopology } from './tenant-topology.ts';

/** A tenant database handle held for one request (or one job). Release it when done; releasing twice is harmless. */
export interface TenantLease {
  organizationId: string;
  db: Knex;
  release(): void;
}

export interface TenantRouterSettings {
  /**
   * TENANT_MAX_OPEN_POOLS: pools open at once in this process; the least recently used idle one is closed to open
   * another.
   */
  maxOpenPools: number;
  /** TENANT_POOL_MAX: connections per tenant pool. */
  poolMaxConnections: number;
  /** TENANT_POOL_IDLE_MS: a pool nobody held for this long is closed. */
  poolIdleMs: number;
  /**
   * TENANT_LOOKUP_CACHE_MS: how long an organization's location and state are reused before the control plane is asked
   * again.
   */
  lookupCacheMs: number;
}

export const DEFAULT_TENANT_ROUTER_SETTINGS: TenantRouterSettings = {
  maxOpenPools: 50,
  poolMaxConnections: 5,
  poolIdleMs: 5 * 60_000,
  lookupCacheMs: 5_000,
};

export interface TenantRouterOptions {
  edition: 'self-hosted' | 'hosted';
  controlPlane: Knex;
  /**
   * The configured tenant database (`dbs.tenant`): self-hosted's only one; in hosted, the one of organizations on
   * `default`/`default`. Never closed here.
   */
  configuredTenant: Knex;
  /** Hosted: the servers (tenantTopology(config.tenantServers, dbs.tenant)). Not needed self-hosted. */
  topology?: TenantTopology;
  settings?: Partial<TenantRouterSettings>;
  /** Timeouts of the pools it opens; `acquireTimeoutMs` also bounds the wait for a free pool slot. */
  timeouts?: DatabaseTimeouts;
  logger?: Logger;
  /** How a pool is opened; tests count them. Default @service/db createKnex. */
  openPool?: (url: string, maxConnections: number, applicationName: string, timeouts: DatabaseTimeouts) => Knex;
}

export interface TenantRouterStats {
  edition: 'self-hosted' | 'hosted';
  /** Tenant pools open now (the configured tenant database's pool is not counted). */
  openPools: number;
  /** Of those, pools a request holds right now. */
  heldPools: number;
  /** Leases held right now (requests and jobs using a tenant pool). */
  leases: number;
  /** Requests waiting because every pool was held and the cap was reached. */
  waiting: number;
  /** Since start. */
  poolsOpened: number;
  poolsClosed: number;
  /** Over the open tenant pools. */
  connections: { open: number; used: number; free: number; pendingAcquires: number };
  maxOpenPools: number;
  poolMaxConnections: number;
}

interface PoolEntry {
  key: string;
  db: Knex;
  refs: number;
  idleSince: number;
  /** Use counter value at the last lease: the smallest among idle pools is the least recently used. */
  lastUse: number;
}

const MAX_CACHED_LOCATIONS = 10_000;

type TarnPool = { numUsed(): number; numFree(): number; numPendingAcquires(): number; numPendingCreates(): number };

/**
 * The tenant database handle for an organization. Self-hosted: always the configured tenant
 * database, without a lookup. Hosted: the organization's location and state come from the control
 * plane (cached for `lookupCacheMs`); an organization that is not active is refused with a typed
 * error; each tenant database gets its own knex pool, opened on first use (concurrent first uses
 * share one), counted by leases, closed after `poolIdleMs` without one, and closed early (least
 * recently used first) when `maxOpenPools` are open and another is needed. A pool is never closed
 * while a lease holds it; when every open pool is held, a new tenant waits up to the acquire timeout
 * for one to be released, then gets TenantCapacityError.
 */
export class TenantRouter {
  private readonly settings: TenantRouterSettings;
  private readonly timeouts: DatabaseTimeouts;
  private readonly organizations: OrganizationRepository;
  private readonly pools = new Map<string, PoolEntry>();
  private readonly poolKeys = new WeakMap<TenantLocation, string>();
  private uses = 0;
  private readonly locations = new Map<string, { location: TenantLocation | null; expiresAt: number }>();
  private readonly lookups = new Map<string, Promise<TenantLocation | null>>();
  private readonly closing = new Set<Promise<void>>();
  private waiters: Array<() => void> = [];
  private poolsOpened = 0;
  private poolsClosed = 0;
  private closed = false;
  private readonly sweeper: NodeJS.Timeout | null;

  constructor(private readonly options: TenantRouterOptions) {
    this.settings = { ...DEFAULT_TENANT_ROUTER_SETTINGS, ...options.settings };
    this.timeouts = options.timeouts ?? DEFAULT_DATABASE_TIMEOUTS;
    this.organizations = new OrganizationRepository(options.controlPlane);
    if (options.edition === 'hosted' && !options.topology)
      throw new TypeError('TenantRouter: the hosted edition needs a topology (tenantTopology(...))');
    if (options.edition === 'hosted') {
      const every = Math.max(10, Math.min(this.settings.poolIdleMs / 2, 30_000));
      this.sweeper = setInterval(() => void this.closeIdle().catch(() => {}), every);
      this.sweeper.unref();
    } else {
      this.sweeper = null;
    }
  }

  /** Hosted: the tenant servers (for health checks); self-hosted: undefined. */
  get topology(): TenantTopology | undefined {
    return this.options.topology;
  }

  /**
   * The organization's tenant database for one request or job; release the lease when done with it (including a
   * streamed response).
   */
  acquire(organizationId: string): Promise<TenantLease> {
    if (this.closed)
      return Promise.reject(
        new TenancyError('router_closed', 'The tenant router is closed (the service is stopping).'),
      );
    if (this.options.edition === 'self-hosted')
      return Promise.resolve({ organizationId, db: this.options.configuredTenant, release() {} });
    // Why a synchronous path: a cached organization whose pool is open is the common case of every
    // request; it costs a map lookup instead of a chain of awaits.
    const cached = this.locations.get(organizationId);
    if (cached && cached.expiresAt > Date.now()) {
      try {
        const lease = this.leaseAt(organizationId, cached.location);
        if (lease) return Promise.resolve(lease);
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return this.acquireSlowly(organizationId);
  }

  private async acquireSlowly(organizationId: string): Promise<TenantLease> {
    const location = await this.locate(organizationId);
    const lease = this.leaseAt(organizationId, location);
    if (lease) return lease;
    // leaseAt returned null: the organization exists, is active, and its pool is not open yet.
    const at = location as TenantLocation;
    const entry = await this.enter(this.poolKey(at), resolveTenantUrl(this.options.topology!, at), at.tenantServer);
    return this.leaseOf(organizationId, entry);
  }

  /**
   * A lease when it can be given without waiting: the configured tenant, or an open pool. Throws
   * for organizations that are not active. Null when a pool must be opened first.
   */
  private leaseAt(organizationId: string, location: TenantLocation | null): TenantLease | null {
    if (!location) throw new OrganizationNotFoundError(organizationId);
    if (location.state === 'retained') throw new TenantRetainedError(organizationId);
    if (location.state !== 'active')
      throw new TenantUnavailableError(organizationId, location.state, location.stateReason);
    if (isConfiguredTenant(location)) return { organizationId, db: this.options.configuredTenant, release() {} };
    const entry = this.pools.get(this.poolKey(location));
    if (!entry) return null;
    this.touch(entry);
    return this.leaseOf(organizationId, entry);
  }

  private poolKey(location: TenantLocation): string {
    // Why memoised: building and hashing a fresh string on every lease was most of its cost.
    let key = this.poolKeys.get(location);
    if (key === undefined) {
      key = `${location.tenantServer}/${location.tenantDatabase}`;
      this.poolKeys.set(location, key);
    }
    return key;
  }

  private leaseOf(organizationId: string, entry: PoolEntry): TenantLease {
    let released = false;
    return {
      organizationId,
      db: entry.db,
      release: () => {
        if (released) return;
        released = true;
        this.leave(entry);
      },
    };
  }

  /** Takes a reference and marks the pool most recently used. */
  private touch(entry: PoolEntry): void {
    entry.refs += 1;
    entry.lastUse = ++this.uses;
  }

  /** Runs `work` with the organization's tenant database and releases it afterwards. */
  async withTenant<T>(organizationId: string, work: (db: Knex) => Promise<T>): Promise<T> {
    const lease = await this.acquire(organizationId);
    try {
      return await work(lease.db);
    } finally {
      lease.release();
    }
  }

  /**
   * Runs `work` on every tenant database with an open pool (and the configured one), one at a time,
   * holding each while it runs: housekeeping of tenants that saw traffic, without opening a pool for
   * every organization. Errors are passed to `onError` and the others go on.
   */
  async forEachOpenTenant(
    work: (db: Knex) => Promise<void>,
    onError: (err: unknown) => void = () => {},
  ): Promise<void> {
    const entries = [...this.pools.values()];
    for (const entry of entries) entry.refs += 1;
    try {
      for (const db of [this.options.configuredTenant, ...entries.map((e) => e.db)]) {
        try {
          await work(db);
        } catch (err) {
          onError(err);
        }
      }
    } finally {
      for (const entry of entries) this.leave(entry);
    }
  }

  /** Forgets cached locations (one organization, or all): after a state change or a move made by this process. */
  invalidate(organizationId?: string): void {
    if (organizationId === undefined) this.locations.clear();
    else this.locations.delete(organizationId);
  }

  stats(): TenantRouterStats {
    const connections = { open: 0, used: 0, free: 0, pendingAcquires: 0 };
    let heldPools = 0;
    let leases = 0;
    for (const entry of this.pools.values()) {
      if (entry.refs > 0) heldPools += 1;
      leases += entry.refs;
      const pool = (entry.db.client as { pool?: TarnPool | null }).pool;
      if (!pool) continue;
      connections.used += pool.numUsed();
      connections.free += pool.numFree();
      connections.open += pool.numUsed() + pool.numFree();
      connections.pendingAcquires += pool.numPendingAcquires();
    }
    return {
      edition: this.options.edition,
      openPools: this.pools.size,
      heldPools,
      leases,
      waiting: this.waiters.length,
      poolsOpened: this.poolsOpened,
      poolsClosed: this.poolsClosed,
      connections,
      maxOpenPools: this.settings.maxOpenPools,
      poolMaxConnections: this.settings.poolMaxConnections,
    };
  }

  /** Closes pools nobody has held for `poolIdleMs` (the sweeper calls it); returns how many. */
  async closeIdle(now = Date.now()): Promise<number> {
    const idle = [...this.pools.values()].filter((e) => e.refs === 0 && now - e.idleSince >= this.settings.poolIdleMs);
    await Promise.all(idle.map((e) => this.closePool(e)));
    return idle.length;
  }

  /**
   * Closes every tenant pool (not the configured tenant database) and refuses new leases. Call after the HTTP server
   * stopped.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
    await Promise.all([...this.pools.values()].map((e) => this.closePool(e)));
    await Promise.all([...this.closing]);
  }

  private async locate(organizationId: string): Promise<TenantLocation | null> {
    const now = Date.now();
    const cached = this.locations.get(organizationId);
    if (cached && cached.expiresAt > now) return cached.location;
    // Why shared: a burst of requests for a cold organization asks the control plane once.
    let lookup = this.lookups.get(organizationId);
    if (!lookup) {
      lookup = this.organizations
        .locate(organizationId)
        .then((location) => {
          this.locations.delete(organizationId);
          this.locations.set(organizationId, { location, expiresAt: Date.now() + this.settings.lookupCacheMs });
          if (this.locations.size > MAX_CACHED_LOCATIONS) this.locations.delete(this.locations.keys().next().value!);
          return location;
        })
        .finally(() => this.lookups.delete(organizationId));
      this.lookups.set(organizationId, lookup);
    }
    return lookup;
  }

  /**
   * Takes a reference on the pool of `key`, opening it if needed. Everything from the map lookup to
   * the insert is synchronous, so concurrent first uses cannot open two pools.
   */
  private async enter(key: string, url: string, server: string): Promise<PoolEntry> {
    const deadline = Date.now() + this.timeouts.acquireTimeoutMs;
    for (;;) {
      if (this.closed)
        throw new TenancyError('router_closed', 'The tenant router is closed (the service is stopping).');
      const existing = this.pools.get(key);
      if (existing) {
        this.touch(existing);
        return existing;
      }
      if (this.pools.size >= this.settings.maxOpenPools) {
        // Why a scan here instead of an ordered structure: eviction is rare, leases are every request.
        let victim: PoolEntry | null = null;
        for (const e of this.pools.values()) if (e.refs === 0 && (!victim || e.lastUse < victim.lastUse)) victim = e;
        if (victim) {
          void this.closePool(victim);
        } else {
          await this.waitForRelease(deadline);
          continue;
        }
      }
      const open = this.options.openPool ?? createKnex;
      const entry: PoolEntry = {
        key,
        db: open(url, this.settings.poolMaxConnections, `service:tenant:${server}`, this.timeouts),
        refs: 1,
        idleSince: 0,
        lastUse: ++this.uses,
      };
      this.pools.set(key, entry);
      this.poolsOpened += 1;
      return entry;
    }
  }

  private leave(entry: PoolEntry): void {
    entry.refs -= 1;
    if (entry.refs > 0) return;
    entry.idleSince = Date.now();
    // Why wake one: an idle pool is now available for eviction; a waiter opens its own pool in its place.
    this.waiters.shift()?.();
  }

  private waitForRelease(deadline: number): Promise<void> {
    const left = deadline - Date.now();
    if (left <= 0)
      return Promise.reject(new TenantCapacityError(this.settings.maxOpenPools, this.timeouts.acquireTimeoutMs));
    return new Promise<void>((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== wake);
        reject(new TenantCapacityError(this.settings.maxOpenPools, this.timeouts.acquireTimeoutMs));
      }, left);
      this.waiters.push(wake);
    });
  }

  private closePool(entry: PoolEntry): Promise<void> {
    if (this.pools.get(entry.key) !== entry) return Promise.resolve();
    this.pools.delete(entry.key);
    this.poolsClosed += 1;
    const closing = entry.db
      .destroy()
      .catch((err: unknown) =>
        this.options.logger?.warn('tenant_pool_close_failed', { message: (err as Error)?.message }),
      )
      .finally(() => this.closing.delete(closing));
    this.closing.add(closing);
    return closing;
  }
}
