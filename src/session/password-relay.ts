/**
 * When the relayed authentication exchange may carry a client's password answer to the FE,
 * and what the client is told when it may not. The proxy never handles a password: with TLS
 * on one leg only, an answer that would be readable (or unusable) on the other leg is refused
 * with ER_NOT_SUPPORTED_AUTH_MODE instead. Used at login (connection-phase.ts) and for
 * COM_CHANGE_USER (command-phase.ts).
 */
import type { UpstreamOptions } from './upstream-connection.js';

/** True for 127.0.0.0/8 and ::1 (also IPv4-mapped): traffic that never leaves this host. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/** One leg TLS and the other not: a password answer cannot be relayed safely. */
export function authLegsDiffer(clientTls: boolean, upstream: UpstreamOptions | null): boolean {
  return clientTls !== (upstream?.tls != null);
}

/**
 * mysql_clear_password (Doris with LDAP): the client's answer is its password in clear text.
 * From a TLS client to a plain FE that would undo the client's TLS, so it is relayed only as
 * `upstream.cleartext_password` allows (default: only to an FE on a loopback address).
 */
export function clearPasswordRelayAllowed(clientTls: boolean, upstream: UpstreamOptions | null, feAddress: string | undefined): boolean {
  if (!clientTls || upstream?.tls != null) return true;
  const policy = upstream?.cleartextPassword ?? 'loopback';
  if (policy === 'allow') return true;
  if (policy === 'refuse') return false;
  return isLoopbackAddress(feAddress);
}

/**
 * caching_sha2_password full authentication with TLS on one leg only. A TLS client answers
 * with the password in clear text (which must not go to a plain FE); a plain client asks for
 * the FE's RSA key, which a TLS FE does not use. Relaying either would need the proxy to
 * handle the password, which it never does: the client gets a clear error instead.
 */
export function fullAuthenticationRefusal(clientTls: boolean, upstream: UpstreamOptions | null): string {
  const client = clientTls ? 'TLS' : 'plain';
  const fe = upstream?.tls != null ? 'TLS' : 'plain';
  return (
    `paimon-procedure-proxy: the FE asks for caching_sha2_password full authentication, which cannot be relayed from a ${client} client connection ` +
    `to a ${fe} FE connection without the proxy handling the password; use TLS on both connections (upstream.tls) or on neither ` +
    `(the password then goes RSA-encrypted to the FE), or log in once directly so the FE caches the account and later logins take the fast path`
  );
}

export function clearPasswordRefusal(upstream: UpstreamOptions | null): string {
  const fe = upstream ? `${upstream.host}:${upstream.port}` : 'the FE';
  return (
    `paimon-procedure-proxy: the FE asks for the password in clear text (mysql_clear_password), which would go from this TLS client connection ` +
    `over a plain connection to the FE at ${fe}; use TLS to the FE (upstream.tls), or set upstream.cleartext_password: allow if the network to the FE is trusted`
  );
}
