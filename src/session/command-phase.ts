/**
 * The command phase of one client connection (MySQL's "Command Phase"): one command at a
 * time, as the router decides it (src/router/route.ts).
 *
 * With an upstream, every client command is forwarded unchanged unless the router takes a
 * COM_QUERY; the FE's response is relayed chunk by chunk as raw bytes while a
 * ResponseTracker walks packet headers to see where it ends (LOCAL INFILE uploads and
 * COM_CHANGE_USER's auth exchange included). Alone, the proxy answers every command itself.
 * Statements the proxy runs (intercepted CALLs, standalone statements) are answered with
 * local replies (local-reply.ts), also as prepared statements the proxy answers itself
 * (COM_STMT_* of an intercepted CALL). While one runs, the proxy may use the idle FE
 * connection for its own queries (upstream-queries.ts), and a client that asked for them gets
 * MariaDB progress reports ahead of the reply (progress-reports.ts).
 *
 * A client that pipelines waits in the packet reader (and is paused when too much piles up),
 * so local replies and relayed responses never interleave.
 */
import {
  CLIENT_DEPRECATE_EOF,
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
  ER_NOT_SUPPORTED_AUTH_MODE,
  ER_NOT_SUPPORTED_YET,
  ER_PS_MANY_PARAM,
  ER_STMT_HAS_NO_OPEN_CURSOR,
  ER_UNKNOWN_COM_ERROR,
  ER_UNKNOWN_ERROR,
  ER_UNKNOWN_STMT_HANDLER,
  ER_UNSUPPORTED_PS,
  ER_WRONG_ARGUMENTS,
  MAX_PACKET_PAYLOAD,
  SERVER_STATUS_NO_BACKSLASH_ESCAPES,
} from '../../protocol/constants.js';
import { buildEof, buildErr, buildOk } from '../../protocol/generic-response.js';
import { parseChangeUser } from '../../protocol/handshake.js';
import { encodePacket, PacketTooLargeError, type Packet } from '../../protocol/packet.js';
import { MAX_PREPARED_PARAMS, parseExecute, prepareOkPayloads, statementIdOf } from '../../protocol/prepared-statement.js';
import { InfileScanner, ResponseTracker, TrackerState } from '../../protocol/response-tracker.js';
import { bindPlaceholders, findPlaceholders, ProxyStatements } from '../router/prepared-call.js';
import type { LocalReply, Route, SessionView, StatementRouter } from '../router/route.js';
import { classifyStatement, classifyStatementBytes } from '../router/statement-prefilter.js';
import { maskText } from '../security/masking.js';
import { encodeLocalReplies } from './local-reply.js';
import { currentProgress, ProgressReporter, type RunningCallsSource } from './progress-reports.js';
import type { Session } from './session.js';
import { comQueryPacket, UpstreamQueryCollector, type UpstreamQueryResult } from './upstream-queries.js';

/** Pause a pipelining client once this much unprocessed input is waiting. */
const CLIENT_QUEUE_HIGH_WATER = 1 << 20;
/**
 * Commands answered synchronously (without a turn of the event loop) per pump before yielding
 * with setImmediate, so that a client pipelining thousands of them cannot hold the loop.
 */
const SYNC_COMMANDS_PER_TURN = 16;

/** A router may also decide COM_INIT_DB (src/router/router.ts does: `catalog.db`, standalone USE). */
interface InitDbRouter extends StatementRouter {
  initDb?(schema: string, session: SessionView): Route;
  /** Forget per-session router state after COM_RESET_CONNECTION / COM_CHANGE_USER. */
  resetSession?(session: SessionView): void;
}

type LocalRun = (signal: AbortSignal) => Promise<LocalReply[]>;

