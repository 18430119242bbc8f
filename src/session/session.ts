/**
 * One client connection: the object that owns the client socket and the upstream FE socket
 * (none in standalone mode), moves bytes between them with backpressure, and gives each phase
 * its turn, as vitess's go/mysql Conn holds a connection's I/O while the listener runs the
 * handshake and a handler the commands:
 *
 *   connection-phase.ts  greeting, TLS, authentication (relayed to the FE, or standalone)
 *   command-phase.ts     the command loop: relayed commands and responses, local replies,
 *                        prepared statements the proxy answers, the proxy's own upstream queries
 *
 * The compressed protocol (CLIENT_COMPRESS) is terminated on each leg: a CompressedChannel
 * between a socket and the packet handling unframes what arrives and frames what is written,
 * so the phases always see plain packets; without compression no byte takes that detour.
 *
 * Backpressure holds both ways: when a socket's write() returns false, the other socket is
 * paused until 'drain'. Replies the proxy writes itself hold the client's own commands the
 * same way once more than CLIENT_WRITE_HIGH_WATER of them wait unread. Packet sizes are
 * bounded by phase: MAX_HANDSHAKE_PAYLOAD before authentication, max_allowed_packet after.
 */
import type { Socket } from 'node:net';
import type { SecureContext, TLSSocket } from 'node:tls';
import { CompressedChannel, MAX_FRAME_LENGTH } from '../../protocol/compression.js';
import { CLIENT_COMPRESS, CLIENT_DEPRECATE_EOF, ER_HANDSHAKE_ERROR, ER_NET_PACKET_TOO_LARGE, ER_NOT_SUPPORTED_AUTH_MODE, SERVER_STATUS_AUTOCOMMIT } from '../../protocol/constants.js';
import { buildErr, type ErrPacket } from '../../protocol/generic-response.js';
import { encodePacket, PacketReader, PacketTooLargeError } from '../../protocol/packet.js';
import type { Logger } from '../observability/logger.js';
import type { SessionView, StatementRouter } from '../router/route.js';
import { maskText } from '../security/masking.js';
import { upgradeToTls } from '../tls.js';
import type { LocalUsers } from '../users-file.js';
import { CommandPhase } from './command-phase.js';
import { ConnectionPhase } from './connection-phase.js';
import { HandbackReason, NativeRelay, type Handback } from './native-relay.js';
import { authLegsDiffer, clearPasswordRefusal, clearPasswordRelayAllowed, fullAuthenticationRefusal } from './password-relay.js';
import { upgradeUpstream, type UpstreamOptions } from './upstream-connection.js';
import type { UpstreamQueryResult } from './upstream-queries.js';

/** Largest packet the proxy accepts from the FE (MySQL's max_allowed_packet upper bound). */
const MAX_UPSTREAM_PAYLOAD = 1 << 30;
/**
 * Largest packet a client may send before it is authenticated. A HandshakeResponse41 holds
 * fixed fields, user, auth data, database and plugin name (a few hundred bytes) and connect
 * attributes, which MySQL caps at 64 KiB; the auth exchange that follows carries at most an
 * RSA-encrypted password or a GSSAPI token (tens of KiB). 128 KiB covers both with room; a
 * larger packet closes the connection with ER_NET_PACKET_TOO_LARGE before it is buffered.
 */
const MAX_HANDSHAKE_PAYLOAD = 128 << 10;
/**
 * Replies the proxy wrote itself that a client may leave unread before the command phase stops
 * reading its commands (a client that pipelines without reading); reading resumes on 'drain'.
 */
const CLIENT_WRITE_HIGH_WATER = 1 << 20;
/** MySQL's and MariaDB's default connect_timeout (SessionDeps.connectTimeoutMs). */
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Most idle points a session waits before it offers itself to the native relay again (see nativeBackoff). */
const NATIVE_BACKOFF_MAX = 64;
/** Upstream read buffer: small while responses are small, grown when a read fills it. */
const UPSTREAM_READ_MIN = 4096;
const UPSTREAM_READ_MAX = 65536;

