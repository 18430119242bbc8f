/**
 * Aliyun DLF request signing for a REST catalog with `token.provider` = `dlf` (Paimon's
 * `DLFAuthProvider` with `DLFDefaultSigner`, the signer of DLF's VPC endpoints, 1.4.2 and 2.0.0):
 * every request carries `x-dlf-date`, `x-dlf-content-sha256: UNSIGNED-PAYLOAD`, `x-dlf-version:
 * v1` (with a body also `Content-Type` and its base64 `Content-MD5`, with an STS token
 * `x-dlf-security-token`) and an `Authorization` of the form
 * `DLF4-HMAC-SHA256 Credential=<ak>/<date>/<region>/DlfNext/aliyun_v4_request,Signature=<hex>`,
 * the HMAC-SHA256 chain over date, region, product and request type of a string to sign that
 * hashes the canonical request (method, resource path, sorted query, the signed headers sorted by
 * lower-case name, the content hash).
 *
 * Credentials come from `dlf.access-key-id` / `dlf.access-key-secret` (and `dlf.security-token`);
 * the region from `dlf.region`, else from the uri as Paimon reads it. The `openapi` signer of
 * DLF's public `dlfnext` endpoints and the token loaders (`dlf.token-loader`, `dlf.token-path`) are
 * not implemented: such a catalog is refused when it is configured.
 */
import { createHash, createHmac } from 'node:crypto';
import { PaimonError } from '../../errors.js';

export const DLF_ACCESS_KEY_ID = 'dlf.access-key-id';
export const DLF_ACCESS_KEY_SECRET = 'dlf.access-key-secret';
export const DLF_SECURITY_TOKEN = 'dlf.security-token';
export const DLF_REGION = 'dlf.region';
export const DLF_SIGNING_ALGORITHM = 'dlf.signing-algorithm';
const DLF_TOKEN_LOADER = 'dlf.token-loader';
const DLF_TOKEN_PATH = 'dlf.token-path';

const ALGORITHM = 'DLF4-HMAC-SHA256';
const PRODUCT = 'DlfNext';
const REQUEST_TYPE = 'aliyun_v4_request';
const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
const SIGNED_HEADERS = ['content-md5', 'content-type', 'x-dlf-content-sha256', 'x-dlf-date', 'x-dlf-version', 'x-dlf-security-token'];

export interface DlfCredentials {
  accessKeyId: string;
  accessKeySecret: string;
  securityToken: string | null;
  region: string;
}

/** What is signed of a request (`RESTAuthParameter`): the resource path, its query parameters (not encoded), method and body. */
export interface SignedRequest {
  method: string;
  resourcePath: string;
  query: Readonly<Record<string, string>>;
  body: string | null;
}

/** `DLFAuthProviderFactory.parseRegionFromUri`: the first `xx-yyyy[-n]` in the uri. */
export function regionFromUri(uri: string): string | null {
  return /(?:pre-)?([a-z]+-[a-z]+(?:-\d+)?)/.exec(uri)?.[1] ?? null;
}

/** The DLF credentials of a catalog's options; INVALID_ARGUMENT / NOT_SUPPORTED naming what to set. */
export function dlfCredentials(options: Readonly<Record<string, string>>, uri: string, catalogName: string): DlfCredentials {
  const where = `REST catalog '${catalogName}' (token.provider dlf)`;
  const algorithm = options[DLF_SIGNING_ALGORITHM] ?? (uri.toLowerCase().includes('dlfnext') ? 'openapi' : 'default');
  if (algorithm !== 'default') {
    throw new PaimonError(
      'NOT_SUPPORTED',
      `${where}: ${DLF_SIGNING_ALGORITHM} '${algorithm}' (DLF's public dlfnext endpoints) is not supported; use DLF's VPC endpoint, whose signer is 'default'`,
    );
  }
  if (options[DLF_TOKEN_LOADER] !== undefined || options[DLF_TOKEN_PATH] !== undefined) {
    throw new PaimonError('NOT_SUPPORTED', `${where}: ${DLF_TOKEN_LOADER} and ${DLF_TOKEN_PATH} are not supported; give ${DLF_ACCESS_KEY_ID} and ${DLF_ACCESS_KEY_SECRET} (and ${DLF_SECURITY_TOKEN} for STS credentials)`);
  }
  const accessKeyId = options[DLF_ACCESS_KEY_ID];
  const accessKeySecret = options[DLF_ACCESS_KEY_SECRET];
  if (accessKeyId === undefined || accessKeyId === '' || accessKeySecret === undefined || accessKeySecret === '') {
    throw new PaimonError('INVALID_ARGUMENT', `${where}: set ${DLF_ACCESS_KEY_ID} and ${DLF_ACCESS_KEY_SECRET}`);
  }
  const region = options[DLF_REGION] ?? regionFromUri(uri);
  if (region === null || region === '') throw new PaimonError('INVALID_ARGUMENT', `${where}: set ${DLF_REGION} (it cannot be read from uri ${uri})`);
  const token = options[DLF_SECURITY_TOKEN];
  return { accessKeyId, accessKeySecret, securityToken: token === undefined || token === '' ? null : token, region };
}

