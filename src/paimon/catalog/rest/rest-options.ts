/**
 * The options of a REST catalog (`RESTCatalogOptions`, `RESTCatalogInternalOptions`) and their
 * merge with the server's `GET /v1/config` answer (`ConfigResponse.merge`): the server's
 * `defaults` first, the client's own options over them, the server's `overrides` over both. The
 * merged `prefix` names the catalog in every later path; `header.*` options are sent as HTTP
 * headers (`RESTApi.HEADER_PREFIX`).
 */
import { PaimonError } from '../../errors.js';
import { dlfCredentials } from './dlf-signer.js';
import type { RestAuth } from './rest-client.js';

interface RestCatalogCommon {
  /** Base URL of the REST server (`uri`), http:// or https://. */
  uri: string;
  /** Warehouse name sent to `GET /v1/config?warehouse=` (`warehouse`). */
  warehouse: string;
  /** Every other option the catalog was configured with (storage options, header.*, dlf.*, ...). */
  properties?: Readonly<Record<string, string>>;
  /** Per-request time limit in ms (connect and answer). */
  timeoutMs?: number;
}

/**
 * `token.provider`: `bear` (a static bearer token, `token`; never logged, never in a message) or
 * `dlf` (Aliyun DLF's request signature with the `dlf.*` access key options, dlf-signer.ts).
 */
export type RestCatalogOptions = RestCatalogCommon & ({ tokenProvider: 'bear'; token: string } | { tokenProvider: 'dlf'; token?: undefined });

/** Options that hold credentials: never sent as headers, never shown. */
export const CREDENTIAL_OPTIONS = ['token', 'dlf.access-key-secret', 'dlf.security-token'] as const;

export const PREFIX = 'prefix';
export const HEADER_PREFIX = 'header.';
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface ConfigResponse {
  defaults: Record<string, string>;
  overrides: Record<string, string>;
}

/** `ConfigResponse.merge`: defaults, then the client's options, then overrides; null values dropped. */
export function mergeConfig(config: ConfigResponse, client: Readonly<Record<string, string>>): Record<string, string> {
  const merged: Record<string, string> = { ...config.defaults, ...client, ...config.overrides };
  for (const [k, v] of Object.entries(merged)) if (typeof v !== 'string') delete merged[k];
  return merged;
}

/** Validates what a REST catalog needs before any request is made. */
export function checkRestOptions(o: RestCatalogOptions, catalogName: string): void {
  let url: URL;
  try {
    url = new URL(o.uri);
  } catch {
    throw new PaimonError('INVALID_ARGUMENT', `REST catalog '${catalogName}': uri '${o.uri}' is not a URL (expected http://host:port or https://...)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new PaimonError('INVALID_ARGUMENT', `REST catalog '${catalogName}': uri must be http:// or https://, not ${url.protocol}//`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new PaimonError('INVALID_ARGUMENT', `REST catalog '${catalogName}': uri must not carry credentials; give the token as 'token'`);
  }
  if (o.warehouse.trim() === '') throw new PaimonError('INVALID_ARGUMENT', `REST catalog '${catalogName}': warehouse must not be blank`);
  if (o.tokenProvider === 'bear' && o.token === '') throw new PaimonError('INVALID_ARGUMENT', `REST catalog '${catalogName}': token must not be empty (token.provider 'bear')`);
  if (o.tokenProvider === 'dlf') dlfCredentials(o.properties ?? {}, o.uri, catalogName);
}

/** How the catalog's requests authenticate (the DLF credentials are checked by checkRestOptions). */
export function restAuthOf(o: RestCatalogOptions, catalogName: string): RestAuth {
  return o.tokenProvider === 'bear' ? { kind: 'bear', token: o.token } : { kind: 'dlf', credentials: dlfCredentials(o.properties ?? {}, o.uri, catalogName) };
}

/** `header.<name>` options as HTTP headers (RESTUtil.extractPrefixMap). */
export function headersFrom(options: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(options)) if (k.startsWith(HEADER_PREFIX) && k.length > HEADER_PREFIX.length) out[k.slice(HEADER_PREFIX.length)] = v;
  return out;
}