export interface ProxyStats {
  startedAt: number;
  questions: number;
  connectionsAccepted: number;
  /** Client commands forwarded upstream (COM_QUIT included; commands the proxy answers itself excluded). */
  forwarded: number;
  /** Client->FE bytes relayed, connection phase included (bytes the proxy sends on its own behalf excluded). */
  bytesUpstream: number;
  /** FE->client bytes relayed, connection phase included. */
  bytesDownstream: number;
}

/** Sessions by the connection id their client sees, for KILL of local statements. */
export class SessionRegistry {
  private readonly byId = new Map<number, Session>();
  add(s: Session): void {
    this.byId.set(s.connectionId, s);
  }
  remove(s: Session): void {
    if (this.byId.get(s.connectionId) === s) this.byId.delete(s.connectionId);
  }
  get(id: number): Session | undefined {
    return this.byId.get(id);
  }
  get size(): number {
    return this.byId.size;
  }
  all(): IterableIterator<Session> {
    return this.byId.values();
  }
}

export interface SessionDeps {
  router: StatementRouter;
  logger: Logger;
  secureContext: SecureContext | null;
  tlsRequired: boolean;
  /** null: standalone mode. */
  upstream: UpstreamOptions | null;
  /** Standalone users (required when upstream is null). */
  users: LocalUsers | null;
  registry: SessionRegistry;
  serverVersion: string;
  /**
   * Largest command packet an authenticated client may send (listen.max_allowed_packet); a
   * larger one gets ER_NET_PACKET_TOO_LARGE and the connection is closed, as MySQL does.
   */
  maxAllowedPacket: number;
  /**
   * Time a client has to finish the connection phase (listen.connect_timeout); then the
   * connection is closed without a packet (MariaDB resets it silently too). Default 10 s.
   */
  connectTimeoutMs?: number;
  /**
   * Offer the compressed protocol (CLIENT_COMPRESS, zlib) to clients; default true. Each leg
   * is framed on its own: the FE leg is compressed too when the client asked and the FE
   * offers it (and upstreamCompression is not false), else only the client leg is.
   */
  compression?: boolean;
  /** Compress the FE leg when the client's leg is compressed and the FE offers it; default true. */
  upstreamCompression?: boolean;
  nextConnectionId(): number;
  stats: ProxyStats;
  /**
   * The native relay (native-relay.ts) that idle sessions hand their plain statements to; null or
   * absent: every byte is relayed here. Only sessions with plain, uncompressed legs use it.
   */
  nativeRelay?: NativeRelay | null;
}

export type SessionPhase = 'connection' | 'command' | 'closed';

/** The session's catalog and database from a schema name (`catalog.db`, `db` or none). */
function splitCatalogDb(name: string | null): { catalog: string | null; database: string | null } {
  if (name === null || name === '') return { catalog: null, database: null };
  const i = name.indexOf('.');
  // Doris accepts `catalog.db` (one dot) wherever a database name is given at connect time.
  if (i > 0 && i === name.lastIndexOf('.') && i < name.length - 1) return { catalog: name.slice(0, i), database: name.slice(i + 1) };
  return { catalog: null, database: name };
}

export class Session implements SessionView {
  connectionId = 0;
  user = '';
  readonly clientAddress: string;
  readonly standalone: boolean;
  currentCatalog: string | null = null;
  currentDatabase: string | null = null;

  /** Effective capabilities: what the client asked for and the (edited) greeting offered. */
  capabilities = 0;
  /** Capabilities the FE's own greeting offered. */
  upstreamOffered = 0;
  /** Status flags as the client last saw them (the FE's, or the standalone session's own). */
  statusFlags = SERVER_STATUS_AUTOCOMMIT;
  clientTls = false;
  /** The client takes MariaDB progress-report packets (MARIADB_CLIENT_PROGRESS negotiated). */
  progressReports = false;
  /** Client packets not yet handled, in both phases (bounded by the phase's packet limit). */
  readonly clientReader = new PacketReader(MAX_HANDSHAKE_PAYLOAD);
  readonly deps: SessionDeps;
  readonly log: Logger;

