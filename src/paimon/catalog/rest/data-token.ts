/**
 * Data tokens of a REST catalog (Paimon's `RESTTokenFileIO`, `RESTApi.loadTableToken`,
 * `GetTableTokenResponse`, `RESTToken`; 1.4.2 and 2.0.0 alike): for a table with
 * `data-token.enabled=true`, storage is reached with the temporary credentials the server hands
 * out at `GET /v1/{prefix}/databases/{db}/tables/{table}/token` ({token: map, expiresAtMillis}),
 * merged over the catalog's own options (the token's keys win, `RESTUtil.merge`).
 *
 * The pure part (parse, when to refresh, how to merge) is apart from `DataTokenFileIO`, the
 * table's FileIO: it fetches a token on first use, fetches a new one whenever the current one
 * expires within `TOKEN_EXPIRATION_SAFE_TIME_MILLIS` (Java's one hour: a token that lives less than
 * that is fetched again at every access, as Java does), and keeps one store per distinct token.
 *
 * Java does not retry when storage refuses the token's credentials; here a refused operation
 * fetches the token once more and, when the server hands out a different one, runs the operation
 * again (a refusal means the store did nothing; streamed writes are not replayed). Token values
 * never reach a message: the store scrubs the credentials it was built with, and our own
 * messages name the table and the endpoint only.
 */
import type { Readable } from 'node:stream';
import { PaimonError } from '../../errors.js';
import type { FileIO, FileStatus } from '../../fs/file-io.js';
import { isObjectStoreScheme, schemeOf } from '../../fs/path.js';
import { isJsonObject, type JsonObject } from '../../spec/json.js';

/** `RESTTokenFileIO.DATA_TOKEN_ENABLED`. */
export const DATA_TOKEN_ENABLED = 'data-token.enabled';
/** `RESTApi.TOKEN_EXPIRATION_SAFE_TIME_MILLIS`: refresh a token that expires within this. */
export const TOKEN_EXPIRATION_SAFE_TIME_MILLIS = 3_600_000;
/** `RESTCatalogOptions.DLF_OSS_ENDPOINT`: when set, it replaces the token's OSS endpoint. */
const DLF_OSS_ENDPOINT = 'dlf.oss-endpoint';
const OSS_ENDPOINT = 'fs.oss.endpoint';
/** `RESTCatalogOptions.IO_CACHE_ENABLED`: the catalog's setting travels with the token. */
const IO_CACHE_ENABLED = 'io-cache.enabled';

/** A token as the server answered it (`RESTToken`): storage options and when they expire. */
export interface DataToken {
  readonly options: Readonly<Record<string, string>>;
  readonly expiresAtMillis: number;
}

/** `GetTableTokenResponse`; null when the answer lacks a token map or an expiry. */
export function parseTableToken(body: JsonObject): DataToken | null {
  const t = body.token;
  const exp = body.expiresAtMillis;
  if (!isJsonObject(t) || typeof exp !== 'number' || !Number.isFinite(exp)) return null;
  const options: Record<string, string> = {};
  for (const [k, v] of Object.entries(t)) if (typeof v === 'string') options[k] = v;
  return { options, expiresAtMillis: exp };
}

/** `RESTTokenFileIO.shouldRefresh`: no token yet, or it expires within the safety margin. */
export function shouldRefreshToken(token: DataToken | null, nowMillis: number): boolean {
  return token === null || token.expiresAtMillis - nowMillis < TOKEN_EXPIRATION_SAFE_TIME_MILLIS;
}

/** `RESTToken.equals`: the same options and the same expiry. */
export function sameToken(a: DataToken | null, b: DataToken | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.expiresAtMillis !== b.expiresAtMillis) return false;
  const ka = Object.keys(a.options);
  if (ka.length !== Object.keys(b.options).length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b.options, k) && b.options[k] === a.options[k]);
}

/**
 * The storage options of a token table: `RESTTokenFileIO.mergeTokenWithCatalogOptions` (the
 * catalog's `dlf.oss-endpoint`, when set, becomes the token's `fs.oss.endpoint`; the catalog's
 * `io-cache.enabled` is copied in), then `RESTUtil.merge(catalogOptions, token)`: the token's keys
 * win over the catalog's.
 */
export function tokenStorageOptions(catalogOptions: Readonly<Record<string, string>>, token: DataToken): Record<string, string> {
  const fromToken: Record<string, string> = { ...token.options };
  const dlfOss = catalogOptions[DLF_OSS_ENDPOINT];
  if (dlfOss !== undefined && dlfOss !== '') fromToken[OSS_ENDPOINT] = dlfOss;
  const ioCache = catalogOptions[IO_CACHE_ENABLED];
  if (ioCache !== undefined) fromToken[IO_CACHE_ENABLED] = ioCache;
  return { ...catalogOptions, ...fromToken };
}