export class CommandPhase {
  private readonly tracker: ResponseTracker;
  private readonly infileScanner = new InfileScanner();
  private infileActive = false;
  /** Set by a forwarded command whose success must update session state. */
  private onUpstreamOk: (() => void) | null = null;
  /** The statement the proxy runs now; its signal is aborted when the connection closes. */
  private localRunning: AbortController | null = null;
  /** Prepared statements the proxy answers itself (intercepted CALLs). */
  private readonly statements = new ProxyStatements();
  /** A statement the proxy itself runs on the upstream connection (queryUpstream). */
  private upstreamQuery: UpstreamQueryCollector | null = null;

  constructor(private readonly s: Session) {
    this.tracker = new ResponseTracker(s.capabilities);
    this.tracker.lastStatusFlags = s.statusFlags;
  }

  /** True while a command is in flight (relayed response or local statement). */
  private get busy(): boolean {
    return this.tracker.busy || this.localRunning !== null || this.upstreamQuery !== null;
  }

  /** Nothing in flight and no LOCAL INFILE transfer: the session may hand its sockets to the native relay. */
  get idle(): boolean {
    return !this.busy && !this.infileActive;
  }

  /** The status flags of the last response the native relay relayed. */
  statusFromNativeRelay(flags: number): void {
    this.tracker.lastStatusFlags = flags;
  }

  /** The native relay stopped at a LOCAL INFILE request it relayed: the client's file is relayed here. */
  infileFromNativeRelay(): void {
    this.onUpstreamOk = null;
    this.tracker.beginInfile();
  }

  /** The FE's bytes are the response to a query of the proxy's own, not the client's. */
  get collectingUpstream(): boolean {
    return this.upstreamQuery !== null;
  }

  /** The connection is closing: the running statement, the relayed response and our own query end. */
  close(reason: string): void {
    this.localRunning?.abort(new Error(reason));
    this.tracker.abort();
    if (this.upstreamQuery) {
      const q = this.upstreamQuery;
      this.upstreamQuery = null;
      q.reject(new Error(`connection closed while querying the upstream (${reason})`));
    }
  }

  /** Aborts the local statement this session is running (KILL QUERY from another session). */
  abortLocal(reason: string): boolean {
    if (!this.localRunning) return false;
    this.localRunning.abort(new Error(reason));
    return true;
  }

  // ---- client bytes -------------------------------------------------------------------------

  clientData(chunk: Buffer): void {
    const s = this.s;
    if (!s.standalone) {
      const state = this.tracker.state;
      if (state === TrackerState.Idle && this.forwardPlainQuery(chunk)) return;
      if (state === TrackerState.Infile) {
        this.forwardInfile(chunk);
        return;
      }
      if (state === TrackerState.Auth) {
        if (this.tracker.fullAuthRequested && s.authLegsDiffer()) {
          // This reply is the password (or an RSA key request): it never goes up.
          s.refuseFullAuthentication(chunk.length >= 4 ? (chunk[3]! + 1) & 0xff : 0);
          return;
        }
        if (this.tracker.clearPasswordRequested && !s.clearPasswordRelayAllowed()) {
          s.refuseClearPassword(chunk.length >= 4 ? (chunk[3]! + 1) & 0xff : 0);
          return;
        }
        // COM_CHANGE_USER's exchange: the client's auth replies go up as they are.
        s.relayToUpstream(chunk);
        return;
      }
    }
    s.clientReader.push(chunk);
    this.pump();
  }

  /**
   * The relay's common case without the packet reader: nothing is queued or in flight and the
   * chunk is exactly one COM_QUERY packet the router leaves to the FE. It goes up as it came,
   * with the same counting as relayCommand. Returns false for anything else (pump handles it).
   */
  private forwardPlainQuery(chunk: Buffer): boolean {
    const s = this.s;
    const n = chunk.length;
    if (n < 5 || chunk[4] !== COM_QUERY || this.localRunning !== null || this.upstreamQuery !== null) return false;
    const len = chunk[0]! | (chunk[1]! << 8) | (chunk[2]! << 16);
    if (len + 4 !== n || len >= MAX_PACKET_PAYLOAD || len > s.clientReader.maxPayload || s.clientReader.pendingBytes !== 0) return false;
    if (classifyStatementBytes(chunk, 5) !== 'other' || s.deps.router.forwardsOther?.(s) !== true) return false;
    if (s.clientBacklogged(this.resume)) return false;
    s.deps.stats.questions++;
    this.onUpstreamOk = null;
    this.tracker.begin(COM_QUERY);
    s.deps.stats.forwarded++;
    s.commandToUpstream(chunk);
    return true;
  }

