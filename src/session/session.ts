/**
 * One client connection: the connection phase (pass-through authentication against the
 * upstream FE, or standalone authentication against the users file), then the command phase.
 *
 * With an upstream, every client command is forwarded unchanged unless the router takes a
 * COM_QUERY; the upstream's response is relayed chunk by chunk as raw bytes while a
 * ResponseTracker walks packet headers to see where it ends. Backpressure holds both ways: when
 * a socket's write() returns false, the other socket is paused until 'drain'.
 *
 * Commands are handled one at a time; a client that pipelines waits in the packet reader
 * (and is paused when too much piles up), so local replies and relayed responses never
 * interleave.
 */
import type { Socket } from 'node:net';
import type { SecureContext, TLSSocket } from 'node:tls';
import { CLEAR_PASSWORD_PLUGIN, generateScramble, isClearPasswordSwitch, isPerformFullAuthentication, MYSQL_NATIVE_PASSWORD } from '../../protocol/auth.js';
import {
  CLIENT_CONNECT_ATTRS,
  CLIENT_CONNECT_WITH_DB,
  CLIENT_DEPRECATE_EOF,
  CLIENT_FOUND_ROWS,
  CLIENT_IGNORE_SPACE,
  CLIENT_INTERACTIVE,
  CLIENT_LONG_FLAG,
  CLIENT_LONG_PASSWORD,
  CLIENT_MULTI_RESULTS,
  CLIENT_MULTI_STATEMENTS,
  CLIENT_PLUGIN_AUTH,
  CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA,
  CLIENT_PROTOCOL_41,
  CLIENT_PS_MULTI_RESULTS,
  CLIENT_SECURE_CONNECTION,
  CLIENT_SSL,
  CLIENT_TRANSACTIONS,
  COM_CHANGE_USER,
  COM_FIELD_LIST,
  COM_INIT_DB,
  COM_PING,
  COM_QUERY,
  COM_QUIT,
  COM_RESET_CONNECTION,
  COM_SET_OPTION,
  COM_STATISTICS,
  COM_STMT_CLOSE,
  COM_STMT_EXECUTE,
  COM_STMT_FETCH,
  COM_STMT_PREPARE,
  COM_STMT_RESET,
  COM_STMT_SEND_LONG_DATA,
  ER_ACCESS_DENIED_ERROR,
  ER_HANDSHAKE_ERROR,
  ER_NOT_SUPPORTED_AUTH_MODE,
  ER_UNKNOWN_COM_ERROR,
  ER_UNKNOWN_ERROR,
  EOF_HEADER,
  ERR_HEADER,
  LOCAL_INFILE_HEADER,
  MAX_PACKET_PAYLOAD,
  OK_HEADER,
  RELAY_MASKED_CAPABILITIES,
  SERVER_MORE_RESULTS_EXISTS,
  SERVER_STATUS_AUTOCOMMIT,
  SERVER_STATUS_NO_BACKSLASH_ESCAPES,
} from '../../protocol/constants.js';
import { BufferReader } from '../../protocol/buffer-reader.js';
import { buildEof, buildErr, buildOk, parseEof, parseErr, parseOk, type ErrPacket } from '../../protocol/generic-response.js';
import {
  buildHandshakeV10,
  buildSslRequest,
  editGreetingCapabilities,
  editHandshakeResponse,
  isSslRequest,
  parseChangeUser,
  parseHandshakeResponse41,
  parseHandshakeV10,
  type HandshakeResponse41,
} from '../../protocol/handshake.js';
import { encodePacket, PacketReader, type Packet } from '../../protocol/packet.js';
import { parseExecute, prepareOkPayloads, statementIdOf } from '../../protocol/prepared-statement.js';
import { parseColumnDefinition, parseTextRow } from '../../protocol/result-set.js';
import { InfileScanner, ResponseTracker, TrackerState } from '../../protocol/response-tracker.js';
import { LocalAuthenticator, type AuthStep } from './local-auth.js';
import { encodeLocalReplies } from './local-reply.js';
import { bindPlaceholders, findPlaceholders, ProxyStatements } from '../router/prepared-call.js';
import { classifyStatement } from '../router/statement-prefilter.js';
import type { Logger } from '../observability/logger.js';
import type { LocalReply, Route, SessionView, StatementRouter } from '../router/route.js';
import { maskText } from '../security/masking.js';
import { upgradeToTls } from '../tls.js';
import { connectUpstream, upgradeUpstream, type UpstreamOptions } from './upstream.js';
import type { LocalUsers } from '../users-file.js';

/** MariaDB's CLIENT_PROGRESS_OBSOLETE (MySQL's CLIENT_CAPABILITY_EXTENSION): progress packets change the stream. */
const CLIENT_PROGRESS_OBSOLETE = 0x20000000;
/** Pause a pipelining client once this much unprocessed input is waiting. */
const CLIENT_QUEUE_HIGH_WATER = 1 << 20;
/** Upstream read buffer: small while responses are small, grown when a read fills it. */
const UPSTREAM_READ_MIN = 4096;
const UPSTREAM_READ_MAX = 65536;
/** Largest command the proxy accepts from a client (MySQL's max_allowed_packet upper bound). */
const MAX_COMMAND_PAYLOAD = 1 << 30;
const ER_SECURE_TRANSPORT_REQUIRED = 3159;
/** Like MySQL's connect_timeout, but generous: the FE's own auth (LDAP) may be slow. */
const HANDSHAKE_TIMEOUT_MS = 30_000;
const ER_UNSUPPORTED_PS = 1295;
const ER_UNKNOWN_STMT_HANDLER = 1243;
const ER_WRONG_ARGUMENTS = 1210;
const ER_STMT_HAS_NO_OPEN_CURSOR = 1421;

/** Capabilities the standalone greeting offers (no LOCAL INFILE, no compression, no session tracking). */
const STANDALONE_CAPABILITIES =
  CLIENT_LONG_PASSWORD |
  CLIENT_FOUND_ROWS |
  CLIENT_LONG_FLAG |
  CLIENT_CONNECT_WITH_DB |
  CLIENT_IGNORE_SPACE |
  CLIENT_PROTOCOL_41 |
  CLIENT_INTERACTIVE |
  CLIENT_TRANSACTIONS |
  CLIENT_SECURE_CONNECTION |
  CLIENT_MULTI_STATEMENTS |
  CLIENT_MULTI_RESULTS |
  CLIENT_PS_MULTI_RESULTS |
  CLIENT_PLUGIN_AUTH |
  CLIENT_CONNECT_ATTRS |
  CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA |
  CLIENT_DEPRECATE_EOF;

