/**
 * The listener: accepts client connections and gives each a Session. Validates what must be
 * true before the first connection (TLS material readable, standalone users acceptable for the
 * listen address) and says at start-up which mode it runs in.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { SecureContext } from 'node:tls';
import { readFileSync } from 'node:fs';
import { ConfigError, isLoopbackHost } from './config.js';
import type { ProxyConfig } from './config-schema.js';
import type { Logger } from './observability/logger.js';
import type { StatementRouter } from './router/route.js';
import { NativeRelay } from './session/native-relay.js';
import { Session, SessionRegistry, type ProxyStats } from './session/session.js';
import { loadSecureContext } from './tls.js';
import type { UpstreamOptions, UpstreamTlsOptions } from './session/upstream-connection.js';
import { resolveLocalUsers, type LocalUsers } from './users-file.js';

/** What the standalone greeting says; 5.7.99 like Doris, so clients pick the same code paths. */
export const STANDALONE_SERVER_VERSION = '5.7.99-paimon-procedure-proxy';

export interface ProxyServerOptions {
  config: ProxyConfig;
  router: StatementRouter;
  logger: Logger;
  /** This process's place among `listen.workers` processes (standalone connection ids are partitioned by it). */
  worker?: { index: number; count: number };
}

export class ProxyServer {
  readonly registry = new SessionRegistry();
  /** What the sessions count themselves; the native relay counts what it forwards (see `stats`). */
  private readonly counted: ProxyStats = { startedAt: Date.now(), questions: 0, connectionsAccepted: 0, forwarded: 0, bytesUpstream: 0, bytesDownstream: 0 };
  private server: Server | null = null;
  private readonly sessions = new Set<Session>();
  private nextLocalId: number;
  private readonly idStep: number;

  private constructor(
    private readonly opts: ProxyServerOptions,
    private readonly secureContext: SecureContext | null,
    private readonly users: LocalUsers | null,
    private readonly upstreamTls: UpstreamTlsOptions | null,
    /** The native relay this server hands idle sessions to (null: all relayed in JavaScript). */
    readonly nativeRelay: NativeRelay | null,
  ) {
    // Worker i of n hands out i+1, i+1+n, ...: ids stay unique across the processes.
    this.nextLocalId = (opts.worker?.index ?? 0) + 1;
    this.idStep = opts.worker?.count ?? 1;
  }