/**
 * A store's refusal of the credentials themselves (S3: 403, an unknown or expired key, a bad
 * signature), as opposed to a missing file or a network failure. Read from the store's message,
 * which names the S3 error code and HTTP status.
 */
export function isCredentialRefusal(e: unknown): boolean {
  if (!(e instanceof PaimonError) || e.code !== 'STORAGE_ERROR') return false;
  return /\(HTTP 403\)|\b(AccessDenied|InvalidAccessKeyId|SignatureDoesNotMatch|ExpiredToken|InvalidToken|TokenRefreshRequired)\b/.test(e.message);
}

export interface DataTokenFileIOOptions {
  /** `db.table`, for messages. */
  table: string;
  /** The catalog's name, for messages. */
  catalogName: string;
  /** The table's location (decides `isObjectStore` before any token is fetched). */
  location: string;
  /** `RESTApi.loadTableToken`; its failures are already clear errors. */
  fetchToken: () => Promise<DataToken>;
  /** The catalog's merged options, read at each new token. */
  catalogOptions: () => Readonly<Record<string, string>>;
  /** Builds a store for the location from storage options. */
  createStore: (location: string, options: Record<string, string>) => FileIO;
  /** Tests: the clock. */
  now?: () => number;
}

const SAME_TOKEN = 'and fetching it again gave the same token';
const REFUSED_AGAIN = 'also after fetching the token again';
const NOT_REPLAYED = 'so a new token was fetched for the next operation (a streamed write is not replayed)';

interface Held {
  token: DataToken;
  store: FileIO;
}

/**
 * The FileIO of one token table: every call goes to the store of a valid token. It offers no
 * `listBatches` / `deleteEmptyDirectory` (optional members only the local store has; which store
 * a token leads to is known only after the fetch), so callers take their general paths.
 */
export class DataTokenFileIO implements FileIO {
  readonly isObjectStore: boolean;
  private current: Held | null = null;
  private refreshing: Promise<Held> | null = null;
  /** Stores of earlier tokens: operations begun with them may still run; closed with this. */
  private readonly retired: FileIO[] = [];
  private closed = false;
  private fetches = 0;

  constructor(private readonly opts: DataTokenFileIOOptions) {
    this.isObjectStore = isObjectStoreScheme(schemeOf(opts.location));
  }

  /** How many tokens were fetched (diagnostics and tests; never the token itself). */
  get tokenFetches(): number {
    return this.fetches;
  }

  /** When the current token expires (epoch ms), or null before the first fetch. */
  get tokenExpiresAtMillis(): number | null {
    return this.current?.token.expiresAtMillis ?? null;
  }

  /** The store for a valid token: fetched first when there is none or it expires soon. */
  async store(): Promise<FileIO> {
    return (await this.valid()).store;
  }

  private async valid(): Promise<Held> {
    const now = (this.opts.now ?? Date.now)();
    const held = this.current;
    if (held !== null && !shouldRefreshToken(held.token, now)) return held;
    return this.refresh(held);
  }

  /**
   * One fetch at a time; callers that saw the same stale token share it (`synchronized` in Java),
   * and a caller whose token was already replaced takes the replacement.
   */
  private refresh(stale: Held | null): Promise<Held> {
    if (this.current !== stale && this.current !== null) return Promise.resolve(this.current);
    if (this.refreshing === null) {
      this.refreshing = this.fetchAndInstall().finally(() => {
        this.refreshing = null;
      });
    }
    return this.refreshing;
  }

  private async fetchAndInstall(): Promise<Held> {
    if (this.closed) throw new PaimonError('STORAGE_ERROR', `the storage of table ${this.opts.table} (REST catalog '${this.opts.catalogName}') is closed`);
    this.fetches++;
    const token = await this.opts.fetchToken();
    const prev = this.current;
    if (prev !== null && sameToken(prev.token, token)) return prev;
    const store = this.opts.createStore(this.opts.location, tokenStorageOptions(this.opts.catalogOptions(), token));
    if (this.closed) {
      await store.close();
      throw new PaimonError('STORAGE_ERROR', `the storage of table ${this.opts.table} (REST catalog '${this.opts.catalogName}') is closed`);
    }
    if (prev !== null) this.retired.push(prev.store);
    this.current = { token, store };
    return this.current;
  }

