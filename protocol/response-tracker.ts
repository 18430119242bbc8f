/**
 * Finds where an upstream server's response to one command ends, by looking only at packet
 * headers and the first payload bytes (PacketWalker) while the bytes are relayed untouched.
 * It knows every response shape of the command phase: OK / ERR, text and binary result sets
 * (with or without EOF packets, CLIENT_DEPRECATE_EOF), chains of results joined by
 * SERVER_MORE_RESULTS_EXISTS, the LOCAL INFILE request, COM_STMT_PREPARE's PREPARE_OK with its
 * parameter and column blocks, COM_FIELD_LIST, COM_STATISTICS's bare string, COM_CHANGE_USER's
 * authentication exchange, and the commands that get no response at all.
 */
import { PERFORM_FULL_AUTHENTICATION, isClearPasswordSwitch } from './auth.js';
import {
  AUTH_MORE_DATA_HEADER,
  CLIENT_DEPRECATE_EOF,
  COM_CHANGE_USER,
  COM_FIELD_LIST,
  COM_QUERY,
  COM_QUIT,
  COM_SET_OPTION,
  COM_STATISTICS,
  COM_STMT_CLOSE,
  COM_STMT_EXECUTE,
  COM_STMT_FETCH,
  COM_STMT_PREPARE,
  COM_STMT_SEND_LONG_DATA,
  EOF_HEADER,
  ERR_HEADER,
  LOCAL_INFILE_HEADER,
  MAX_PACKET_PAYLOAD,
  OK_HEADER,
  SERVER_MORE_RESULTS_EXISTS,
  SERVER_STATUS_CURSOR_EXISTS,
} from './constants.js';
import { PacketWalker, PREFIX_SIZE } from './packet-walker.js';

/** Tracker states (numbers rather than strings: compared once per packet). */
export const TrackerState = {
  /** No command in flight. */
  Idle: 0,
  /** Expecting the first packet of a response: OK, ERR, LOCAL INFILE request or column count. */
  First: 1,
  /** Counting down column definitions of a result set. */
  Columns: 2,
  /** Expecting the EOF after column definitions (no CLIENT_DEPRECATE_EOF). */
  ColumnsEof: 3,
  /** Rows until EOF / OK(0xFE) / ERR. */
  Rows: 4,
  /** The client is sending a LOCAL INFILE file; the server answers once it ends with an empty packet. */
  Infile: 5,
  /** Expecting PREPARE_OK or ERR. */
  PrepareFirst: 6,
  /** Counting down the parameter definitions of PREPARE_OK. */
  PrepareParams: 7,
  PrepareParamsEof: 8,
  PrepareColumns: 9,
  PrepareColumnsEof: 10,
  /** COM_FIELD_LIST: column definitions until EOF or ERR. */
  FieldList: 11,
  /** Exactly one packet of any shape (COM_STATISTICS, COM_SET_OPTION). */
  Single: 12,
  /** Authentication exchange (COM_CHANGE_USER): until OK or ERR; other packets need a client reply. */
  Auth: 13,
  /** The final packet was recognised; its remaining bytes are still arriving. */
  Ending: 14,
} as const;
export type TrackerStateValue = (typeof TrackerState)[keyof typeof TrackerState];

export type ResponseOutcome = 'ok' | 'error';

export class ResponseTracker extends PacketWalker {
  state: TrackerStateValue = TrackerState.Idle;
  /** Status flags of the last OK/EOF seen (what synthesized replies copy). */
  lastStatusFlags = 0;
  /** How the last finished response ended: 'error' when any ERR ended it. */
  outcome: ResponseOutcome = 'ok';
  /** Packets seen in the current response (diagnostics and tests). */
  packets = 0;
  /**
   * The server asked for caching_sha2_password full authentication during this COM_CHANGE_USER
   * exchange (the client's next packet carries the password); reset by begin().
   */
  fullAuthRequested = false;
  /**
   * The server switched this COM_CHANGE_USER exchange to mysql_clear_password (the client's next
   * packet is the password in clear text); reset by begin().
   */
  clearPasswordRequested = false;
  private command = -1;
  private remainingDefs = 0;
  private prepareColumns = 0;
  private deprecateEof: boolean;

  constructor(capabilities: number) {
    super();
    this.deprecateEof = (capabilities & CLIENT_DEPRECATE_EOF) !== 0;
  }

  /** Effective capabilities may change (COM_CHANGE_USER keeps them; kept for completeness). */
  setCapabilities(capabilities: number): void {
    this.deprecateEof = (capabilities & CLIENT_DEPRECATE_EOF) !== 0;
  }

  get busy(): boolean {
    return this.state !== TrackerState.Idle;
  }