/** `yyyyMMdd'T'HHmmss'Z'` in UTC. */
export function dlfDateTime(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
}

/** `DLFDefaultSigner.signHeaders`: the headers that are signed and sent. */
export function dlfSignHeaders(body: string | null, now: Date, securityToken: string | null): Record<string, string> {
  const h: Record<string, string> = { 'x-dlf-date': dlfDateTime(now), 'x-dlf-content-sha256': UNSIGNED_PAYLOAD, 'x-dlf-version': 'v1' };
  if (body !== null && body !== '') {
    h['Content-Type'] = 'application/json';
    h['Content-MD5'] = createHash('md5').update(body, 'utf8').digest('base64');
  }
  if (securityToken !== null) h['x-dlf-security-token'] = securityToken;
  return h;
}

/** Java's `String.compareTo` order (UTF-16 code units), which TreeMap sorts by. */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `DLFDefaultSigner.getCanonicalRequest`. */
export function dlfCanonicalRequest(req: SignedRequest, headers: Readonly<Record<string, string>>): string {
  const query = Object.keys(req.query)
    .sort(byCodeUnits)
    .map((k) => {
      const v = req.query[k]!;
      return v === '' ? k.trim() : `${k.trim()}=${v.trim()}`;
    })
    .join('&');
  const signed = new Map<string, string>();
  for (const [k, v] of Object.entries(headers)) if (SIGNED_HEADERS.includes(k.toLowerCase())) signed.set(k.toLowerCase(), v.trim());
  const headerLines = [...signed.keys()].sort(byCodeUnits).map((k) => `${k}:${signed.get(k)!}`);
  const contentSha = headers['x-dlf-content-sha256'] ?? UNSIGNED_PAYLOAD;
  return [req.method, req.resourcePath, query, ...headerLines, contentSha].join('\n');
}

const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

/** `DLFDefaultSigner.authorization` over the signed headers (their `x-dlf-date` dates the signature). */
export function dlfAuthorization(req: SignedRequest, c: DlfCredentials, headers: Readonly<Record<string, string>>): string {
  const dateTime = headers['x-dlf-date']!;
  const date = dateTime.slice(0, 8);
  const scope = `${date}/${c.region}/${PRODUCT}/${REQUEST_TYPE}`;
  const stringToSign = [ALGORITHM, dateTime, scope, createHash('sha256').update(dlfCanonicalRequest(req, headers), 'utf8').digest('hex')].join('\n');
  const key = hmac(hmac(hmac(hmac(Buffer.from(`aliyun_v4${c.accessKeySecret}`, 'utf8'), date), c.region), PRODUCT), REQUEST_TYPE);
  return `${ALGORITHM} Credential=${c.accessKeyId}/${scope},Signature=${hmac(key, stringToSign).toString('hex')}`;
}

/** The authentication headers of one request: the signed headers and `Authorization`. */
export function dlfHeaders(req: SignedRequest, c: DlfCredentials, now: Date): Record<string, string> {
  const signed = dlfSignHeaders(req.body, now, c.securityToken);
  return { ...signed, Authorization: dlfAuthorization(req, c, signed) };
}