/** A text result set the upstream returned to a statement the proxy sent on its own behalf. */
export interface UpstreamQueryResult {
  columns: string[];
  rows: (string | null)[][];
}

/** An ERR the upstream answered to a statement the proxy sent on its own behalf. */
export class UpstreamQueryError extends Error {
  constructor(
    readonly errno: number,
    readonly sqlState: string,
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamQueryError';
  }
}

/**
 * Collects the response to one COM_QUERY the proxy sent upstream itself: text result sets
 * (column count, column definitions, EOF unless CLIENT_DEPRECATE_EOF, rows, EOF/OK), OK or
 * ERR, following SERVER_MORE_RESULTS_EXISTS to the end. Keeps the first result set that has
 * columns. Pure packet handling; the session feeds it and writes what it asks to write.
 */
class UpstreamQueryCollector {
  private readonly reader = new PacketReader(MAX_COMMAND_PAYLOAD);
  private state: 'first' | 'columns' | 'columnsEof' | 'rows' | 'infile' | 'done' = 'first';
  private columnsLeft = 0;
  private current: UpstreamQueryResult | null = null;
  private result: UpstreamQueryResult | null = null;
  private error: Error | null = null;

  constructor(
    private readonly capabilities: number,
    readonly resolve: (r: UpstreamQueryResult) => void,
    readonly reject: (e: Error) => void,
  ) {}

  /**
   * Feeds upstream bytes. Returns the bytes that follow the end of the response (normally
   * none) once it is complete, else null. `reply` sends a packet back (LOCAL INFILE refusal).
   */
  feed(chunk: Buffer, reply: (packet: Buffer) => void): Buffer | null {
    this.reader.push(chunk);
    let p: Packet | null;
    while (this.state !== 'done' && (p = this.reader.next())) this.packet(p, reply);
    if (this.state !== 'done') return null;
    if (this.error) this.reject(this.error);
    else this.resolve(this.result ?? { columns: [], rows: [] });
    return this.reader.drain();
  }

  private packet(p: Packet, reply: (packet: Buffer) => void): void {
    const pl = p.payload;
    switch (this.state) {
      case 'first':
      case 'infile': {
        if (pl[0] === ERR_HEADER) {
          const e = parseErr(pl);
          this.error ??= new UpstreamQueryError(e.errno, e.sqlState, e.message);
          this.state = 'done';
        } else if (pl[0] === OK_HEADER) {
          this.endOfResult(parseOk(pl, this.capabilities).statusFlags);
        } else if (pl[0] === LOCAL_INFILE_HEADER && this.state === 'first') {
          // The proxy has no file to send: an empty packet ends the exchange; the FE answers OK/ERR.
          this.error ??= new Error('the upstream asked for a LOCAL INFILE file');
          reply(encodePacket(Buffer.alloc(0), (p.lastSeq + 1) & 0xff));
          this.state = 'infile';
        } else {
          const n = new BufferReader(pl).lenenc();
          if (n === null || n <= 0) throw new Error(`unexpected packet 0x${(pl[0] ?? 0).toString(16)} at the start of an upstream response`);
          this.current = { columns: [], rows: [] };
          this.columnsLeft = n;
          this.state = 'columns';
        }
        return;
      }
      case 'columns':
        this.current!.columns.push(parseColumnDefinition(pl).name);
        if (--this.columnsLeft === 0) this.state = this.capabilities & CLIENT_DEPRECATE_EOF ? 'rows' : 'columnsEof';
        return;
      case 'columnsEof':
        parseEof(pl);
        this.state = 'rows';
        return;
      case 'rows': {
        if (pl[0] === ERR_HEADER) {
          const e = parseErr(pl);
          this.error ??= new UpstreamQueryError(e.errno, e.sqlState, e.message);
          this.state = 'done';
          return;
        }
        const deprecateEof = (this.capabilities & CLIENT_DEPRECATE_EOF) !== 0;
        if (pl[0] === EOF_HEADER && (deprecateEof ? pl.length < MAX_PACKET_PAYLOAD : pl.length < 9)) {
          const flags = deprecateEof ? parseOk(pl, this.capabilities).statusFlags : parseEof(pl).statusFlags;
          if (!this.result) this.result = this.current;
          this.current = null;
          this.endOfResult(flags);
          return;
        }
        this.current!.rows.push(parseTextRow(pl, this.current!.columns.length));
        return;
      }
      case 'done':
        return;
    }
  }

  private endOfResult(statusFlags: number): void {
    this.state = statusFlags & SERVER_MORE_RESULTS_EXISTS ? 'first' : 'done';
  }
}

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
  nextConnectionId(): number;
  stats: ProxyStats;
}

/** A router may also decide COM_INIT_DB (src/router/router.ts does: `catalog.db`, standalone USE). */
interface InitDbRouter extends StatementRouter {
  initDb?(schema: string, session: SessionView): Route;
  /** Forget per-session router state after COM_RESET_CONNECTION / COM_CHANGE_USER. */
  resetSession?(session: SessionView): void;
}

type Phase = 'connecting' | 'greeting' | 'response' | 'tls' | 'auth' | 'command' | 'closed';

/** ERR 1105 / HY000: how the proxy answers a statement that failed inside it. */
function unknownError(message: string): LocalReply {
  return { kind: 'error', errno: ER_UNKNOWN_ERROR, sqlState: 'HY000', message };
}