  /** Validates the start-up preconditions (throws ConfigError with a precise message). */
  static async create(opts: ProxyServerOptions): Promise<ProxyServer> {
    const { config, logger } = opts;
    const tls = config.listen.tls;
    const secureContext = tls ? loadSecureContext(tls.cert, tls.key) : null;
    let users: LocalUsers | null = null;
    if (!config.upstream) {
      users = await resolveLocalUsers(config.users_file, config.listen.host);
      if (users.builtin) {
        logger.warn(
          { listen: config.listen.host },
          `standalone mode: the built-in user '${'root'}' has no password; this is allowed only because the proxy listens on the loopback address ${config.listen.host}. Configure users_file with password hashes before listening on any other address.`,
        );
      }
    } else if (config.users_file) {
      logger.warn('users_file is ignored while an upstream FE is configured: the FE authenticates every client (pass-through)');
    }
    let upstreamTls: UpstreamTlsOptions | null = null;
    const up = config.upstream;
    if (up?.tls) {
      let ca: Buffer | undefined;
      if (up.tls_ca) {
        try {
          ca = readFileSync(up.tls_ca);
        } catch (e) {
          throw new ConfigError(`cannot read upstream.tls_ca ${up.tls_ca}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
        }
      }
      if (!up.tls_verify) logger.warn('upstream.tls_verify is false: the FE certificate is not checked (testing only)');
      upstreamTls = { ca, verify: up.tls_verify, servername: up.tls_servername ?? up.host };
    }
    return new ProxyServer(opts, secureContext, users, upstreamTls, ProxyServer.nativeRelayFor(config, logger));
  }

  /** The native relay as upstream.native_relay asks: 'on' without a usable build does not start. */
  private static nativeRelayFor(config: ProxyConfig, logger: Logger): NativeRelay | null {
    const mode = config.upstream?.native_relay ?? 'off';
    if (mode === 'off') return null;
    const relay = NativeRelay.create();
    if (typeof relay !== 'string') return relay;
    if (mode === 'on') throw new ConfigError(`upstream.native_relay is 'on' but ${relay}: run npm ci (or node native/build.mjs) where a C compiler is installed, or set native_relay to 'auto' or 'off'`);
    logger.info(`relaying every byte in JavaScript: ${relay}`);
    return null;
  }

  /** The counters so far: the sessions' own plus what the native relay forwarded for them. */
  get stats(): ProxyStats {
    const c = this.counted;
    const n = this.nativeRelay?.counters();
    if (!n) return { ...c };
    return {
      ...c,
      questions: c.questions + n.queries,
      forwarded: c.forwarded + n.queries,
      bytesUpstream: c.bytesUpstream + n.bytesUpstream,
      bytesDownstream: c.bytesDownstream + n.bytesDownstream,
    };
  }

  get address(): AddressInfo | null {
    const a = this.server?.address();
    return a && typeof a === 'object' ? a : null;
  }

  get connectionCount(): number {
    return this.sessions.size;
  }

  listen(): Promise<AddressInfo> {
    const { config, logger } = this.opts;
    const upstream: UpstreamOptions | null = config.upstream
      ? {
          host: config.upstream.host,
          port: config.upstream.port,
          connectTimeoutMs: config.upstream.connect_timeout_ms,
          proxyProtocol: config.upstream.proxy_protocol,
          tls: this.upstreamTls,
          cleartextPassword: config.upstream.cleartext_password,
        }
      : null;
    const server = createServer({ noDelay: true, keepAlive: true, keepAliveInitialDelay: 60_000 }, (socket: Socket) => {
      this.counted.connectionsAccepted++;
      const session = new Session(socket, {
        router: this.opts.router,
        logger,
        secureContext: this.secureContext,
        tlsRequired: config.listen.tls?.required ?? false,
        upstream,
        users: this.users,
        registry: this.registry,
        serverVersion: STANDALONE_SERVER_VERSION,
        maxAllowedPacket: config.listen.max_allowed_packet,
        connectTimeoutMs: Math.round(config.listen.connect_timeout * 1000),
        compression: config.listen.compression,
        upstreamCompression: config.upstream?.compression ?? true,
        nextConnectionId: () => {
          const id = this.nextLocalId;
          this.nextLocalId += this.idStep;
          if (this.nextLocalId > 0x7fffffff) this.nextLocalId = (this.opts.worker?.index ?? 0) + 1;
          return id;
        },
        stats: this.counted,
        nativeRelay: this.nativeRelay,
      });
      this.sessions.add(session);
      socket.once('close', () => this.sessions.delete(session));
      try {
        session.start();
      } catch (e) {
        logger.error({ err: e instanceof Error ? e.message : String(e) }, 'session start failed');
        session.close('start failed');
      }
    });
    server.maxConnections = 100_000;
    server.on('error', (e) => logger.error({ err: e.message }, 'listener error'));
    this.server = server;
    return new Promise((resolvePromise, reject) => {
      const onError = (e: Error) => reject(e);
      server.once('error', onError);
      server.listen({ host: config.listen.host, port: config.listen.port, backlog: 4096 }, () => {
        server.off('error', onError);
        const a = server.address() as AddressInfo;
        logger.info(
          {
            listen: `${a.address}:${a.port}`,
            mode: upstream ? 'relay' : 'standalone',
            upstream: upstream ? `${upstream.host}:${upstream.port}` : null,
            proxyProtocol: upstream?.proxyProtocol ?? false,
            nativeRelay: this.nativeRelay !== null,
            tls: this.secureContext !== null,
            upstreamTls: upstream?.tls ? (upstream.tls.verify ? 'verified' : 'unverified') : false,
            catalogs: config.catalogs.map((c) => c.name),
            loopback: isLoopbackHost(config.listen.host),
            ...(this.opts.worker ? { worker: this.opts.worker.index, workers: this.opts.worker.count } : {}),
          },
          'paimon-procedure-proxy listening',
        );
        resolvePromise(a);
      });
    });
  }

  /** Stops accepting, closes every connection, resolves when the listener is closed. */
  close(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sessions) s.close('server shutting down');
    if (!server) return Promise.resolve();
    return new Promise((resolvePromise) => server.close(() => resolvePromise()));
  }
}