  private forwardInfile(chunk: Buffer): void {
    if (!this.infileActive) {
      this.infileScanner.reset();
      this.infileActive = true;
    }
    const end = this.infileScanner.feed(chunk);
    if (end < 0) {
      this.s.relayToUpstream(chunk);
      return;
    }
    this.infileActive = false;
    this.s.relayToUpstream(end === chunk.length ? chunk : chunk.subarray(0, end));
    this.tracker.infileDone();
    if (end < chunk.length) {
      this.s.clientReader.push(chunk.subarray(end));
      this.pump();
    }
  }

  /**
   * Handles queued client commands while no command is in flight and the client reads what it
   * was sent: replies the proxy writes itself are not throttled by the FE, so a client that
   * pipelines local commands without reading is held (its socket paused) until it drains.
   */
  pump(): void {
    const s = this.s;
    let backlogged = false;
    let handled = 0;
    try {
      while (s.phase === 'command' && !this.busy && !(backlogged = s.clientBacklogged(this.resume))) {
        if (handled++ === SYNC_COMMANDS_PER_TURN) {
          this.pumpLater();
          break;
        }
        const p = s.clientReader.next();
        if (!p) break;
        if (p.payload.length === 0) {
          s.close('empty command packet');
          return;
        }
        s.deps.stats.questions++;
        if (s.standalone) this.standaloneCommand(p);
        else this.relayCommand(p);
      }
    } catch (e) {
      if (e instanceof PacketTooLargeError) s.clientPacketTooLarge(e);
      else s.protocolFailure(e, 'command');
      return;
    }
    if (s.phase !== 'command') return;
    s.holdClientForQueue(backlogged || (this.busy && s.clientReader.pendingBytes > CLIENT_QUEUE_HIGH_WATER));
    if (!backlogged && this.idle && s.clientReader.pendingBytes === 0) s.offerToNativeRelay();
  }

  private readonly resume = (): void => this.pump();
  private pumpScheduled = false;