function localError(message: string): Route {
  return { kind: 'local', run: async () => [unknownError(message)] };
}

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

  private client: Socket | TLSSocket;
  private upstream: Socket | null = null;
  private phase: Phase = 'connecting';
  private readonly log: Logger;
  /** Effective capabilities: what the client asked for and the (edited) greeting offered. */
  private capabilities = 0;
  /** Capabilities offered in the greeting the client saw. */
  private offered = 0;
  /** Capabilities the FE's own greeting offered. */
  private upstreamOffered = 0;
  private statusFlags = SERVER_STATUS_AUTOCOMMIT;
  private clientTls = false;
  private readonly clientReader = new PacketReader(MAX_COMMAND_PAYLOAD);
  private readonly upstreamReader = new PacketReader(MAX_COMMAND_PAYLOAD);
  private tracker: ResponseTracker = new ResponseTracker(0);
  private readonly infileScanner = new InfileScanner();
  private infileActive = false;
  /** Client seq minus upstream seq during the relayed auth exchange (TLS on one leg only). */
  private seqDelta = 0;
  private authenticator: LocalAuthenticator | null = null;
  private scramble: Buffer = Buffer.alloc(0);
  /** Next sequence id of the standalone auth exchange. */
  private authSeq = 0;
  /** Set by a forwarded command whose success must update session state. */
  private onUpstreamOk: (() => void) | null = null;
  private localRunning: AbortController | null = null;
  /** Prepared statements the proxy answers itself (intercepted CALLs). */
  private readonly statements = new ProxyStatements();
  private handshakeTimer: NodeJS.Timeout | null = null;
  private upstreamPausedByClient = false;
  private clientPausedByUpstream = false;
  private clientPausedByQueue = false;
  /** A statement the proxy itself runs on the upstream connection (queryUpstream). */
  private upstreamQuery: UpstreamQueryCollector | null = null;
  private upstreamReadSize = UPSTREAM_READ_MIN;
  private upstreamReadBuf: Buffer = Buffer.alloc(0);
  /** Something may still refer to upstreamReadBuf (or there is none yet): the next read needs a fresh one. */
  private upstreamReadHeld = true;

  constructor(
    socket: Socket,
    private readonly deps: SessionDeps,
  ) {
    this.client = socket;
    this.standalone = deps.upstream === null;
    this.clientAddress = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    this.log = deps.logger;
    socket.setNoDelay(true);
    this.attachClient(socket);
  }

  // ---- lifecycle -------------------------------------------------------------------------

  start(): void {
    // A client that never finishes the connection phase must not hold a slot (and an FE session).
    this.handshakeTimer = setTimeout(() => {
      if (this.phase !== 'command' && this.phase !== 'closed') {
        this.log.info({ client: this.clientAddress }, 'connection phase timed out');
        this.close('handshake timeout');
      }
    }, HANDSHAKE_TIMEOUT_MS);
    this.handshakeTimer.unref();
    if (this.deps.upstream) void this.connectUpstream(this.deps.upstream);
    else this.greetStandalone();
  }

  /** True while a command is in flight (relayed response or local statement). */
  private get busy(): boolean {
    return this.tracker.busy || this.localRunning !== null || this.upstreamQuery !== null;
  }

  private attachClient(s: Socket | TLSSocket): void {
    s.on('data', this.onClientData);
    s.on('error', this.onClientError);
    s.on('close', this.onClientClose);
  }

  private readonly onClientError = (e: NodeJS.ErrnoException): void => {
    this.log.debug({ client: this.clientAddress, code: e.code }, 'client socket error');
    this.close('client error');
  };

  private readonly onClientClose = (): void => {
    this.close('client closed');
  };

  private readonly onUpstreamError = (e: NodeJS.ErrnoException): void => {
    this.log.info({ client: this.clientAddress, connectionId: this.connectionId, code: e.code }, 'upstream connection error');
    this.close('upstream error', true);
  };

  private readonly onUpstreamClose = (): void => {
    this.close('upstream closed', true);
  };

  /**
   * Tears the connection down (idempotent). `flushClient` ends the client socket gracefully so
   * bytes already written (a final ERR) still reach it; otherwise it is destroyed.
   */
  close(reason: string, flushClient = false): void {
    if (this.phase === 'closed') return;
    const wasCommand = this.phase === 'command';
    this.phase = 'closed';
    if (this.handshakeTimer) clearTimeout(this.handshakeTimer);
    this.deps.registry.remove(this);
    this.localRunning?.abort(new Error(reason));
    this.tracker.abort();
    if (this.upstreamQuery) {
      const q = this.upstreamQuery;
      this.upstreamQuery = null;
      q.reject(new Error(`connection closed while querying the upstream (${reason})`));
    }
    if (this.upstream) {
      this.upstream.removeListener('close', this.onUpstreamClose);
      this.upstream.destroy();
    }
    if (flushClient && !this.client.destroyed) {
      this.client.end();
      // a client that never reads must not keep the socket forever
      setTimeout(() => this.client.destroy(), 5000).unref();
    } else {
      this.client.destroy();
    }
    if (wasCommand) this.log.debug({ connectionId: this.connectionId, user: this.user, reason }, 'connection closed');
  }

  /** Sends one ERR (at `seq`) and closes after it is flushed. */
  private failConnection(err: ErrPacket, seq: number, reason: string): void {
    if (this.phase === 'closed') return;
    if (!this.client.destroyed) this.client.write(encodePacket(buildErr(err), seq));
    this.close(reason, true);
  }

  // ---- connection phase: pass-through -----------------------------------------------------

  private async connectUpstream(o: UpstreamOptions): Promise<void> {
    let up: Socket;
    try {
      up = await connectUpstream(
        o,
        {
          remoteAddress: this.client.remoteAddress,
          remotePort: this.client.remotePort,
          localAddress: this.client.localAddress,
          localPort: this.client.localPort,
        },
        // A plain FE leg reads into the session's own buffer (TLS wraps the socket: 'data' events).
        o.tls ? undefined : { buffer: this.upstreamReadBuffer, callback: this.onUpstreamRead },
      );
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      this.log.warn({ client: this.clientAddress }, msg);
      // The client is waiting for a greeting; servers send an ERR in its place (seq 0).
      this.failConnection({ errno: ER_UNKNOWN_ERROR, sqlState: 'HY000', message: `paimon-procedure-proxy: ${msg}` }, 0, 'upstream unreachable');
      return;
    }
    if (this.phase === 'closed') {
      up.destroy();
      return;
    }
    this.upstream = up;
    if (o.tls) up.on('data', this.onUpstreamData);
    up.on('error', this.onUpstreamError);
    up.on('close', this.onUpstreamClose);
    this.phase = 'greeting';
  }

  /** The buffer the next upstream read lands in (see onUpstreamRead). */
  private readonly upstreamReadBuffer = (): Buffer => {
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
   * (connection phase, queryUpstream). Otherwise the next read gets a fresh buffer. A read
   * that fills the buffer grows the next one, up to UPSTREAM_READ_MAX.
   */
  private readonly onUpstreamRead = (n: number, buf: Buffer): boolean => {
    const relaying = this.phase === 'command' && this.upstreamQuery === null;
    this.onUpstreamData(n === buf.length ? buf : buf.subarray(0, n));
    if (!relaying || this.client.writableLength > 0) this.upstreamReadHeld = true;
    if (n === buf.length && this.upstreamReadSize < UPSTREAM_READ_MAX) {
      this.upstreamReadSize = Math.min(UPSTREAM_READ_MAX, this.upstreamReadSize * 4);
      this.upstreamReadHeld = true;
    }
    return true;
  };

  private readonly onUpstreamData = (chunk: Buffer): void => {
    if (this.phase === 'command') {
      if (this.upstreamQuery) this.collectUpstream(chunk);
      else this.relayUpstream(chunk);
      return;
    }
    if (this.phase === 'closed') return;
    this.upstreamReader.push(chunk);
    try {
      this.handshakeUpstream();
    } catch (e) {
      this.protocolFailure(e, 'upstream handshake');
    }
  };

  private handshakeUpstream(): void {
    let p: Packet | null;
    while (this.phase !== 'closed' && this.phase !== 'command' && (p = this.upstreamReader.next())) {
      if (this.phase === 'greeting') this.relayGreeting(p);
      else if (this.phase === 'auth') this.relayUpstreamAuth(p);
      else {
        // The FE spoke while waiting for the client (e.g. a handshake timeout ERR): pass it on.
        this.relayToClient(p.raw);
        if (p.payload[0] === ERR_HEADER) this.close('upstream refused', true);
      }
    }
    if (this.phase === 'command') {
      const rest = this.upstreamReader.drain();
      if (rest.length > 0) this.relayUpstream(rest);
    }
  }

  private relayGreeting(p: Packet): void {
    if (p.payload[0] === ERR_HEADER) {
      // e.g. too many connections, host blocked: the client gets the FE's own error
      this.relayToClient(p.raw);
      this.close('upstream refused connection', true);
      return;
    }
    const g = parseHandshakeV10(p.payload);
    this.connectionId = g.connectionId;
    this.statusFlags = g.statusFlags;
    let caps = g.capabilities & ~RELAY_MASKED_CAPABILITIES & ~CLIENT_PROGRESS_OBSOLETE;
    caps = this.deps.secureContext ? caps | CLIENT_SSL : caps & ~CLIENT_SSL;
    this.offered = caps >>> 0;
    this.upstreamOffered = g.capabilities;
    // Keep the FE's connection id and scramble: the client's answer is checked by the FE itself.
    const edited = editGreetingCapabilities(p.payload, this.offered, true);
    this.relayToClient(encodePacket(edited, p.seq));
    this.phase = 'response';
  }

  private readonly onClientData = (chunk: Buffer): void => {
    if (this.phase === 'command') {
      this.commandData(chunk);
      return;
    }
    if (this.phase === 'closed') return;
    this.clientReader.push(chunk);
    try {
      this.handshakeClient();
    } catch (e) {
      this.protocolFailure(e, 'client handshake');
    }
  };

  private handshakeClient(): void {
    let p: Packet | null;
    while ((this.phase === 'response' || this.phase === 'auth') && (p = this.clientReader.next())) {
      if (this.phase === 'response') {
        if (isSslRequest(p.payload)) {
          this.startTls(p);
          return;
        }
        if (this.standalone) this.standaloneResponse(p);
        else this.forwardHandshakeResponse(p);
      } else if (this.standalone) {
        this.standaloneAuthReply(p);
      } else {
        this.relayToUpstream(encodePacket(p.payload, (p.seq - this.seqDelta) & 0xff));
      }
    }
    if (this.phase === 'command') this.pump();
  }

  private startTls(p: Packet): void {
    if (!this.deps.secureContext) {
      this.failConnection({ errno: ER_HANDSHAKE_ERROR, sqlState: '08S01', message: 'TLS is not configured on this proxy' }, (p.seq + 1) & 0xff, 'tls not configured');
      return;
    }
    this.phase = 'tls';
    const leftover = this.clientReader.drain();
    const plain = this.client;
    plain.removeListener('error', this.onClientError);
    plain.removeListener('close', this.onClientClose);
    plain.on('error', this.onClientError);
    upgradeToTls(plain as Socket, this.deps.secureContext, leftover).then(
      (tls) => {
        if (this.phase === 'closed') {
          tls.destroy();
          return;
        }
        this.client = tls;
        this.clientTls = true;
        this.attachClient(tls);
        this.phase = 'response';
        tls.resume();
      },
      (e: Error) => {
        this.log.info({ client: this.clientAddress, err: e.message }, 'TLS handshake with client failed');
        this.close('tls failed');
      },
    );
  }

  /**
   * The client's HandshakeResponse41 in both modes: parsed, refused over plain TCP when TLS is
   * required, and taken as the session's user, capabilities and default catalog/database.
   * Null when the connection was failed instead.
   */
  private acceptResponse(p: Packet): HandshakeResponse41 | null {
    let r: HandshakeResponse41;
    try {
      r = parseHandshakeResponse41(p.payload);
    } catch (e) {
      this.failConnection(
        { errno: ER_HANDSHAKE_ERROR, sqlState: '08S01', message: `Bad handshake: ${e instanceof Error ? e.message : String(e)}` },
        (p.seq + 1) & 0xff,
        'bad handshake',
      );
      return null;
    }
    if (this.deps.tlsRequired && !this.clientTls) {
      this.failConnection(
        { errno: ER_SECURE_TRANSPORT_REQUIRED, sqlState: 'HY000', message: 'Connections using insecure transport are prohibited by this proxy (listen.tls.required)' },
        (p.seq + 1) & 0xff,
        'tls required',
      );
      return null;
    }
    this.user = r.user;
    this.capabilities = (r.capabilities & this.offered) >>> 0;
    this.selectSchema(r.database);
    return r;
  }

  private forwardHandshakeResponse(p: Packet): void {
    const r = this.acceptResponse(p);
    if (!r) return;
    if (r.authPluginName === CLEAR_PASSWORD_PLUGIN && !this.clearPasswordRelayAllowed()) {
      // The response itself carries the password in clear text: it never goes up.
      this.refuseClearPassword((p.seq + 1) & 0xff);
      return;
    }
    const forwardedCaps = (r.capabilities & ~RELAY_MASKED_CAPABILITIES & ~CLIENT_PROGRESS_OBSOLETE & ~CLIENT_SSL) >>> 0;
    const tlsOpts = this.deps.upstream?.tls ?? null;
    if (tlsOpts === null) {
      // A plain upstream leg: no SSL bit, and its HandshakeResponse is seq 1.
      this.seqDelta = (p.seq - 1) & 0xff;
      this.phase = 'auth';
      this.relayToUpstream(encodePacket(editHandshakeResponse(p.payload, forwardedCaps), 1));
      return;
    }
    // A TLS upstream leg: our SSLRequest (seq 1), the TLS handshake, then the response (seq 2).
    if (!(this.upstreamOffered & CLIENT_SSL)) {
      this.failConnection(
        { errno: ER_HANDSHAKE_ERROR, sqlState: '08S01', message: 'paimon-procedure-proxy: upstream.tls is set but the FE does not offer TLS' },
        (p.seq + 1) & 0xff,
        'upstream without tls',
      );
      return;
    }
    const response = editHandshakeResponse(p.payload, (forwardedCaps | CLIENT_SSL) >>> 0);
    this.seqDelta = (p.seq - 2) & 0xff;
    this.phase = 'tls';
    const plain = this.upstream!;
    plain.write(encodePacket(buildSslRequest({ capabilities: forwardedCaps, maxPacketSize: r.maxPacketSize, characterSet: r.characterSet }), 1));
    plain.removeListener('data', this.onUpstreamData);
    plain.removeListener('close', this.onUpstreamClose);
    upgradeUpstream(plain, this.deps.upstream!).then(
      (secure) => {
        if (this.phase === 'closed') {
          secure.destroy();
          return;
        }
        this.upstream = secure;
        secure.on('data', this.onUpstreamData);
        secure.on('error', this.onUpstreamError);
        secure.on('close', this.onUpstreamClose);
        this.phase = 'auth';
        this.relayToUpstream(encodePacket(response, 2));
      },
      (e: Error) => {
        this.log.warn({ client: this.clientAddress }, e.message);
        this.failConnection({ errno: ER_UNKNOWN_ERROR, sqlState: 'HY000', message: `paimon-procedure-proxy: ${e.message}` }, (p.seq + 1) & 0xff, 'upstream tls failed');
      },
    );
  }

  private relayUpstreamAuth(p: Packet): void {
    const first = p.payload[0];
    if (isPerformFullAuthentication(p.payload) && this.authLegsDiffer()) {
      // The client would answer with its password: in clear text (TLS client) for a plain FE.
      this.refuseFullAuthentication((p.seq + this.seqDelta) & 0xff);
      return;
    }
    if (isClearPasswordSwitch(p.payload) && !this.clearPasswordRelayAllowed()) {
      // Not passed on: the client would answer with its password in clear text.
      this.refuseClearPassword((p.seq + this.seqDelta) & 0xff);
      return;
    }
    this.relayToClient(this.seqDelta === 0 ? p.raw : encodePacket(p.payload, (p.seq + this.seqDelta) & 0xff));
    if (first === OK_HEADER) {
      this.statusFlags = p.payload.length >= 7 ? this.okStatus(p.payload) : this.statusFlags;
      this.enterCommandPhase();
    } else if (first === ERR_HEADER) {
      // Wrong password and the like: the client got the FE's own error.
      this.log.info({ client: this.clientAddress, user: this.user }, 'upstream refused authentication');
      this.close('authentication failed', true);
    }
  }

  /** One leg TLS and the other not: a password answer cannot be relayed safely. */
  private authLegsDiffer(): boolean {
    return this.clientTls !== (this.deps.upstream?.tls != null);
  }

  /**
   * caching_sha2_password full authentication with TLS on one leg only. A TLS client answers
   * with the password in clear text (which must not go to a plain FE); a plain client asks for
   * the FE's RSA key, which a TLS FE does not use. Relaying either would need the proxy to
   * handle the password, which it never does: the client gets a clear error instead.
   */
  private refuseFullAuthentication(seq: number): void {
    const client = this.clientTls ? 'TLS' : 'plain';
    const fe = this.deps.upstream?.tls != null ? 'TLS' : 'plain';
    this.refusePasswordRelay(
      seq,
      `paimon-procedure-proxy: the FE asks for caching_sha2_password full authentication, which cannot be relayed from a ${client} client connection ` +
        `to a ${fe} FE connection without the proxy handling the password; use TLS on both connections (upstream.tls) or on neither ` +
        `(the password then goes RSA-encrypted to the FE), or log in once directly so the FE caches the account and later logins take the fast path`,
      'caching_sha2 full authentication across TLS and plain',
    );
  }

  /**
   * mysql_clear_password (Doris with LDAP): the client's answer is its password in clear text.
   * From a TLS client to a plain FE that would undo the client's TLS, so it is relayed only as
   * `upstream.cleartext_password` allows (default: only to an FE on a loopback address).
   */
  private clearPasswordRelayAllowed(): boolean {
    if (!this.clientTls || this.deps.upstream?.tls != null) return true;
    const policy = this.deps.upstream?.cleartextPassword ?? 'loopback';
    if (policy === 'allow') return true;
    if (policy === 'refuse') return false;
    return isLoopbackAddress(this.upstream?.remoteAddress);
  }

  private refuseClearPassword(seq: number): void {
    const fe = this.deps.upstream ? `${this.deps.upstream.host}:${this.deps.upstream.port}` : 'the FE';
    this.refusePasswordRelay(
      seq,
      `paimon-procedure-proxy: the FE asks for the password in clear text (mysql_clear_password), which would go from this TLS client connection ` +
        `over a plain connection to the FE at ${fe}; use TLS to the FE (upstream.tls), or set upstream.cleartext_password: allow if the network to the FE is trusted`,
      'mysql_clear_password from a TLS client to a plain FE',
    );
  }

  /** Ends the login without passing the client's password answer on: ERR 1251 to the client. */
  private refusePasswordRelay(seq: number, message: string, reason: string): void {
    this.log.info({ client: this.clientAddress, user: this.user, clientTls: this.clientTls }, `${reason}: refused`);
    this.failConnection({ errno: ER_NOT_SUPPORTED_AUTH_MODE, sqlState: '08004', message }, seq, reason);
  }

  private okStatus(payload: Buffer): number {
    let p = 1;
    for (let k = 0; k < 2; k++) {
      const b = payload[p];
      p += b < 0xfb ? 1 : b === 0xfc ? 3 : b === 0xfd ? 4 : 9;
    }
    return p + 2 <= payload.length ? payload.readUInt16LE(p) : this.statusFlags;
  }

  private enterCommandPhase(): void {
    this.phase = 'command';
    if (this.handshakeTimer) clearTimeout(this.handshakeTimer);
    this.tracker = new ResponseTracker(this.capabilities);
    this.tracker.lastStatusFlags = this.statusFlags;
    this.deps.registry.add(this);
    this.log.debug(
      { connectionId: this.connectionId, user: this.user, client: this.clientAddress, tls: this.clientTls, standalone: this.standalone },
      'client authenticated',
    );
  }

  // ---- connection phase: standalone --------------------------------------------------------

  private greetStandalone(): void {
    this.connectionId = this.deps.nextConnectionId();
    this.scramble = generateScramble();
    let caps = STANDALONE_CAPABILITIES;
    if (this.deps.secureContext) caps |= CLIENT_SSL;
    this.offered = caps >>> 0;
    const greeting = buildHandshakeV10({
      protocolVersion: 10,
      serverVersion: this.deps.serverVersion,
      connectionId: this.connectionId,
      authPluginData: this.scramble,
      capabilities: this.offered,
      characterSet: 33,
      statusFlags: this.statusFlags,
      authPluginName: MYSQL_NATIVE_PASSWORD,
      mariadbCapabilities: 0,
    });
    this.phase = 'response';
    this.client.write(encodePacket(greeting, 0));
  }

  private standaloneResponse(p: Packet): void {
    const r = this.acceptResponse(p);
    if (!r) return;
    this.authenticator = new LocalAuthenticator(this.deps.users!, this.scramble);
    this.authSeq = (p.seq + 1) & 0xff;
    this.phase = 'auth';
    this.applyAuthStep(this.authenticator.start(r));
  }

  private standaloneAuthReply(p: Packet): void {
    this.authSeq = (p.seq + 1) & 0xff;
    this.applyAuthStep(this.authenticator!.next(p.payload));
  }

  private applyAuthStep(step: AuthStep): void {
    if (step.kind === 'denied') {
      this.log.info({ client: this.clientAddress, user: step.user }, 'standalone authentication failed');
      this.failConnection(
        {
          errno: ER_ACCESS_DENIED_ERROR,
          sqlState: '28000',
          message: `Access denied for user '${step.user}'@'${this.client.remoteAddress ?? ''}' (using password: ${step.usingPassword ? 'YES' : 'NO'})`,
        },
        this.authSeq,
        'access denied',
      );
      return;
    }
    const parts: Buffer[] = [];
    for (const payload of step.send) {
      parts.push(encodePacket(payload, this.authSeq));
      this.authSeq = (this.authSeq + 1) & 0xff;
    }
    if (step.kind === 'ok') {
      parts.push(encodePacket(buildOk(this.capabilities, { statusFlags: this.statusFlags }), this.authSeq));
      this.client.write(parts.length === 1 ? parts[0] : Buffer.concat(parts));
      this.authenticator = null;
      this.enterCommandPhase();
      return;
    }
    this.client.write(Buffer.concat(parts));
  }

  // ---- command phase ------------------------------------------------------------------------

  private commandData(chunk: Buffer): void {
    if (!this.standalone) {
      const state = this.tracker.state;
      if (state === TrackerState.Infile) {
        this.forwardInfile(chunk);
        return;
      }
      if (state === TrackerState.Auth) {
        if (this.tracker.fullAuthRequested && this.authLegsDiffer()) {
          // This reply is the password (or an RSA key request): it never goes up.
          this.refuseFullAuthentication(chunk.length >= 4 ? (chunk[3] + 1) & 0xff : 0);
          return;
        }
        if (this.tracker.clearPasswordRequested && !this.clearPasswordRelayAllowed()) {
          this.refuseClearPassword(chunk.length >= 4 ? (chunk[3] + 1) & 0xff : 0);
          return;
        }
        // COM_CHANGE_USER's exchange: the client's auth replies go up as they are.
        this.relayToUpstream(chunk);
        return;
      }
    }
    this.clientReader.push(chunk);
    this.pump();
  }

  private forwardInfile(chunk: Buffer): void {
    if (!this.infileActive) {
      this.infileScanner.reset();
      this.infileActive = true;
    }
    const end = this.infileScanner.feed(chunk);
    if (end < 0) {
      this.relayToUpstream(chunk);
      return;
    }
    this.infileActive = false;
    this.relayToUpstream(end === chunk.length ? chunk : chunk.subarray(0, end));
    this.tracker.infileDone();
    if (end < chunk.length) {
      this.clientReader.push(chunk.subarray(end));
      this.pump();
    }
  }

  /** Handles queued client commands while no command is in flight. */
  private pump(): void {
    try {
      while (this.phase === 'command' && !this.busy) {
        const p = this.clientReader.next();
        if (!p) break;
        if (p.payload.length === 0) {
          this.close('empty command packet');
          return;
        }
        this.deps.stats.questions++;
        if (this.standalone) this.standaloneCommand(p);
        else this.relayCommand(p);
      }
    } catch (e) {
      this.protocolFailure(e, 'command');
      return;
    }
    if (this.phase !== 'command') return;
    if (this.busy && this.clientReader.pendingBytes > CLIENT_QUEUE_HIGH_WATER) {
      if (!this.clientPausedByQueue) {
        this.clientPausedByQueue = true;
        this.client.pause();
      }
    } else if (this.clientPausedByQueue) {
      this.clientPausedByQueue = false;
      if (!this.clientPausedByUpstream) this.client.resume();
    }
  }

  private relayCommand(p: Packet): void {
    const cmd = p.payload[0];
    if (cmd >= COM_STMT_PREPARE && cmd <= COM_STMT_FETCH && this.preparedCommand(p)) return;
    switch (cmd) {
      case COM_QUERY:
      case COM_INIT_DB: {
        const text = p.payload.toString('utf8', 1);
        const route = cmd === COM_QUERY ? this.route(text) : this.routeInitDb(text);
        if (route.kind === 'local') {
          this.runLocal(route.run);
          return;
        }
        const afterOk = route.afterOk;
        this.onUpstreamOk = afterOk ? () => afterOk(this) : null;
        break;
      }
      case COM_CHANGE_USER: {
        const c = parseChangeUser(p.payload, this.capabilities);
        this.onUpstreamOk = () => {
          this.user = c.user;
          this.selectSchema(c.database);
          this.resetSessionState();
        };
        break;
      }
      case COM_RESET_CONNECTION:
        this.onUpstreamOk = () => this.resetSessionState();
        break;
      case COM_QUIT:
        this.deps.stats.forwarded++;
        this.relayToUpstream(p.raw);
        this.close('client quit', true);
        return;
      default:
        break;
    }
    const expectsResponse = this.tracker.begin(cmd);
    this.deps.stats.forwarded++;
    this.relayToUpstream(p.raw);
    if (!expectsResponse) this.onUpstreamOk = null;
  }

  private route(sql: string): Route {
    try {
      return this.deps.router.route(sql, this);
    } catch (e) {
      const message = maskText(e instanceof Error ? e.message : String(e));
      this.log.error({ connectionId: this.connectionId, err: message }, 'router failed');
      return localError(`paimon-procedure-proxy: ${message}`);
    }
  }

  /**
   * COM_INIT_DB as the router's initDb hook decides; a router without one lets it through and
   * the session takes the database once it is accepted (the FE's OK, or at once in standalone mode).
   */
  private routeInitDb(name: string): Route {
    const router = this.deps.router as InitDbRouter;
    if (!router.initDb) return { kind: 'forward', afterOk: () => this.useDatabase(name) };
    try {
      return router.initDb(name, this);
    } catch (e) {
      return localError(maskText(e instanceof Error ? e.message : String(e)));
    }
  }

  /** The session's catalog and database from a connect-time or COM_CHANGE_USER schema (`catalog.db`, `db` or none). */
  private selectSchema(name: string | null): void {
    const { catalog, database } = splitCatalogDb(name);
    this.currentCatalog = catalog;
    this.currentDatabase = database;
  }

  /** COM_INIT_DB accepted: `catalog.db` switches both, a bare `db` keeps the current catalog. */
  private useDatabase(name: string): void {
    const { catalog, database } = splitCatalogDb(name);
    if (catalog !== null) this.currentCatalog = catalog;
    this.currentDatabase = database;
  }

  /** COM_RESET_CONNECTION / COM_CHANGE_USER accepted: the router's per-session state and our prepared statements go. */
  private resetSessionState(): void {
    (this.deps.router as InitDbRouter).resetSession?.(this);
    this.statements.clear();
  }

  /** Relays one upstream chunk to the client as it is and tracks where the response ends. */
  private relayUpstream(chunk: Buffer): void {
    const end = this.tracker.feed(chunk);
    this.deps.stats.bytesDownstream += chunk.length;
    if (!this.client.write(chunk) && !this.upstreamPausedByClient) {
      this.upstreamPausedByClient = true;
      this.upstream!.pause();
      this.client.once('drain', this.onClientDrain);
    }
    if (end >= 0) this.responseDone();
  }

  private readonly onClientDrain = (): void => {
    this.upstreamPausedByClient = false;
    if (this.phase !== 'closed') this.upstream?.resume();
  };

  /** Writes FE bytes of the connection phase to the client, counted as relayed. */
  private relayToClient(buf: Buffer): void {
    this.deps.stats.bytesDownstream += buf.length;
    this.client.write(buf);
  }

  /** Writes client bytes to the FE, counted as relayed (writeUpstream: the proxy's own bytes). */
  private relayToUpstream(buf: Buffer): void {
    this.deps.stats.bytesUpstream += buf.length;
    this.writeUpstream(buf);
  }

  private writeUpstream(buf: Buffer): void {
    const up = this.upstream;
    if (!up) return;
    if (!up.write(buf) && !this.clientPausedByUpstream) {
      this.clientPausedByUpstream = true;
      this.client.pause();
      up.once('drain', this.onUpstreamDrain);
    }
  }

  private readonly onUpstreamDrain = (): void => {
    this.clientPausedByUpstream = false;
    if (this.phase !== 'closed' && !this.clientPausedByQueue) this.client.resume();
  };

  private responseDone(): void {
    this.statusFlags = this.tracker.lastStatusFlags;
    const after = this.onUpstreamOk;
    this.onUpstreamOk = null;
    if (after && this.tracker.outcome === 'ok') {
      try {
        after();
      } catch (e) {
        this.log.error({ connectionId: this.connectionId, err: maskText(e instanceof Error ? e.message : String(e)) }, 'afterOk failed');
      }
    }
    this.pump();
  }

  private runLocal(run: (signal: AbortSignal) => Promise<LocalReply[]>, binary = false): void {
    const ac = new AbortController();
    this.localRunning = ac;
    let promise: Promise<LocalReply[]>;
    try {
      promise = run(ac.signal);
    } catch (e) {
      promise = Promise.reject(e);
    }
    promise
      .catch((e: unknown): LocalReply[] => {
        const message = maskText(e instanceof Error ? e.message : String(e));
        this.log.error({ connectionId: this.connectionId, err: message }, 'local statement failed');
        return [unknownError(message)];
      })
      .then((replies) => {
        if (this.localRunning === ac) this.localRunning = null;
        if (this.phase !== 'command') return;
        this.writeLocal(replies, binary);
        this.pump();
      })
      .catch((e: unknown) => this.protocolFailure(e, 'local reply'));
  }

  /**
   * Runs one statement on this session's upstream connection, as the authenticated user, and
   * returns its text result set (an ERR rejects with an UpstreamQueryError). Only while this
   * session runs a local statement: the upstream connection is idle then and the client waits
   * for our reply, so the response is collected here and never reaches the client; the
   * client's sequence ids and the status flags it sees are untouched.
   */
  queryUpstream(sql: string): Promise<UpstreamQueryResult> {
    if (this.standalone || !this.upstream) return Promise.reject(new Error('no upstream connection (standalone mode)'));
    if (this.phase !== 'command') return Promise.reject(new Error('the connection is not in the command phase'));
    if (this.localRunning === null) return Promise.reject(new Error('queryUpstream is only possible while the session runs a local statement'));
    if (this.tracker.busy || this.upstreamQuery !== null || this.infileActive) return Promise.reject(new Error('the upstream connection is busy'));
    // The capabilities negotiated on the upstream leg: the client's, within what the FE offered.
    const upstreamCaps = (this.capabilities & this.upstreamOffered) >>> 0;
    return new Promise<UpstreamQueryResult>((resolve, reject) => {
      this.upstreamQuery = new UpstreamQueryCollector(upstreamCaps, resolve, reject);
      this.writeUpstream(encodePacket(Buffer.concat([Buffer.of(COM_QUERY), Buffer.from(sql, 'utf8')]), 0));
    });
  }

  private collectUpstream(chunk: Buffer): void {
    const q = this.upstreamQuery!;
    let rest: Buffer | null;
    try {
      rest = q.feed(chunk, (packet) => this.writeUpstream(packet));
    } catch (e) {
      this.upstreamQuery = null;
      q.reject(e instanceof Error ? e : new Error(String(e)));
      this.protocolFailure(e, 'upstream query');
      return;
    }
    if (rest === null) return;
    this.upstreamQuery = null;
    // Nothing should follow the response (no command is in flight); relay whatever does.
    if (rest.length > 0) this.relayUpstream(rest);
    this.pump();
  }

  private writeLocal(replies: readonly LocalReply[], binary = false): void {
    this.client.write(encodeLocalReplies(replies, { capabilities: this.capabilities, statusFlags: this.statusFlags, binary }));
  }

  /**
   * COM_STMT_* for statements the proxy answers itself. Returns false when the command is not
   * about one of them (then it is forwarded, or answered as usual in standalone mode).
   */
  private preparedCommand(p: Packet): boolean {
    const cmd = p.payload[0];
    if (cmd === COM_STMT_PREPARE) {
      const sql = p.payload.toString('utf8', 1);
      if (classifyStatement(sql) !== 'call') return false;
      const placeholders = findPlaceholders(sql);
      if (placeholders === null) return false;
      // Route with NULLs in the placeholders: only the decision (ours or the FE's) is used now.
      const probe = bindPlaceholders({ id: 0, sql, placeholders, types: null, longData: new Map() }, placeholders.map(() => null), true);
      if (this.route(probe).kind !== 'local') return false;
      const stmt = this.statements.create(sql, placeholders);
      this.replyPayloads(prepareOkPayloads(stmt.id, placeholders.length, [], this.capabilities, this.statusFlags));
      return true;
    }
    if (cmd === COM_SET_OPTION) return false;
    const stmt = this.statements.get(statementIdOf(p.payload));
    if (!stmt) return false;
    switch (cmd) {
      case COM_STMT_EXECUTE: {
        let sql: string;
        try {
          const req = parseExecute(p.payload, stmt.placeholders.length, stmt.types, stmt.longData);
          stmt.types = req.types;
          stmt.longData = new Map();
          sql = bindPlaceholders(stmt, req.values, !(this.statusFlags & SERVER_STATUS_NO_BACKSLASH_ESCAPES));
        } catch (e) {
          stmt.longData = new Map();
          this.replyPayloads([this.err(ER_WRONG_ARGUMENTS, 'HY000', `Incorrect arguments to mysqld_stmt_execute: ${e instanceof Error ? e.message : String(e)}`)]);
          return true;
        }
        const route = this.route(sql);
        if (route.kind === 'local') this.runLocal(route.run, true);
        else this.replyPayloads([this.err(ER_UNKNOWN_ERROR, 'HY000', 'this prepared statement is no longer one the proxy runs; prepare it again')]);
        return true;
      }
      case COM_STMT_SEND_LONG_DATA: {
        if (p.payload.length >= 7) {
          const index = p.payload.readUInt16LE(5);
          const data = p.payload.subarray(7);
          const prev = stmt.longData.get(index);
          stmt.longData.set(index, prev ? Buffer.concat([prev, data]) : Buffer.from(data));
        }
        return true; // no response, by protocol
      }
      case COM_STMT_CLOSE:
        this.statements.delete(stmt.id);
        return true; // no response, by protocol
      case COM_STMT_RESET:
        stmt.longData = new Map();
        this.replyPayloads([this.ok()]);
        return true;
      case COM_STMT_FETCH:
        this.replyPayloads([this.err(ER_STMT_HAS_NO_OPEN_CURSOR, 'HY000', `The statement (${stmt.id}) has no open cursor.`)]);
        return true;
      default:
        return false;
    }
  }

  /** Aborts the local statement this session is running (KILL QUERY from another session). */
  abortLocal(reason = 'Query execution was interrupted'): boolean {
    if (!this.localRunning) return false;
    this.localRunning.abort(new Error(reason));
    return true;
  }

  // ---- standalone commands -----------------------------------------------------------------

  private replyPayloads(payloads: Buffer[]): void {
    let seq = 1;
    const parts = payloads.map((pl) => {
      const b = encodePacket(pl, seq);
      seq = (seq + 1) & 0xff;
      return b;
    });
    this.client.write(parts.length === 1 ? parts[0] : Buffer.concat(parts));
  }

  private ok(): Buffer {
    return buildOk(this.capabilities, { statusFlags: this.statusFlags });
  }

  private err(errno: number, sqlState: string, message: string): Buffer {
    return buildErr({ errno, sqlState, message });
  }

  private standaloneCommand(p: Packet): void {
    const cmd = p.payload[0];
    if (cmd >= COM_STMT_PREPARE && cmd <= COM_STMT_FETCH && this.preparedCommand(p)) return;
    switch (cmd) {
      case COM_QUERY: {
        const route = this.route(p.payload.toString('utf8', 1));
        if (route.kind === 'local') {
          this.runLocal(route.run);
        } else {
          this.replyPayloads([
            this.err(
              1235,
              '42000',
              'No Doris FE is configured (standalone mode): this proxy runs CALL <catalog>.sys.<procedure>(...) and answers session statements (SELECT @@..., SHOW DATABASES, USE, SET) only',
            ),
          ]);
        }
        return;
      }
      case COM_PING:
        this.replyPayloads([this.ok()]);
        return;
      case COM_RESET_CONNECTION:
        this.resetSessionState();
        this.replyPayloads([this.ok()]);
        return;
      case COM_INIT_DB: {
        const name = p.payload.toString('utf8', 1);
        const route = this.routeInitDb(name);
        if (route.kind === 'local') {
          this.runLocal(route.run);
          return;
        }
        this.useDatabase(name);
        this.replyPayloads([this.ok()]);
        return;
      }
      case COM_QUIT:
        this.close('client quit', true);
        return;
      case COM_FIELD_LIST:
        // No tables to describe: an empty column list.
        this.replyPayloads([
          this.capabilities & CLIENT_DEPRECATE_EOF
            ? buildOk(this.capabilities, { asEof: true, statusFlags: this.statusFlags })
            : buildEof({ warnings: 0, statusFlags: this.statusFlags }),
        ]);
        return;
      case COM_STATISTICS: {
        const up = Math.floor((Date.now() - this.deps.stats.startedAt) / 1000);
        this.replyPayloads([Buffer.from(`Uptime: ${up}  Threads: ${this.deps.registry.size}  Questions: ${this.deps.stats.questions}  Mode: standalone`)]);
        return;
      }
      case COM_SET_OPTION:
        this.replyPayloads([
          this.capabilities & CLIENT_DEPRECATE_EOF ? this.ok() : buildEof({ warnings: 0, statusFlags: this.statusFlags }),
        ]);
        return;
      case COM_STMT_CLOSE:
      case COM_STMT_SEND_LONG_DATA:
        return; // no response, by protocol
      case COM_STMT_PREPARE:
        this.replyPayloads([this.err(ER_UNSUPPORTED_PS, 'HY000', 'standalone mode does not support prepared statements; send CALL as a plain query')]);
        return;
      case COM_STMT_EXECUTE:
      case COM_STMT_RESET:
      case COM_STMT_FETCH:
        this.replyPayloads([this.err(ER_UNKNOWN_STMT_HANDLER, 'HY000', 'Unknown prepared statement handler given (standalone mode has no prepared statements)')]);
        return;
      case COM_CHANGE_USER:
        this.replyPayloads([this.err(ER_NOT_SUPPORTED_AUTH_MODE, '08004', 'COM_CHANGE_USER is not supported in standalone mode; reconnect as the other user')]);
        return;
      default:
        this.replyPayloads([this.err(ER_UNKNOWN_COM_ERROR, '08S01', `Unknown or unsupported command 0x${cmd.toString(16).padStart(2, '0')} in standalone mode`)]);
        return;
    }
  }

  private protocolFailure(e: unknown, where: string): void {
    const message = maskText(e instanceof Error ? e.message : String(e));
    this.log.warn({ client: this.clientAddress, connectionId: this.connectionId, where, err: message }, 'protocol error, closing connection');
    this.failConnection({ errno: ER_HANDSHAKE_ERROR, sqlState: '08S01', message: `paimon-procedure-proxy: protocol error (${where}): ${message}` }, 1, 'protocol error');
  }
}

/** True for 127.0.0.0/8 and ::1 (also IPv4-mapped): traffic that never leaves this host. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}
