/**
 * The HTTP side of the REST catalog (`RESTApi` over `HttpClient`, `DefaultErrorHandler`): JSON
 * requests with `Authorization: Bearer <token>` (`BearTokenAuthProvider`) or DLF's signed headers
 * (`DLFAuthProvider`, dlf-signer.ts) and the `header.*` options, the server's `ErrorResponse` mapped to our stable codes, pages followed with
 * `pageToken` until the server gives none (`listDataFromPageApi`), on Node's built-in fetch.
 *
 * What an answer means (DefaultErrorHandler's codes):
 *   401, 403 -> access refused: the message says to check the catalog token (or its grants);
 *   404      -> the missing resource's own code (DATABASE_ / TABLE_ / SNAPSHOT_ / TAG_ /
 *               BRANCH_NOT_FOUND, by the answer's `resourceType`), else the caller's default;
 *   409      -> TAG_/BRANCH_ALREADY_EXISTS for those resources, else COMMIT_CONFLICT (another
 *               change came first: nothing was changed, retry);
 *   400      -> INVALID_ARGUMENT; 501 -> UNSUPPORTED_TABLE (the server lacks the feature);
 *   other    -> STORAGE_ERROR (server failure); no answer -> STORAGE_ERROR "unreachable".
 * The token (or DLF secret) never appears in a message: server text is scrubbed of it as well.
 * A DLF signature is dated to the second; a request refused with 401 is signed again and sent once
 * more (the refusal means the server did nothing), so a clock second that turned between signing
 * and checking does not fail the call, while wrong credentials still fail.
 *
 * Only GETs are retried (twice, on no answer or 429/502/503/504), as Java's retry strategy
 * retries only idempotent requests; a POST or DELETE whose answer is lost has an unknown outcome.
 */
import { PaimonError, type PaimonErrorCode } from '../../errors.js';
import { parseJson, isJsonObject, toJsonCompact, type JsonObject, type JsonValue } from '../../spec/json.js';
import { DEFAULT_TIMEOUT_MS } from './rest-options.js';
import { dlfHeaders, type DlfCredentials } from './dlf-signer.js';

/** How requests authenticate: a bearer token, or DLF's request signature. */
export type RestAuth = { kind: 'bear'; token: string } | { kind: 'dlf'; credentials: DlfCredentials };

/** Why a REST call failed, beside the stable code. */
export type RestFailure = 'access-denied' | 'not-found' | 'conflict' | 'bad-request' | 'not-implemented' | 'server-error' | 'unreachable';

export class RestCatalogError extends PaimonError {
  constructor(
    code: PaimonErrorCode,
    message: string,
    readonly failure: RestFailure,
    /** HTTP status, or null when there was no answer. */
    readonly status: number | null,
    /** `ErrorResponse.resourceType` of the answer, when it named one. */
    readonly resourceType: string | null,
    options?: { cause?: unknown },
    /** The request hit its time limit (no answer in time). */
    readonly timedOut = false,
  ) {
    super(code, message, options);
    this.name = 'RestCatalogError';
  }
}

export function isRestFailure(e: unknown, failure: RestFailure): e is RestCatalogError {
  return e instanceof RestCatalogError && e.failure === failure;
}

export interface RestClientOptions {
  /** The server's base URL (any path of it is kept in front of `/v1/...`). */
  uri: string;
  auth: RestAuth;
  /** The catalog's name, for messages. */
  catalogName: string;
  headers?: Readonly<Record<string, string>>;
  timeoutMs?: number;
  /** Tests: the fetch to use. */
  fetch?: typeof fetch;
  /** Tests: wait between GET retries. */
  sleep?: (ms: number) => Promise<void>;
}

export interface RequestOptions {
  query?: Readonly<Record<string, string>>;
  /** Code of a 404 whose answer names no known resource type. */
  notFound?: PaimonErrorCode;
  /** What is being done, for messages ("listing tables of db"). */
  what: string;
}

const NOT_FOUND_BY_RESOURCE: Readonly<Record<string, PaimonErrorCode>> = {
  DATABASE: 'DATABASE_NOT_FOUND',
  TABLE: 'TABLE_NOT_FOUND',
  SNAPSHOT: 'SNAPSHOT_NOT_FOUND',
  TAG: 'TAG_NOT_FOUND',
  BRANCH: 'BRANCH_NOT_FOUND',
};
const EXISTS_BY_RESOURCE: Readonly<Record<string, PaimonErrorCode>> = { TAG: 'TAG_ALREADY_EXISTS', BRANCH: 'BRANCH_ALREADY_EXISTS' };
const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
const GET_RETRIES = 2;
/** Bound on pages of one listing (a server repeating page tokens must not loop us forever). */
const MAX_PAGES = 100_000;

