/**
 * A brief per-user cache of grants, so that a burst of CALLs from one operator asks the FE
 * `SHOW GRANTS` once. Entries expire after `ttlMs`; concurrent lookups for the same user share
 * one fetch; a failed fetch is not cached. The clock is passed in for tests.
 */
import type { UserGrants } from './privileges.js';

export interface GrantCacheOptions {
  ttlMs: number;
  /** Upper bound on cached users; the oldest entry is dropped beyond it. */
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  grants: UserGrants;
  expiresAt: number;
}

export class GrantCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<UserGrants>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(opts: GrantCacheOptions) {
    this.ttlMs = opts.ttlMs;
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.now = opts.now ?? Date.now;
  }

  /** The key of a user: the name and the host as the server identifies them. */
  static key(user: string, host: string): string {
    return `${user}\u0000${host}`;
  }

  /** Cached grants, or fetch them (once, even when asked concurrently). */
  async get(key: string, fetch: () => Promise<UserGrants>): Promise<UserGrants> {
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > this.now()) return hit.grants;
    if (hit) this.entries.delete(key);
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const p = (async () => {
      try {
        const grants = await fetch();
        if (this.ttlMs > 0) {
          this.entries.set(key, { grants, expiresAt: this.now() + this.ttlMs });
          while (this.entries.size > this.maxEntries) {
            const oldest = this.entries.keys().next().value;
            if (oldest === undefined) break;
            this.entries.delete(oldest);
          }
        }
        return grants;
      } finally {
        this.inflight.delete(key);
      }
    })();
    this.inflight.set(key, p);
    return p;
  }

  /** Forget one user's grants (e.g. after a GRANT/REVOKE went through the proxy). */
  invalidate(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