  /** True while the server waits for client packets (LOCAL INFILE data or an auth reply). */
  get awaitingClient(): boolean {
    return this.state === TrackerState.Infile;
  }

  /** Whether a command gets any response at all. */
  static expectsResponse(command: number): boolean {
    return command !== COM_STMT_CLOSE && command !== COM_STMT_SEND_LONG_DATA && command !== COM_QUIT;
  }

  /**
   * Starts tracking the response to `command` (the first payload byte of the client's packet).
   * Returns false when the command has no response, in which case the tracker stays idle.
   */
  begin(command: number): boolean {
    this.resetWalker();
    this.command = command;
    this.outcome = 'ok';
    this.packets = 0;
    this.fullAuthRequested = false;
    this.clearPasswordRequested = false;
    if (!ResponseTracker.expectsResponse(command)) {
      this.state = TrackerState.Idle;
      return false;
    }
    switch (command) {
      case COM_STMT_PREPARE:
        this.state = TrackerState.PrepareFirst;
        break;
      case COM_FIELD_LIST:
        this.state = TrackerState.FieldList;
        break;
      case COM_STATISTICS:
      case COM_SET_OPTION:
        this.state = TrackerState.Single;
        break;
      case COM_CHANGE_USER:
        this.state = TrackerState.Auth;
        break;
      case COM_STMT_FETCH:
        this.state = TrackerState.Rows;
        break;
      default:
        this.state = TrackerState.First;
    }
    return true;
  }

  /**
   * Tracks a COM_QUERY response whose LOCAL INFILE request was already relayed (by the native
   * relay): the client's file comes next, then the server's OK or ERR.
   */
  beginInfile(): void {
    this.begin(COM_QUERY);
    this.state = TrackerState.Infile;
  }

  /** The client finished a LOCAL INFILE transfer (sent its empty packet); the server's OK/ERR follows. */
  infileDone(): void {
    if (this.state === TrackerState.Infile) this.state = TrackerState.First;
  }

  /** Forget the in-flight command (connection being torn down). */
  abort(): void {
    this.state = TrackerState.Idle;
    this.resetWalker();
  }

  /**
   * Scans an upstream chunk. Returns the index just past the response's last byte when the
   * response ended inside this chunk, or -1 when it continues (or the tracker is idle).
   */
  feed(chunk: Buffer, start = 0): number {
    if (this.state === TrackerState.Idle) return -1;
    const end = this.walk(chunk, start);
    if (end >= 0) this.state = TrackerState.Idle;
    return end;
  }

  private finish(outcome: ResponseOutcome): void {
    this.outcome = outcome;
    this.state = TrackerState.Ending;
    this.stopAfterPacket = true;
  }