  private clientSocket: Socket | TLSSocket;
  private upstreamSocket: Socket | null = null;
  private currentPhase: SessionPhase = 'connection';
  private readonly connection: ConnectionPhase;
  private command: CommandPhase | null = null;
  private handshakeTimer: NodeJS.Timeout | null = null;
  private upstreamPausedByClient = false;
  private clientPausedByUpstream = false;
  private clientPausedByQueue = false;
  /** A command-phase resume waits for the client socket's 'drain' (clientBacklogged). */
  private awaitingClientDrain = false;
  private upstreamReadSize = UPSTREAM_READ_MIN;
  private upstreamReadBuf: Buffer = Buffer.alloc(0);
  /** Something may still refer to upstreamReadBuf (or there is none yet): the next read needs a fresh one. */
  private upstreamReadHeld = true;
  /** The client leg's compressed framing, from the first command on (CLIENT_COMPRESS negotiated). */
  private clientCompression: CompressedChannel | null = null;
  /** The FE leg's, likewise (CLIENT_COMPRESS forwarded in the HandshakeResponse). */
  private upstreamCompression: CompressedChannel | null = null;
  /** The HandshakeResponse sent to the FE asked for compression (connection-phase.ts decides). */
  upstreamCompressionRequested = false;
  /** The native relay holds both sockets under this key (null: this session relays its bytes). */
  private nativeKey: number | null = null;
  private nativeOfferPending = false;
  /**
   * Idle points to let pass before the next offer. A session the relay gives back before it
   * forwarded anything (one that runs prepared statements, say) would cross over and back for
   * every command, so each such return doubles the wait, up to NATIVE_BACKOFF_MAX.
   */
  private nativeBackoff = 0;
  private nativeSkip = 0;

  constructor(socket: Socket, deps: SessionDeps) {
    this.clientSocket = socket;
    this.deps = deps;
    this.standalone = deps.upstream === null;
    this.clientAddress = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    this.log = deps.logger;
    this.connection = new ConnectionPhase(this, MAX_UPSTREAM_PAYLOAD);
    socket.setNoDelay(true);
    this.attachClient(socket);
  }

  get phase(): SessionPhase {
    return this.currentPhase;
  }

  get client(): Socket | TLSSocket {
    return this.clientSocket;
  }

  get upstream(): Socket | null {
    return this.upstreamSocket;
  }

  // ---- lifecycle -------------------------------------------------------------------------

