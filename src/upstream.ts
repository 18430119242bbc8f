/**
 * The connection to the upstream FE: one TCP socket per client connection, opened before the
 * client is greeted (pass-through authentication needs the FE's scramble). Optionally the
 * PROXY protocol v1 line goes first, so Doris (`enable_proxy_protocol=true`) sees the real
 * client address for its host-based grants and audit.
 */
import { connect, type Socket } from 'node:net';
import { buildProxyV1Header } from '../protocol/proxy-protocol.js';

export interface UpstreamOptions {
  host: string;
  port: number;
  connectTimeoutMs: number;
  proxyProtocol: boolean;
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

export function connectUpstream(o: UpstreamOptions, client: ClientEndpoints): Promise<Socket> {
  return new Promise((resolvePromise, reject) => {
    const socket = connect({ host: o.host, port: o.port, noDelay: true });
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
