/**
 * Authentication plugins: scramble generation, the client-side token computations (used by
 * tests and by the proxy when it must answer a server itself) and the server-side checks
 * against stored hashes, plus the AuthSwitchRequest / AuthMoreData packets.
 *
 * mysql_native_password: stored stage2 = SHA1(SHA1(pw)); token = SHA1(pw) XOR SHA1(scramble || stage2).
 * caching_sha2_password (fast path): stored SHA256(SHA256(pw)), the value MySQL keeps in its
 * in-memory cache; token = SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) || nonce).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { BufferReader, ProtocolError } from './buffer-reader.js';
import { BufferWriter } from './buffer-writer.js';
import { AUTH_MORE_DATA_HEADER, AUTH_SWITCH_REQUEST_HEADER } from './constants.js';

export const MYSQL_NATIVE_PASSWORD = 'mysql_native_password';
export const CACHING_SHA2_PASSWORD = 'caching_sha2_password';

/** caching_sha2_password AuthMoreData status bytes. */
export const FAST_AUTH_SUCCESS = 0x03;
export const PERFORM_FULL_AUTHENTICATION = 0x04;

const SCRAMBLE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!%&()*+,-./:;<=>?@[]^_{|}~';

/**
 * A 20-byte scramble of printable ASCII: never NUL (part 2 is NUL-terminated on the wire) and
 * never '$' (avoided by Vitess for the same C-string reasons).
 */
export function generateScramble(length = 20): Buffer {
  const raw = randomBytes(length);
  const out = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i++) out[i] = SCRAMBLE_ALPHABET.charCodeAt(raw[i] % SCRAMBLE_ALPHABET.length);
  return out;
}

function sha1(...parts: Uint8Array[]): Buffer {
  const h = createHash('sha1');
  for (const p of parts) h.update(p);
  return h.digest();
}

function sha256(...parts: Uint8Array[]): Buffer {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
}

function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.allocUnsafe(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] ^ b[i % b.length];
  return out;
}

/** `*` + 40 upper-case hex chars, as MySQL's PASSWORD() and Doris store it. */
export function nativePasswordHash(password: string): string {
  return '*' + sha1(sha1(Buffer.from(password, 'utf8'))).toString('hex').toUpperCase();
}

/** What a client sends for mysql_native_password (empty for an empty password). */
export function nativePasswordToken(password: string, scramble: Buffer): Buffer {
  if (password === '') return Buffer.alloc(0);
  const stage1 = sha1(Buffer.from(password, 'utf8'));
  const stage2 = sha1(stage1);
  return xor(stage1, sha1(scramble.subarray(0, 20), stage2));
}

/** Server-side check of a native token against the stored `*HEX` hash (empty hash = no password). */
export function verifyNativePassword(token: Buffer, scramble: Buffer, storedHash: string | null): boolean {
  if (storedHash === null || storedHash === '') return token.length === 0 || (token.length === 1 && token[0] === 0);
  if (!/^\*[0-9A-Fa-f]{40}$/.test(storedHash)) throw new ProtocolError('stored mysql_native_password hash must be * followed by 40 hex digits');
  if (token.length !== 20) return false;
  const stage2 = Buffer.from(storedHash.slice(1), 'hex');
  const candidate1 = xor(token, sha1(scramble.subarray(0, 20), stage2));
  return timingSafeEqual(sha1(candidate1), stage2);
}

/** hex(SHA256(SHA256(password))): the hash the proxy stores for caching_sha2_password. */
export function cachingSha2Hash(password: string): string {
  return sha256(sha256(Buffer.from(password, 'utf8'))).toString('hex');
}

/** What a client sends for the caching_sha2_password fast path (empty for an empty password). */
export function cachingSha2Token(password: string, nonce: Buffer): Buffer {
  if (password === '') return Buffer.alloc(0);
  const h1 = sha256(Buffer.from(password, 'utf8'));
  const h2 = sha256(h1);
  return xor(h1, sha256(h2, nonce.subarray(0, 20)));
}

/** Server-side fast-path check against the stored hex(SHA256(SHA256(pw))). */
export function verifyCachingSha2(token: Buffer, nonce: Buffer, storedHash: string | null): boolean {
  if (storedHash === null || storedHash === '') return token.length === 0 || (token.length === 1 && token[0] === 0);
  if (!/^[0-9A-Fa-f]{64}$/.test(storedHash)) throw new ProtocolError('stored caching_sha2_password hash must be 64 hex digits');
  if (token.length !== 32) return false;
  const h2 = Buffer.from(storedHash, 'hex');
  const h1 = xor(token, sha256(h2, nonce.subarray(0, 20)));
  return timingSafeEqual(sha256(h1), h2);
}

export interface AuthSwitchRequest {
  pluginName: string;
  pluginData: Buffer;
}

/** AuthSwitchRequest: 0xFE, plugin name NUL-terminated, plugin data (for native/sha2: scramble + NUL). */
export function buildAuthSwitchRequest(pluginName: string, scramble: Buffer): Buffer {
  return new BufferWriter(48).u8(AUTH_SWITCH_REQUEST_HEADER).nulString(pluginName).bytes(scramble).u8(0).finish();
}

export function parseAuthSwitchRequest(payload: Buffer): AuthSwitchRequest {
  const r = new BufferReader(payload);
  if (r.u8() !== AUTH_SWITCH_REQUEST_HEADER) throw new ProtocolError('not an AuthSwitchRequest');
  const pluginName = r.nulString(false);
  let pluginData = r.restBytes();
  if (pluginData.length > 0 && pluginData[pluginData.length - 1] === 0) pluginData = pluginData.subarray(0, pluginData.length - 1);
  return { pluginName, pluginData };
}

/**
 * True for caching_sha2_password's "perform full authentication" (AuthMoreData 0x01 0x04): the
 * client answers it with the password itself, in clear text on a TLS connection, RSA-encrypted
 * with the server's public key on a plain one.
 */
export function isPerformFullAuthentication(payload: Uint8Array): boolean {
  return payload.length === 2 && payload[0] === AUTH_MORE_DATA_HEADER && payload[1] === PERFORM_FULL_AUTHENTICATION;
}

/** The plugin whose client answer is the password itself, in clear text (Doris with LDAP, MariaDB PAM). */
export const CLEAR_PASSWORD_PLUGIN = 'mysql_clear_password';
const CLEAR_PASSWORD_NAME = Buffer.from(CLEAR_PASSWORD_PLUGIN, 'latin1');

/**
 * True when `buf[off .. off + len)` (at least its first 22 bytes readable) is an
 * AuthSwitchRequest to mysql_clear_password: the client answers it with its password in clear.
 */
export function isClearPasswordSwitch(buf: Uint8Array, off = 0, len = buf.length - off): boolean {
  const n = CLEAR_PASSWORD_NAME.length;
  if (len < n + 2 || buf[off] !== AUTH_SWITCH_REQUEST_HEADER || buf[off + 1 + n] !== 0) return false;
  for (let i = 0; i < n; i++) if (buf[off + 1 + i] !== CLEAR_PASSWORD_NAME[i]) return false;
  return true;
}

export function buildAuthMoreData(data: Uint8Array): Buffer {
  return new BufferWriter(1 + data.length).u8(AUTH_MORE_DATA_HEADER).bytes(data).finish();
}