  start(): void {
    // A client that never finishes the connection phase must not hold a slot (and an FE session).
    this.handshakeTimer = setTimeout(() => {
      if (this.currentPhase === 'connection') {
        this.log.info({ client: this.clientAddress }, 'connection phase timed out');
        this.close('handshake timeout');
      }
    }, this.deps.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
    this.handshakeTimer.unref();
    this.connection.start();
  }

  /** The client is authenticated: commands from here on (leftover client bytes are handled by the caller). */
  enterCommandPhase(): void {
    this.currentPhase = 'command';
    if (this.handshakeTimer) clearTimeout(this.handshakeTimer);
    this.clientReader.maxPayload = this.deps.maxAllowedPacket;
    // Client and server switch to compressed frames after the OK that ends authentication
    // (libmariadb and mysql2 both turn compression on once they have read it).
    if (this.capabilities & CLIENT_COMPRESS) this.startClientCompression();
    if (this.upstreamCompressionRequested) this.upstreamCompression = new CompressedChannel(MAX_FRAME_LENGTH);
    this.command = new CommandPhase(this);
    this.deps.registry.add(this);
    this.log.debug(
      { connectionId: this.connectionId, user: this.user, client: this.clientAddress, tls: this.clientTls, standalone: this.standalone },
      'client authenticated',
    );
  }

  /** Whether the greeting offers CLIENT_COMPRESS (config, on by default). */
  get compressionOffered(): boolean {
    return this.deps.compression !== false;
  }

  /** Whether a compressing client's FE leg may be compressed too (the FE must offer it as well). */
  get upstreamCompressionAllowed(): boolean {
    return this.deps.upstreamCompression !== false;
  }

  private startClientCompression(): void {
    const channel = new CompressedChannel();
    this.clientCompression = channel;
    // Whatever the client sent after its last handshake packet is already framed.
    const rest = this.clientReader.drain();
    if (rest.length > 0) for (const b of channel.decode(rest)) this.clientReader.push(b);
  }

  /** Handles the client commands that arrived with the end of the connection phase. */
  pumpCommands(): void {
    this.command?.pump();
  }

  /** FE bytes that arrived with the end of the connection phase: the command phase relays them. */
  upstreamLeftover(rest: Buffer): void {
    this.onUpstreamData(rest);
  }

  /**
   * Tears the connection down (idempotent). `flushClient` ends the client socket gracefully so
   * bytes already written (a final ERR) still reach it; otherwise it is destroyed.
   */
  close(reason: string, flushClient = false, stopReading = false): void {
    if (this.currentPhase === 'closed') return;
    const wasCommand = this.currentPhase === 'command';
    this.currentPhase = 'closed';
    if (this.handshakeTimer) clearTimeout(this.handshakeTimer);
    this.deps.registry.remove(this);
    if (this.nativeKey !== null) {
      const back = this.deps.nativeRelay!.detach(this.nativeKey);
      this.nativeKey = null;
      if (back && flushClient && back.toClient.length > 0) this.toClient(back.toClient);
      if (flushClient) NativeRelay.resumeReading(this.clientSocket as Socket, null);
    }
    this.command?.close(reason);
    const up = this.upstreamSocket;
    if (up) {
      up.removeListener('close', this.onUpstreamClose);
      up.destroy();
    }
    const client = this.clientSocket;
    if (flushClient && !client.destroyed) {
      if (stopReading) {
        // A client still pushing a refused packet: nothing it sends is read any more, so its bytes
        // cost no allocations (the kernel's buffers hold it back). Once the ERR is handed to the
        // kernel, a second for it to arrive; then the socket goes, since the client would
        // otherwise wait on our unread input.
        client.pause();
        client.end(() => setTimeout(() => client.destroy(), 1000));
      } else {
        client.end();
      }
      // a client that never reads (the last bytes never leave) must not keep the socket forever
      setTimeout(() => client.destroy(), 5000).unref();
    } else {
      client.destroy();
    }
    if (wasCommand) this.log.debug({ connectionId: this.connectionId, user: this.user, reason }, 'connection closed');
  }

  /** Sends one ERR (at `seq`) and closes after it is flushed. */
  failConnection(err: ErrPacket, seq: number, reason: string, stopReading = false): void {
    if (this.currentPhase === 'closed') return;
    if (!this.clientSocket.destroyed) this.toClient(encodePacket(buildErr(err), seq));
    this.close(reason, true, stopReading);
  }

  /**
   * The client announced a packet above the phase's limit: ER_NET_PACKET_TOO_LARGE and the
   * connection closes (MySQL's my_net_read gives up on the stream the same way); the payload
   * is never read into memory.
   */
  clientPacketTooLarge(e: PacketTooLargeError): void {
    const before = this.currentPhase === 'connection';
    this.log.info({ client: this.clientAddress, connectionId: this.connectionId, limit: e.limit, authenticated: !before }, 'client packet too large, closing connection');
    const message = before
      ? `Got a packet bigger than the ${e.limit} bytes a client may send before it is authenticated`
      : "Got a packet bigger than 'max_allowed_packet' bytes";
    this.failConnection({ errno: ER_NET_PACKET_TOO_LARGE, sqlState: '08S01', message }, (e.seq + 1) & 0xff, 'packet too large', true);
  }

  protocolFailure(e: unknown, where: string): void {
    const message = maskText(e instanceof Error ? e.message : String(e));
    this.log.warn({ client: this.clientAddress, connectionId: this.connectionId, where, err: message }, 'protocol error, closing connection');
    this.failConnection({ errno: ER_HANDSHAKE_ERROR, sqlState: '08S01', message: `paimon-procedure-proxy: protocol error (${where}): ${message}` }, 1, 'protocol error');
  }

  /**
   * Runs one statement on this session's upstream connection, as the authenticated user, and
   * returns its text result set (an ERR rejects with an UpstreamQueryError); see
   * CommandPhase.queryUpstream.
   */
  queryUpstream(sql: string): Promise<UpstreamQueryResult> {
    if (this.standalone || !this.upstreamSocket) return Promise.reject(new Error('no upstream connection (standalone mode)'));
    if (this.currentPhase !== 'command' || !this.command) return Promise.reject(new Error('the connection is not in the command phase'));
    return this.command.queryUpstream(sql);
  }

  /** Aborts the local statement this session is running (KILL QUERY from another session). */
  abortLocal(reason = 'Query execution was interrupted'): boolean {
    return this.command?.abortLocal(reason) ?? false;
  }

  /** The session's catalog and database from a connect-time or COM_CHANGE_USER schema. */
  selectSchema(name: string | null): void {
    const { catalog, database } = splitCatalogDb(name);
    this.currentCatalog = catalog;
    this.currentDatabase = database;
  }

  /** COM_INIT_DB accepted: `catalog.db` switches both, a bare `db` keeps the current catalog. */
  useDatabase(name: string): void {
    const { catalog, database } = splitCatalogDb(name);
    if (catalog !== null) this.currentCatalog = catalog;
    this.currentDatabase = database;
  }

  // ---- the client socket -------------------------------------------------------------------

  private attachClient(s: Socket | TLSSocket): void {
    s.on('data', this.onClientData);
    s.on('error', this.onClientError);
    s.on('close', this.onClientClose);
  }

  private readonly onClientData = (chunk: Buffer): void => {
    if (this.currentPhase === 'command') {
      if (this.clientCompression) this.compressedClientData(chunk);
      else this.command!.clientData(chunk);
      return;
    }
    if (this.currentPhase === 'closed') return;
    this.connection.clientData(chunk);
  };

  private compressedClientData(chunk: Buffer): void {
    let data: Buffer[];
    try {
      data = this.clientCompression!.decode(chunk);
    } catch (e) {
      this.protocolFailure(e, 'compressed client frame');
      return;
    }
    for (const b of data) {
      if (this.currentPhase !== 'command') return;
      this.command!.clientData(b);
    }
  }

  /** Every write to the client socket: framed once the client leg is compressed. */
  private toClient(buf: Buffer): boolean {
    const c = this.clientCompression;
    return this.clientSocket.write(c ? c.encode(buf) : buf);
  }

  private readonly onClientError = (e: NodeJS.ErrnoException): void => {
    this.log.debug({ client: this.clientAddress, code: e.code }, 'client socket error');
    this.close('client error');
  };

  private readonly onClientClose = (): void => {
    this.close('client closed');
  };

  /**
   * Upgrades the client socket after its SSLRequest; `leftover` is what the client sent after
   * it. `onSecure` runs once the TLS socket is in place, before it is read.
   */
  upgradeClient(context: SecureContext, leftover: Buffer, onSecure: () => void): void {
    const plain = this.clientSocket;
    plain.removeListener('error', this.onClientError);
    plain.removeListener('close', this.onClientClose);
    plain.on('error', this.onClientError);
    upgradeToTls(plain as Socket, context, leftover).then(
      (tls) => {
        if (this.currentPhase === 'closed') {
          tls.destroy();
          return;
        }
        this.clientSocket = tls;
        this.clientTls = true;
        this.attachClient(tls);
        onSecure();
        tls.resume();
      },
      (e: Error) => {
        this.log.info({ client: this.clientAddress, err: e.message }, 'TLS handshake with client failed');
        this.close('tls failed');
      },
    );
  }

  /** Writes bytes of the proxy's own to the client (greeting, local replies). */
  writeClient(buf: Buffer): void {
    this.toClient(buf);
  }

  /** Writes FE bytes of the connection phase to the client, counted as relayed. */
  relayToClient(buf: Buffer): void {
    this.deps.stats.bytesDownstream += buf.length;
    this.toClient(buf);
  }

  /** Writes a chunk of a relayed FE response to the client; pauses the FE while the client is slow. */
  relayDownstream(chunk: Buffer): void {
    this.deps.stats.bytesDownstream += chunk.length;
    this.writeDownstream(chunk);
  }

  /** Writes FE bytes to the client, uncounted; pauses the FE while the client is slow. */
  private writeDownstream(chunk: Buffer): void {
    if (!this.toClient(chunk) && !this.upstreamPausedByClient) {
      this.upstreamPausedByClient = true;
      this.upstreamSocket!.pause();
      this.clientSocket.once('drain', this.onClientDrain);
    }
  }

  private readonly onClientDrain = (): void => {
    this.upstreamPausedByClient = false;
    if (this.currentPhase !== 'closed') this.upstreamSocket?.resume();
  };

  /**
   * True while more than CLIENT_WRITE_HIGH_WATER bytes of replies wait to reach the client;
   * `resume` then runs once, when the socket has drained.
   */
  clientBacklogged(resume: () => void): boolean {
    const c = this.clientSocket;
    if (c.writableLength <= CLIENT_WRITE_HIGH_WATER) return false;
    if (!this.awaitingClientDrain) {
      this.awaitingClientDrain = true;
      c.once('drain', () => {
        this.awaitingClientDrain = false;
        if (this.currentPhase !== 'closed') resume();
      });
    }
    return true;
  }

  /**
   * Holds the client's input while too much of it waits unhandled or the client does not read
   * our replies (a pipelining client); released by the command phase once it can go on.
   */
  holdClientForQueue(hold: boolean): void {
    if (hold) {
      if (!this.clientPausedByQueue) {
        this.clientPausedByQueue = true;
        this.clientSocket.pause();
      }
    } else if (this.clientPausedByQueue) {
      this.clientPausedByQueue = false;
      if (!this.clientPausedByUpstream) this.clientSocket.resume();
    }
  }

  // ---- the upstream socket -----------------------------------------------------------------

  /** The connected FE socket (connection-phase.ts opens it). */
  adoptUpstream(up: Socket, dataEvents: boolean): void {
    this.upstreamSocket = up;
    if (dataEvents) up.on('data', this.onUpstreamData);
    up.on('error', this.onUpstreamError);
    up.on('close', this.onUpstreamClose);
  }

  /**
   * Sends our SSLRequest on the plain FE socket and upgrades it; `onSecure` runs once the TLS
   * socket is in place, `onFail` when the FE's certificate or TLS fails.
   */
  upgradeUpstream(sslRequest: Buffer, onSecure: () => void, onFail: (e: Error) => void): void {
    const plain = this.upstreamSocket!;
    plain.write(sslRequest);
    plain.removeListener('data', this.onUpstreamData);
    plain.removeListener('close', this.onUpstreamClose);
    upgradeUpstream(plain, this.deps.upstream!).then(
      (secure) => {
        if (this.currentPhase === 'closed') {
          secure.destroy();
          return;
        }
        this.upstreamSocket = secure;
        secure.on('data', this.onUpstreamData);
        secure.on('error', this.onUpstreamError);
        secure.on('close', this.onUpstreamClose);
        onSecure();
      },
      onFail,
    );
  }

  /** The buffer the next upstream read lands in (see onUpstreamRead). */
  readonly upstreamReadBuffer = (): Buffer => {
    if (this.upstreamReadHeld) {
      this.upstreamReadHeld = false;
      this.upstreamReadBuf = Buffer.allocUnsafe(this.upstreamReadSize);
    }
    return this.upstreamReadBuf;
  };

  /**
   * One upstream read (plain FE leg): handled like a 'data' chunk, but in a buffer the session
   * reuses, which spares an allocation and the stream machinery per read. The buffer is reused
   * only when nothing refers to it any more: the client write completed at once (Node keeps
   * a reference to what it could not write yet) and no packet reader kept a view of it
   * (connection phase, the proxy's own upstream queries). Otherwise the next read gets a fresh
   * buffer. A read that fills the buffer grows the next one, up to UPSTREAM_READ_MAX.
   */
  readonly onUpstreamRead = (n: number, buf: Buffer): boolean => {
    // Stored (uncompressed) frames come out of the FE leg's channel as views of the read buffer.
    const relaying = this.currentPhase === 'command' && !this.command!.collectingUpstream && !this.upstreamCompression;
    this.onUpstreamData(n === buf.length ? buf : buf.subarray(0, n));
    if (!relaying || this.clientSocket.writableLength > 0) this.upstreamReadHeld = true;
    if (n === buf.length && this.upstreamReadSize < UPSTREAM_READ_MAX) {
      this.upstreamReadSize = Math.min(UPSTREAM_READ_MAX, this.upstreamReadSize * 4);
      this.upstreamReadHeld = true;
    }
    return true;
  };

  private readonly onUpstreamData = (chunk: Buffer): void => {
    if (this.currentPhase === 'command') {
      if (this.upstreamCompression) this.compressedUpstreamData(chunk);
      else this.command!.upstreamData(chunk);
      return;
    }
    if (this.currentPhase === 'closed') return;
    this.connection.upstreamData(chunk);
  };

  private compressedUpstreamData(chunk: Buffer): void {
    let data: Buffer[];
    try {
      data = this.upstreamCompression!.decode(chunk);
    } catch (e) {
      this.protocolFailure(e, 'compressed upstream frame');
      return;
    }
    for (const b of data) {
      if (this.currentPhase !== 'command') return;
      this.command!.upstreamData(b);
    }
  }

  private readonly onUpstreamError = (e: NodeJS.ErrnoException): void => {
    this.log.info({ client: this.clientAddress, connectionId: this.connectionId, code: e.code }, 'upstream connection error');
    this.close('upstream error', true);
  };

  private readonly onUpstreamClose = (): void => {
    this.close('upstream closed', true);
  };

  /** Writes client bytes to the FE, counted as relayed (writeUpstream: the proxy's own bytes). */
  relayToUpstream(buf: Buffer): void {
    this.deps.stats.bytesUpstream += buf.length;
    this.writeUpstream(buf);
  }

  /** Writes a new command to the FE (its first packet has sequence id 0), counted as relayed unless `own`. */
  commandToUpstream(buf: Buffer, own = false): void {
    this.upstreamCompression?.startCommand();
    if (own) this.writeUpstream(buf);
    else this.relayToUpstream(buf);
  }

  writeUpstream(buf: Buffer): void {
    const up = this.upstreamSocket;
    if (!up) return;
    const c = this.upstreamCompression;
    if (!up.write(c ? c.encode(buf) : buf) && !this.clientPausedByUpstream) {
      this.clientPausedByUpstream = true;
      this.clientSocket.pause();
      up.once('drain', this.onUpstreamDrain);
    }
  }

  private readonly onUpstreamDrain = (): void => {
    this.clientPausedByUpstream = false;
    if (this.currentPhase !== 'closed' && !this.clientPausedByQueue) this.clientSocket.resume();
  };

  // ---- the native relay (native-relay.ts) ---------------------------------------------------

  /**
   * The command phase is idle with nothing queued: offer both sockets to the native relay, in a
   * later turn of the event loop (the client's stream must be waiting on its next read, which it
   * is not inside its own 'data' event). Sessions with a TLS or compressed leg keep their bytes.
   */
  offerToNativeRelay(): void {
    if (!this.deps.nativeRelay || this.nativeKey !== null || this.nativeOfferPending) return;
    if (this.clientTls || this.deps.upstream?.tls || this.clientCompression || this.upstreamCompression) return;
    if (this.nativeSkip > 0) {
      this.nativeSkip--;
      return;
    }
    this.nativeOfferPending = true;
    setImmediate(this.handToNativeRelay);
  }

  private readonly handToNativeRelay = (): void => {
    this.nativeOfferPending = false;
    const up = this.upstreamSocket;
    const command = this.command;
    if (this.currentPhase !== 'command' || !up || !command || this.nativeKey !== null) return;
    if (this.upstreamPausedByClient || this.clientPausedByUpstream || this.clientPausedByQueue || this.awaitingClientDrain) return;
    if (!command.idle || this.clientReader.pendingBytes !== 0 || this.deps.router.forwardsOther?.(this) !== true) return;
    this.nativeKey = this.deps.nativeRelay!.attach(
      this.clientSocket as Socket,
      up,
      { deprecateEof: (this.capabilities & CLIENT_DEPRECATE_EOF) !== 0, maxPayload: this.clientReader.maxPayload, statusFlags: this.statusFlags },
      this.takeBackFromNativeRelay,
    );
  };

  /**
   * The native relay gave the session back: what it still held goes out first, then the session
   * goes on here with the command it stopped at (or closes, when a side ended).
   */
  private readonly takeBackFromNativeRelay = (back: Handback): void => {
    this.nativeKey = null;
    if (this.currentPhase !== 'command') return;
    this.nativeBackoff = back.forwarded > 0 ? 0 : Math.min(NATIVE_BACKOFF_MAX, this.nativeBackoff * 2 || 1);
    this.nativeSkip = this.nativeBackoff;
    const up = this.upstreamSocket!;
    this.statusFlags = back.statusFlags;
    this.command!.statusFromNativeRelay(back.statusFlags);
    if (back.reason === HandbackReason.ClientClosed) {
      this.close('client closed');
      return;
    }
    NativeRelay.resumeReading(this.clientSocket as Socket, up);
    // Already counted by the relay: written as they are, with the usual backpressure.
    if (back.toClient.length > 0) this.writeDownstream(back.toClient);
    if (back.reason === HandbackReason.UpstreamClosed) {
      this.close('upstream closed', true);
      return;
    }
    if (back.toUpstream.length > 0) this.writeUpstream(back.toUpstream);
    if (back.reason === HandbackReason.Infile) this.command!.infileFromNativeRelay();
    if (back.held.length > 0) this.command!.clientData(back.held);
    else this.command!.pump();
  };

  // ---- password answers across TLS and plain legs (password-relay.ts) -----------------------

  authLegsDiffer(): boolean {
    return authLegsDiffer(this.clientTls, this.deps.upstream);
  }

  clearPasswordRelayAllowed(): boolean {
    return clearPasswordRelayAllowed(this.clientTls, this.deps.upstream, this.upstreamSocket?.remoteAddress);
  }

  refuseFullAuthentication(seq: number): void {
    this.refusePasswordRelay(seq, fullAuthenticationRefusal(this.clientTls, this.deps.upstream), 'caching_sha2 full authentication across TLS and plain');
  }

  refuseClearPassword(seq: number): void {
    this.refusePasswordRelay(seq, clearPasswordRefusal(this.deps.upstream), 'mysql_clear_password from a TLS client to a plain FE');
  }

  /** Ends the login without passing the client's password answer on: ER_NOT_SUPPORTED_AUTH_MODE to the client. */
  private refusePasswordRelay(seq: number, message: string, reason: string): void {
    this.log.info({ client: this.clientAddress, user: this.user, clientTls: this.clientTls }, `${reason}: refused`);
    this.failConnection({ errno: ER_NOT_SUPPORTED_AUTH_MODE, sqlState: '08004', message }, seq, reason);
  }
}