  protected onPacket(buf: Buffer, off: number, len: number, continued: boolean): void {
    this.packets++;
    if (continued) return;
    const first = len > 0 ? buf[off] : -1;
    switch (this.state) {
      case TrackerState.First:
        if (first === OK_HEADER && len >= 7) {
          this.afterTerminator(okStatus(buf, off, len));
        } else if (first === ERR_HEADER) {
          this.finish('error');
        } else if (first === LOCAL_INFILE_HEADER && this.command === COM_QUERY) {
          this.state = TrackerState.Infile;
        } else {
          this.remainingDefs = lenencAt(buf, off, len);
          this.state = this.remainingDefs > 0 ? TrackerState.Columns : TrackerState.Rows;
        }
        return;
      case TrackerState.Columns:
        if (--this.remainingDefs === 0) this.state = this.deprecateEof ? TrackerState.Rows : TrackerState.ColumnsEof;
        return;
      case TrackerState.ColumnsEof: {
        if (first === ERR_HEADER) return this.finish('error');
        const status = eofStatus(buf, off, len);
        this.lastStatusFlags = status;
        // A cursor was opened (COM_STMT_EXECUTE): rows come later through COM_STMT_FETCH.
        if (status & SERVER_STATUS_CURSOR_EXISTS && this.command === COM_STMT_EXECUTE) return this.finish('ok');
        this.state = TrackerState.Rows;
        return;
      }
      case TrackerState.Rows:
        // A row can start with 0xFE only as the first fragment of a >= 16 MiB row.
        if (first === EOF_HEADER && len < MAX_PACKET_PAYLOAD) {
          this.afterTerminator(this.deprecateEof ? okStatus(buf, off, len) : eofStatus(buf, off, len));
        } else if (first === ERR_HEADER) {
          this.finish('error');
        }
        return;
      case TrackerState.PrepareFirst: {
        if (first !== OK_HEADER) return this.finish('error');
        const columns = len >= 7 ? buf[off + 5] | (buf[off + 6] << 8) : 0;
        const params = len >= 9 ? buf[off + 7] | (buf[off + 8] << 8) : 0;
        this.prepareColumns = columns;
        if (params > 0) {
          this.remainingDefs = params;
          this.state = TrackerState.PrepareParams;
        } else this.startPrepareColumns();
        return;
      }
      case TrackerState.PrepareParams:
        if (--this.remainingDefs === 0) {
          if (this.deprecateEof) this.startPrepareColumns();
          else this.state = TrackerState.PrepareParamsEof;
        }
        return;
      case TrackerState.PrepareParamsEof:
        this.startPrepareColumns();
        return;
      case TrackerState.PrepareColumns:
        if (--this.remainingDefs === 0) {
          if (this.deprecateEof) this.finish('ok');
          else this.state = TrackerState.PrepareColumnsEof;
        }
        return;
      case TrackerState.PrepareColumnsEof:
        this.finish('ok');
        return;
      case TrackerState.FieldList:
        if (first === ERR_HEADER) this.finish('error');
        else if (first === EOF_HEADER && len < MAX_PACKET_PAYLOAD) this.finish('ok');
        return;
      case TrackerState.Single:
        if (first === ERR_HEADER) this.finish('error');
        else {
          if (first === EOF_HEADER && len < 9) this.lastStatusFlags = eofStatus(buf, off, len);
          this.finish('ok');
        }
        return;
      case TrackerState.Auth:
        // caching_sha2_password's "perform full authentication": the client's next reply is the password.
        if (first === AUTH_MORE_DATA_HEADER && len === 2 && buf[off + 1] === PERFORM_FULL_AUTHENTICATION) this.fullAuthRequested = true;
        else if (isClearPasswordSwitch(buf, off, len)) this.clearPasswordRequested = true;
        if (first === OK_HEADER) {
          this.lastStatusFlags = okStatus(buf, off, len);
          this.finish('ok');
        } else if (first === ERR_HEADER) this.finish('error');
        // 0xFE AuthSwitchRequest / 0x01 AuthMoreData: the client answers, the exchange goes on.
        return;
      case TrackerState.Infile:
        // The server should not speak during the transfer; if it does (an ERR), it ends the response.
        if (first === ERR_HEADER) this.finish('error');
        return;
      default:
        return;
    }
  }

  private startPrepareColumns(): void {
    if (this.prepareColumns > 0) {
      this.remainingDefs = this.prepareColumns;
      this.state = TrackerState.PrepareColumns;
    } else {
      this.finish('ok');
    }
  }

  private afterTerminator(status: number): void {
    this.lastStatusFlags = status;
    if (status & SERVER_MORE_RESULTS_EXISTS) this.state = TrackerState.First;
    else this.finish('ok');
  }
}

/** Status flags of an OK packet (header, affected_rows lenenc, last_insert_id lenenc, status int<2>). */
function okStatus(buf: Buffer, off: number, len: number): number {
  const avail = len < PREFIX_SIZE ? len : PREFIX_SIZE;
  let p = 1;
  for (let k = 0; k < 2; k++) {
    if (p >= avail) return 0;
    const b = buf[off + p];
    p += b < 0xfb ? 1 : b === 0xfc ? 3 : b === 0xfd ? 4 : 9;
  }
  if (p + 2 > avail) return 0;
  return buf[off + p] | (buf[off + p + 1] << 8);
}

/** Status flags of an EOF packet (0xFE, warnings int<2>, status int<2>). */
function eofStatus(buf: Buffer, off: number, len: number): number {
  if (len < 5) return 0;
  return buf[off + 3] | (buf[off + 4] << 8);
}

/** A length-encoded integer at the start of a packet (the column count); large forms are capped. */
function lenencAt(buf: Buffer, off: number, len: number): number {
  if (len === 0) return 0;
  const b = buf[off];
  if (b < 0xfb) return b;
  if (b === 0xfc && len >= 3) return buf[off + 1] | (buf[off + 2] << 8);
  if (b === 0xfd && len >= 4) return buf[off + 1] | (buf[off + 2] << 8) | (buf[off + 3] << 16);
  return 0;
}

/**
 * Watches the client's LOCAL INFILE transfer for its end: an empty packet. Sequence ids are
 * no help here (they wrap at 256 in a long transfer), so packets are walked by length.
 */
export class InfileScanner extends PacketWalker {
  reset(): void {
    this.resetWalker();
  }

  /** Returns the index just past the empty packet, or -1 when the transfer continues. */
  feed(chunk: Buffer, start = 0): number {
    return this.walk(chunk, start);
  }

  protected onPacket(_buf: Buffer, _off: number, len: number, continued: boolean): void {
    // An empty packet that merely ends a 0xFFFFFF-multiple fragment chain is not the end marker.
    if (len === 0 && !continued) this.stopAfterPacket = true;
  }
}