export class RestClient {
  private readonly base: string;
  private readonly doFetch: typeof fetch;

  constructor(private readonly opts: RestClientOptions) {
    this.base = opts.uri.replace(/\/+$/, '');
    this.doFetch = opts.fetch ?? fetch;
  }

  /** The server's name in messages: its origin, never a path or query that could carry secrets. */
  private where(): string {
    try {
      return `REST catalog '${this.opts.catalogName}' at ${new URL(this.base).origin}`;
    } catch {
      return `REST catalog '${this.opts.catalogName}'`;
    }
  }

  private scrub(text: string): string {
    const a = this.opts.auth;
    const secrets = a.kind === 'bear' ? [a.token] : [a.credentials.accessKeySecret, a.credentials.securityToken ?? ''];
    for (const t of secrets) if (t.length > 0) text = text.split(t).join('****');
    return text;
  }

  /** The authentication headers of one request. */
  private authHeaders(method: string, path: string, query: Readonly<Record<string, string>>, body: string | null): Record<string, string> {
    const a = this.opts.auth;
    if (a.kind === 'bear') return { Authorization: `Bearer ${a.token}` };
    return dlfHeaders({ method, resourcePath: path, query, body }, a.credentials, new Date());
  }

  async get(path: string, ro: RequestOptions): Promise<JsonObject> {
    const sleep = this.opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.request('GET', path, null, ro);
      } catch (e) {
        // No answer at all (refused, reset) or a busy server: retry; a request that timed out is not
        // repeated, so a hung server costs one timeout, not three.
        const retryable = e instanceof RestCatalogError && !e.timedOut && (e.status === null || RETRYABLE_STATUS.has(e.status));
        if (!retryable || attempt >= GET_RETRIES) throw e;
        await sleep(200 * 2 ** attempt);
      }
    }
  }

  post(path: string, body: JsonValue, ro: RequestOptions): Promise<JsonObject> {
    return this.request('POST', path, body, ro);
  }

  delete(path: string, ro: RequestOptions): Promise<JsonObject> {
    return this.request('DELETE', path, null, ro);
  }

  /** Every item of a paged listing (`listDataFromPageApi`): `field` of each page, following `nextPageToken`. */
  async listAll(path: string, field: string, ro: RequestOptions): Promise<JsonValue[]> {
    const out: JsonValue[] = [];
    const seen = new Set<string>();
    let token: string | null = null;
    for (let page = 0; page < MAX_PAGES; page++) {
      const body = await this.get(path, { ...ro, query: { ...(ro.query ?? {}), ...(token !== null ? { pageToken: token } : {}) } });
      const items = body[field];
      if (items !== undefined && items !== null && !Array.isArray(items)) {
        throw this.badAnswer(ro.what, `'${field}' is not a list`);
      }
      if (Array.isArray(items)) out.push(...items);
      const next = body.nextPageToken;
      if (typeof next !== 'string' || next === '' || !Array.isArray(items) || items.length === 0) return out;
      if (seen.has(next)) throw this.badAnswer(ro.what, 'the server repeated a page token');
      seen.add(next);
      token = next;
    }
    throw this.badAnswer(ro.what, `more than ${MAX_PAGES} pages`);
  }

  private badAnswer(what: string, why: string): RestCatalogError {
    return new RestCatalogError('STORAGE_ERROR', `${this.where()} answered ${what} with an unreadable response: ${why}`, 'server-error', null, null);
  }

  private async request(method: 'GET' | 'POST' | 'DELETE', path: string, body: JsonValue | null, ro: RequestOptions, signedAgain = false): Promise<JsonObject> {
    const query = ro.query ?? {};
    const qs = Object.keys(query).length > 0 ? `?${new URLSearchParams(query as Record<string, string>).toString()}` : '';
    const data = body !== null ? toJsonCompact(body) : null;
    const headers: Record<string, string> = {
      ...(this.opts.headers ?? {}),
      Accept: 'application/json',
      ...(data !== null ? { 'Content-Type': 'application/json' } : {}),
      ...this.authHeaders(method, path, query, data),
    };
    let res: Response;
    let text: string;
    try {
      res = await this.doFetch(`${this.base}${path}${qs}`, {
        method,
        headers,
        ...(data !== null ? { body: data } : {}),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS),
        redirect: 'error',
      });
      text = await res.text();
    } catch (e) {
      const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
      const why = timedOut ? 'did not answer in time' : 'is unreachable';
      const detail = this.scrub(causeCode(e) ?? (e instanceof Error ? e.message : ''));
      throw new RestCatalogError(
        'STORAGE_ERROR',
        `${this.where()} ${why} while ${ro.what}${detail ? ` (${detail})` : ''}; check that the catalog server runs and that uri is right`,
        'unreachable',
        null,
        null,
        { cause: e },
        timedOut,
      );
    }
    if (res.ok) {
      if (text.trim() === '') return {};
      let v: JsonValue;
      try {
        v = parseJson(text, 'REST response');
      } catch {
        throw this.badAnswer(ro.what, 'not JSON');
      }
      if (!isJsonObject(v)) throw this.badAnswer(ro.what, 'not a JSON object');
      return v;
    }
    if (res.status === 401 && this.opts.auth.kind === 'dlf' && !signedAgain) return this.request(method, path, body, ro, true);
    throw this.errorOf(res.status, text, ro);
  }

  private errorOf(status: number, text: string, ro: RequestOptions): RestCatalogError {
    let message = '';
    let resourceType: string | null = null;
    let resourceName: string | null = null;
    try {
      const v = parseJson(text, 'REST error');
      if (isJsonObject(v)) {
        if (typeof v.message === 'string') message = v.message;
        if (typeof v.resourceType === 'string') resourceType = v.resourceType;
        if (typeof v.resourceName === 'string') resourceName = v.resourceName;
      }
    } catch {
      message = text.slice(0, 200);
    }
    const said = this.scrub(message.trim());
    const detail = said !== '' ? `: ${said}` : '';
    const w = this.where();
    if (status === 401 || status === 403) {
      return new RestCatalogError(
        'STORAGE_ERROR',
        `${w} refused ${ro.what} (HTTP ${status}${status === 401 ? ', not authorized' : ', forbidden'})${detail}; check the catalog ${this.opts.auth.kind === 'dlf' ? 'DLF access key' : 'token'}${status === 403 ? ' and its grants' : ''}`,
        'access-denied',
        status,
        resourceType,
      );
    }
    if (status === 404) {
      const code = (resourceType !== null ? NOT_FOUND_BY_RESOURCE[resourceType] : undefined) ?? ro.notFound ?? 'STORAGE_ERROR';
      const named = resourceType !== null ? ` (${resourceType.toLowerCase()}${resourceName !== null ? ` ${this.scrub(resourceName)}` : ''} not found)` : ' (HTTP 404)';
      return new RestCatalogError(code, `${w}: ${ro.what} failed${named}${detail}`, 'not-found', status, resourceType);
    }
    if (status === 409) {
      const code = (resourceType !== null ? EXISTS_BY_RESOURCE[resourceType] : undefined) ?? 'COMMIT_CONFLICT';
      return new RestCatalogError(code, `${w}: ${ro.what} conflicts with a change made first${detail}; nothing was changed, retry`, 'conflict', status, resourceType);
    }
    if (status === 400) return new RestCatalogError('INVALID_ARGUMENT', `${w} refused ${ro.what} as a bad request${detail}`, 'bad-request', status, resourceType);
    if (status === 501) return new RestCatalogError('UNSUPPORTED_TABLE', `${w} does not implement ${ro.what}${detail}`, 'not-implemented', status, resourceType);
    return new RestCatalogError('STORAGE_ERROR', `${w} failed ${ro.what} (HTTP ${status})${detail}`, 'server-error', status, resourceType);
  }
}

/** The system error code under a failed fetch (`ECONNREFUSED`, `ENOTFOUND`, ...), if there is one. */
function causeCode(e: unknown): string | null {
  let c: unknown = e;
  for (let depth = 0; depth < 4 && c !== null && typeof c === 'object'; depth++) {
    const o = c as { code?: unknown; errors?: unknown[]; cause?: unknown };
    if (typeof o.code === 'string' && o.code !== 'UND_ERR_CONNECT_TIMEOUT' && /^[A-Z_]+$/.test(o.code)) return o.code;
    c = Array.isArray(o.errors) && o.errors.length > 0 ? o.errors[0] : o.cause;
  }
  return null;
}