  /** Continue with the queued commands in a later turn of the event loop, after other connections' I/O. */
  private pumpLater(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  // ---- relayed commands ----------------------------------------------------------------------

  private relayCommand(p: Packet): void {
    const s = this.s;
    const cmd = p.payload[0]!;
    if (cmd >= COM_STMT_PREPARE && cmd <= COM_STMT_FETCH && this.preparedCommand(p)) return;
    switch (cmd) {
      case COM_QUERY:
      case COM_INIT_DB: {
        // The hot path of a relay: a statement the proxy does not act on is forwarded as the
        // bytes it came in, without decoding it to a string.
        if (cmd === COM_QUERY && classifyStatementBytes(p.payload, 1) === 'other' && s.deps.router.forwardsOther?.(s) === true) {
          this.onUpstreamOk = null;
          break;
        }
        const text = p.payload.toString('utf8', 1);
        const route = cmd === COM_QUERY ? this.route(text) : this.routeInitDb(text);
        if (route.kind === 'local') {
          this.runLocal(route.run);
          return;
        }
        const afterOk = route.afterOk;
        this.onUpstreamOk = afterOk ? () => afterOk(s) : null;
        break;
      }
      case COM_CHANGE_USER: {
        const c = parseChangeUser(p.payload, s.capabilities);
        this.onUpstreamOk = () => {
          s.user = c.user;
          s.selectSchema(c.database);
          this.resetSessionState();
        };
        break;
      }
      case COM_RESET_CONNECTION:
        this.onUpstreamOk = () => this.resetSessionState();
        break;
      case COM_QUIT:
        s.deps.stats.forwarded++;
        s.commandToUpstream(p.raw);
        s.close('client quit', true);
        return;
      default:
        break;
    }
    const expectsResponse = this.tracker.begin(cmd);
    s.deps.stats.forwarded++;
    s.commandToUpstream(p.raw);
    if (!expectsResponse) this.onUpstreamOk = null;
  }

  /** FE bytes in the command phase: our own query's response, or the client's to relay. */
  upstreamData(chunk: Buffer): void {
    if (this.upstreamQuery) this.collectUpstream(chunk);
    else this.relayUpstream(chunk);
  }

  /** Relays one upstream chunk to the client as it is and tracks where the response ends. */
  private relayUpstream(chunk: Buffer): void {
    const end = this.tracker.feed(chunk);
    this.s.relayDownstream(chunk);
    if (end >= 0) this.responseDone();
  }

  private responseDone(): void {
    const s = this.s;
    s.statusFlags = this.tracker.lastStatusFlags;
    const after = this.onUpstreamOk;
    this.onUpstreamOk = null;
    if (after && this.tracker.outcome === 'ok') {
      try {
        after();
      } catch (e) {
        s.log.error({ connectionId: s.connectionId, err: maskText(e instanceof Error ? e.message : String(e)) }, 'afterOk failed');
      }
    }
    this.pump();
  }

  // ---- routing -------------------------------------------------------------------------------

  /** The router's decision; a router that throws gets its failure answered like a failed statement. */
  private route(sql: string): Route {
    try {
      return this.s.deps.router.route(sql, this.s);
    } catch (e) {
      return failed(e);
    }
  }

  /**
   * COM_INIT_DB as the router's initDb hook decides; a router without one lets it through and
   * the session takes the database once it is accepted (the FE's OK, or at once in standalone mode).
   */
  private routeInitDb(name: string): Route {
    const router = this.s.deps.router as InitDbRouter;
    if (!router.initDb) return { kind: 'forward', afterOk: () => this.s.useDatabase(name) };
    try {
      return router.initDb(name, this.s);
    } catch (e) {
      return failed(e);
    }
  }

  /** COM_RESET_CONNECTION / COM_CHANGE_USER accepted: the router's per-session state and our prepared statements go. */
  private resetSessionState(): void {
    (this.s.deps.router as InitDbRouter).resetSession?.(this.s);
    this.statements.clear();
  }

  // ---- local statements ----------------------------------------------------------------------

  /**
   * Runs a statement the proxy answers, with the session's abort signal (the connection
   * closing). The one place where an unexpected failure of a local statement, or of the
   * router deciding it, becomes an ERR (ER_UNKNOWN_ERROR); the connection stays usable.
   */
  private runLocal(run: LocalRun, binary = false): void {
    const s = this.s;
    const ac = new AbortController();
    this.localRunning = ac;
    // MariaDB progress reports while it runs, to a client that asked for them.
    const progress = s.progressReports
      ? new ProgressReporter(
          () => currentProgress(s.deps.router as RunningCallsSource, s.connectionId),
          (payload, seq) => {
            if (this.localRunning === ac && s.phase === 'command') s.writeClient(encodePacket(payload, seq));
          },
        ).start()
      : null;
    let promise: Promise<LocalReply[]>;
    try {
      promise = run(ac.signal);
    } catch (e) {
      promise = Promise.reject(e);
    }
    promise
      .catch((e: unknown): LocalReply[] => {
        const message = maskText(e instanceof Error ? e.message : String(e));
        s.log.error({ connectionId: s.connectionId, err: message }, 'local statement failed');
        return [{ kind: 'error', errno: ER_UNKNOWN_ERROR, sqlState: 'HY000', message }];
      })
      .then((replies) => {
        const firstSeq = progress?.stop() ?? 1;
        if (this.localRunning === ac) this.localRunning = null;
        if (s.phase !== 'command') return;
        s.writeClient(encodeLocalReplies(replies, { capabilities: s.capabilities, statusFlags: s.statusFlags, binary }, firstSeq));
        // A reply that was ready at once (SHOW PROCEDURES) resolves in a microtask: going on with
        // the next queued command here would answer a whole pipeline before any other
        // connection is read. The next command waits for a turn of the event loop instead.
        this.pumpLater();
      })
      .catch((e: unknown) => s.protocolFailure(e, 'local reply'));
  }

  // ---- the proxy's own upstream queries ------------------------------------------------------

  /**
   * Runs one statement on this session's upstream connection, as the authenticated user, and
   * returns its text result set (an ERR rejects with an UpstreamQueryError). Only while this
   * session runs a local statement: the upstream connection is idle then and the client waits
   * for our reply, so the response is collected here and never reaches the client; the
   * client's sequence ids and the status flags it sees are untouched.
   */
  queryUpstream(sql: string): Promise<UpstreamQueryResult> {
    if (this.localRunning === null) return Promise.reject(new Error('queryUpstream is only possible while the session runs a local statement'));
    if (this.tracker.busy || this.upstreamQuery !== null || this.infileActive) return Promise.reject(new Error('the upstream connection is busy'));
    // The capabilities negotiated on the upstream leg: the client's, within what the FE offered.
    const upstreamCaps = (this.s.capabilities & this.s.upstreamOffered) >>> 0;
    return new Promise<UpstreamQueryResult>((resolve, reject) => {
      this.upstreamQuery = new UpstreamQueryCollector(upstreamCaps, resolve, reject);
      this.s.commandToUpstream(comQueryPacket(sql), true);
    });
  }

  private collectUpstream(chunk: Buffer): void {
    const s = this.s;
    const q = this.upstreamQuery!;
    let rest: Buffer | null;
    try {
      rest = q.feed(chunk, (packet) => s.writeUpstream(packet));
    } catch (e) {
      this.upstreamQuery = null;
      q.reject(e instanceof Error ? e : new Error(String(e)));
      s.protocolFailure(e, 'upstream query');
      return;
    }
    if (rest === null) return;
    this.upstreamQuery = null;
    // Nothing should follow the response (no command is in flight); relay whatever does.
    if (rest.length > 0) this.relayUpstream(rest);
    this.pump();
  }

  // ---- prepared statements the proxy answers ---------------------------------------------------

  /**
   * COM_STMT_* for statements the proxy answers itself. Returns false when the command is not
   * about one of them (then it is forwarded, or answered as usual in standalone mode).
   */
  private preparedCommand(p: Packet): boolean {
    const s = this.s;
    const cmd = p.payload[0];
    if (cmd === COM_STMT_PREPARE) {
      const sql = p.payload.toString('utf8', 1);
      // Standalone: every statement is the proxy's own (SELECT over information_schema or a system table, SHOW ...).
      if (classifyStatement(sql) !== 'call' && !s.standalone) return false;
      const placeholders = findPlaceholders(sql);
      if (placeholders === null) return false;
      // Route with NULLs in the placeholders: only the decision (ours or the FE's) is used now.
      const probe = bindPlaceholders({ id: 0, sql, placeholders, types: null, longData: new Map() }, placeholders.map(() => null), true);
      if (this.route(probe).kind !== 'local') return false;
      if (placeholders.length > MAX_PREPARED_PARAMS) {
        this.replyPayloads([err(ER_PS_MANY_PARAM, 'HY000', 'Prepared statement contains too many placeholders')]);
        return true;
      }
      const stmt = this.statements.create(sql, placeholders);
      this.replyPayloads(prepareOkPayloads(stmt.id, placeholders.length, [], s.capabilities, s.statusFlags));
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
          sql = bindPlaceholders(stmt, req.values, !(s.statusFlags & SERVER_STATUS_NO_BACKSLASH_ESCAPES));
        } catch (e) {
          stmt.longData = new Map();
          this.replyPayloads([err(ER_WRONG_ARGUMENTS, 'HY000', `Incorrect arguments to mysqld_stmt_execute: ${e instanceof Error ? e.message : String(e)}`)]);
          return true;
        }
        const route = this.route(sql);
        if (route.kind === 'local') this.runLocal(route.run, true);
        else this.replyPayloads([err(ER_UNKNOWN_ERROR, 'HY000', 'this prepared statement is no longer one the proxy runs; prepare it again')]);
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
        this.replyPayloads([err(ER_STMT_HAS_NO_OPEN_CURSOR, 'HY000', `The statement (${stmt.id}) has no open cursor.`)]);
        return true;
      default:
        return false;
    }
  }