  /**
   * The error for credentials refused after one more fetch. Worded without `key=value` pairs:
   * the proxy masks the value after any key that names a token.
   */
  private refused(e: unknown, after: string): PaimonError {
    const detail = (e instanceof Error ? e.message : String(e)).replace(/[.\s]+$/, '');
    return new PaimonError(
      'STORAGE_ERROR',
      `Storage refused the data token that REST catalog '${this.opts.catalogName}' hands out for table ${this.opts.table} (the table has data tokens enabled, option ${DATA_TOKEN_ENABLED}), ${after}. ${detail}. Nothing was changed by this operation; check the credentials the catalog server issues for the table and their grants on its location`,
      { cause: e },
    );
  }

  /**
   * Runs `op` on the current store; when the store refuses the credentials, fetches the token once
   * more and, if it changed, runs `op` again on the new store.
   */
  private async run<T>(op: (io: FileIO) => Promise<T>): Promise<T> {
    const used = await this.valid();
    try {
      return await op(used.store);
    } catch (e) {
      if (!isCredentialRefusal(e)) throw e;
      const fresh = await this.refresh(used);
      if (sameToken(fresh.token, used.token)) throw this.refused(e, SAME_TOKEN);
      try {
        return await op(fresh.store);
      } catch (e2) {
        if (isCredentialRefusal(e2)) throw this.refused(e2, REFUSED_AGAIN);
        throw e2;
      }
    }
  }

  /** `run` for listings: retried only when the refusal came before the first entry. */
  private async *runList<T>(op: (io: FileIO) => AsyncIterable<T>): AsyncIterable<T> {
    const used = await this.valid();
    let yielded = false;
    try {
      for await (const x of op(used.store)) {
        yielded = true;
        yield x;
      }
      return;
    } catch (e) {
      if (yielded || !isCredentialRefusal(e)) throw e;
      const fresh = await this.refresh(used);
      if (sameToken(fresh.token, used.token)) throw this.refused(e, SAME_TOKEN);
      try {
        for await (const x of op(fresh.store)) yield x;
      } catch (e2) {
        if (isCredentialRefusal(e2)) throw this.refused(e2, REFUSED_AGAIN);
        throw e2;
      }
    }
  }

  readFile(path: string): Promise<Buffer> {
    return this.run((io) => io.readFile(path));
  }
  readRange(path: string, start: number, length: number): Promise<Buffer> {
    return this.run((io) => io.readRange(path, start, length));
  }
  openRead(path: string): Promise<Readable> {
    return this.run((io) => io.openRead(path));
  }
  writeFile(path: string, data: Buffer | string): Promise<void> {
    return this.run((io) => io.writeFile(path, data));
  }
  tryCreateAtomic(path: string, data: Buffer | string): Promise<boolean> {
    return this.run((io) => io.tryCreateAtomic(path, data));
  }
  /** Not replayed after a refusal: the source may be partly consumed. */
  async writeStream(path: string, source: AsyncIterable<Buffer> | Readable): Promise<number> {
    const used = await this.valid();
    try {
      return await used.store.writeStream(path, source);
    } catch (e) {
      if (!isCredentialRefusal(e)) throw e;
      const fresh = await this.refresh(used);
      throw this.refused(e, sameToken(fresh.token, used.token) ? SAME_TOKEN : NOT_REPLAYED);
    }
  }
  exists(path: string): Promise<boolean> {
    return this.run((io) => io.exists(path));
  }
  getStatus(path: string): Promise<FileStatus | null> {
    return this.run((io) => io.getStatus(path));
  }
  list(dir: string): AsyncIterable<FileStatus> {
    return this.runList((io) => io.list(dir));
  }
  listRecursive(dir: string): AsyncIterable<FileStatus> {
    return this.runList((io) => io.listRecursive(dir));
  }
  delete(path: string): Promise<boolean> {
    return this.run((io) => io.delete(path));
  }
  deleteMany(paths: string[]): Promise<number> {
    return this.run((io) => io.deleteMany(paths));
  }
  deleteDirectory(dir: string): Promise<void> {
    return this.run((io) => io.deleteDirectory(dir));
  }
  mkdirs(dir: string): Promise<void> {
    return this.run((io) => io.mkdirs(dir));
  }
  rename(from: string, to: string): Promise<boolean> {
    return this.run((io) => io.rename(from, to));
  }
  copyFile(from: string, to: string, overwrite: boolean): Promise<boolean> {
    return this.run((io) => io.copyFile(from, to, overwrite));
  }
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.retired, ...(this.current !== null ? [this.current.store] : [])];
    this.retired.length = 0;
    this.current = null;
    await Promise.all(all.map((s) => s.close()));
  }
}
