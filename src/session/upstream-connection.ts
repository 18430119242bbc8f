/**
 * The connection to the upstream FE: one TCP socket per client connection, opened before the
 * client is greeted (pass-through authentication needs the FE's scramble). Optionally the
 * PROXY protocol v1 line goes first, so Doris (`enable_proxy_protocol=true`) sees the real
 * client address for its host-based grants and audit.
 */
import { connect, isIP, type Socket } from 'node:net';
import { checkServerIdentity, connect as tlsConnect, type TLSSocket } from 'node:tls';
import { buildProxyV1Header } from '../../protocol/proxy-protocol.js';

export interface UpstreamTlsOptions {
  /** PEM CA bundle (or the FE's self-signed certificate); undefined: the system CAs. */
  ca?: Buffer;
  verify: boolean;
  servername: string;
}

export interface UpstreamOptions {
  host: string;
  port: number;
  connectTimeoutMs: number;
  proxyProtocol: boolean;
  /** TLS toward the FE (SSLRequest, then TLS, then the HandshakeResponse); null: plain TCP. */
  tls: UpstreamTlsOptions | null;
  /** Clear-text passwords from a TLS client to a plain FE (config `upstream.cleartext_password`); default 'loopback'. */
  cleartextPassword?: 'loopback' | 'refuse' | 'allow';
}

/**
 * Upgrades the upstream socket after our SSLRequest. Resolves with the TLS socket once the FE's
 * certificate is accepted; rejects with a message that names the FE.
 */
export function upgradeUpstream(socket: Socket, o: UpstreamOptions): Promise<TLSSocket> {
  const t = o.tls!;
  return new Promise((resolvePromise, reject) => {
    const s = tlsConnect({
      socket,
      ca: t.ca,
      rejectUnauthorized: t.verify,
      servername: isIP(t.servername) ? undefined : t.servername,
      checkServerIdentity: t.verify ? (_host, cert) => checkServerIdentity(t.servername, cert) : () => undefined,
    });
    const onError = (e: Error) => reject(new UpstreamConnectError(`TLS to the upstream FE at ${o.host}:${o.port} failed: ${e.message}`, 'ETLS'));
    s.once('error', onError);
    s.once('secureConnect', () => {
      s.off('error', onError);
      resolvePromise(s);
    });
  });
}

export interface ClientEndpoints {
  remoteAddress?: string;
  remotePort?: number;
  localAddress?: string;
  localPort?: number;
}

export class UpstreamConnectError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'UpstreamConnectError';
  }
}

/**
 * Reads into caller-owned buffers (net's `onread`): `callback` gets each chunk as
 * `buffer.subarray(0, n)` and must be done with it, or get a fresh buffer from `buffer()` for the
 * next read; no 'data' events are emitted. Not for a connection that is upgraded to TLS.
 */
export interface UpstreamReader {
  buffer: () => Buffer;
  callback: (bytesRead: number, buffer: Buffer) => boolean;
}

export function connectUpstream(o: UpstreamOptions, client: ClientEndpoints, reader?: UpstreamReader): Promise<Socket> {
  return new Promise((resolvePromise, reject) => {
    const socket = connect({ host: o.host, port: o.port, noDelay: true, ...(reader ? { onread: reader } : {}) });
    socket.setKeepAlive(true, 60_000);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new UpstreamConnectError(`connecting to the upstream FE at ${o.host}:${o.port} timed out after ${o.connectTimeoutMs} ms`, 'ETIMEDOUT'));
    }, o.connectTimeoutMs);
    const onError = (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      reject(new UpstreamConnectError(`cannot connect to the upstream FE at ${o.host}:${o.port}: ${e.code ?? e.message}`, e.code ?? 'ECONNECT'));
    };
    socket.once('error', onError);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('error', onError);
      if (o.proxyProtocol) {
        const ok = client.remoteAddress && client.localAddress && client.remotePort !== undefined && client.localPort !== undefined;
        socket.write(
          buildProxyV1Header(
            ok
              ? { sourceAddress: client.remoteAddress!, sourcePort: client.remotePort!, destinationAddress: client.localAddress!, destinationPort: client.localPort! }
              : null,
          ),
        );
      }
      resolvePromise(socket);
    });
  });
}