  // ---- standalone commands -------------------------------------------------------------------

  private standaloneCommand(p: Packet): void {
    const s = this.s;
    const cmd = p.payload[0]!;
    if (cmd >= COM_STMT_PREPARE && cmd <= COM_STMT_FETCH && this.preparedCommand(p)) return;
    switch (cmd) {
      case COM_QUERY: {
        const route = this.route(p.payload.toString('utf8', 1));
        if (route.kind === 'local') {
          this.runLocal(route.run);
        } else {
          this.replyPayloads([
            err(
              ER_NOT_SUPPORTED_YET,
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
        this.s.useDatabase(name);
        this.replyPayloads([this.ok()]);
        return;
      }
      case COM_QUIT:
        s.close('client quit', true);
        return;
      case COM_FIELD_LIST:
        // No tables to describe: an empty column list.
        this.replyPayloads([
          s.capabilities & CLIENT_DEPRECATE_EOF ? buildOk(s.capabilities, { asEof: true, statusFlags: s.statusFlags }) : buildEof({ warnings: 0, statusFlags: s.statusFlags }),
        ]);
        return;
      case COM_STATISTICS: {
        const up = Math.floor((Date.now() - s.deps.stats.startedAt) / 1000);
        this.replyPayloads([Buffer.from(`Uptime: ${up}  Threads: ${s.deps.registry.size}  Questions: ${s.deps.stats.questions}  Mode: standalone`)]);
        return;
      }
      case COM_SET_OPTION:
        this.replyPayloads([s.capabilities & CLIENT_DEPRECATE_EOF ? this.ok() : buildEof({ warnings: 0, statusFlags: s.statusFlags })]);
        return;
      case COM_STMT_CLOSE:
      case COM_STMT_SEND_LONG_DATA:
        return; // no response, by protocol
      case COM_STMT_PREPARE:
        this.replyPayloads([err(ER_UNSUPPORTED_PS, 'HY000', 'standalone mode does not support prepared statements; send CALL as a plain query')]);
        return;
      case COM_STMT_EXECUTE:
      case COM_STMT_RESET:
      case COM_STMT_FETCH:
        this.replyPayloads([err(ER_UNKNOWN_STMT_HANDLER, 'HY000', 'Unknown prepared statement handler given (standalone mode has no prepared statements)')]);
        return;
      case COM_CHANGE_USER:
        this.replyPayloads([err(ER_NOT_SUPPORTED_AUTH_MODE, '08004', 'COM_CHANGE_USER is not supported in standalone mode; reconnect as the other user')]);
        return;
      default:
        this.replyPayloads([err(ER_UNKNOWN_COM_ERROR, '08S01', `Unknown or unsupported command 0x${cmd.toString(16).padStart(2, '0')} in standalone mode`)]);
        return;
    }
  }

  /** One response of the proxy's own: the payloads framed from sequence id 1 (the command was 0). */
  private replyPayloads(payloads: Buffer[]): void {
    let seq = 1;
    const parts = payloads.map((pl) => {
      const b = encodePacket(pl, seq);
      seq = (seq + 1) & 0xff;
      return b;
    });
    this.s.writeClient(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
  }

  private ok(): Buffer {
    return buildOk(this.s.capabilities, { statusFlags: this.s.statusFlags });
  }
}

function err(errno: number, sqlState: string, message: string): Buffer {
  return buildErr({ errno, sqlState, message });
}

/** A route whose statement fails with `e` (answered by runLocal's error reply). */
function failed(e: unknown): Route {
  return { kind: 'local', run: () => Promise.reject(e) };
}
