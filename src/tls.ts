/**
 * TLS from client to proxy. The MySQL protocol starts in clear text and upgrades in place after
 * the client's SSLRequest, so the server side wraps the already-connected socket.
 */
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { createSecureContext, TLSSocket, type SecureContext } from 'node:tls';
import { ConfigError } from './config.js';

export function loadSecureContext(certFile: string, keyFile: string): SecureContext {
  let cert: Buffer;
  let key: Buffer;
  try {
    cert = readFileSync(certFile);
  } catch (e) {
    throw new ConfigError(`cannot read TLS certificate ${certFile}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  try {
    key = readFileSync(keyFile);
  } catch (e) {
    throw new ConfigError(`cannot read TLS key ${keyFile}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  try {
    return createSecureContext({ cert, key, minVersion: 'TLSv1.2' });
  } catch (e) {
    // OpenSSL messages name the problem, not the key material.
    throw new ConfigError(`TLS certificate/key ${certFile} / ${keyFile} unusable: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Upgrades a plain socket to server-side TLS. `leftover` holds bytes that arrived after the
 * SSLRequest (often the ClientHello in the same TCP segment); they are put back first.
 */
export function upgradeToTls(socket: Socket, context: SecureContext, leftover: Buffer): Promise<TLSSocket> {
  socket.removeAllListeners('data');
  socket.pause();
  if (leftover.length > 0) socket.unshift(leftover);
  const tls = new TLSSocket(socket, { isServer: true, secureContext: context });
  return new Promise((resolvePromise, reject) => {
    const onError = (e: Error) => reject(e);
    tls.once('error', onError);
    tls.once('secure', () => {
      tls.off('error', onError);
      resolvePromise(tls);
    });
  });
}
