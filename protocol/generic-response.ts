/**
 * The generic response packets: OK, ERR and EOF. Layouts follow MySQL's
 * page_protocol_basic_ok_packet / _err_packet / _eof_packet.
 */
import { BufferReader, ProtocolError } from './buffer-reader.js';
import { BufferWriter } from './buffer-writer.js';
import { CLIENT_DEPRECATE_EOF, CLIENT_SESSION_TRACK, EOF_HEADER, ERR_HEADER, OK_HEADER, SERVER_SESSION_STATE_CHANGED } from './constants.js';

export interface OkPacket {
  affectedRows: bigint;
  lastInsertId: bigint;
  statusFlags: number;
  warnings: number;
  info: string;
  /** Raw session-state-change block (only with CLIENT_SESSION_TRACK and SERVER_SESSION_STATE_CHANGED). */
  sessionState?: Buffer;
}

export interface ErrPacket {
  errno: number;
  sqlState: string;
  message: string;
}

export interface EofPacket {
  warnings: number;
  statusFlags: number;
}

export interface OkOptions {
  affectedRows?: number | bigint;
  lastInsertId?: number | bigint;
  statusFlags?: number;
  warnings?: number;
  info?: string;
  /** Use 0xFE as the header: the OK that replaces EOF as result-set terminator under CLIENT_DEPRECATE_EOF. */
  asEof?: boolean;
  /**
   * A session-state-change block (its entries, without the outer length). Sent, with
   * SERVER_SESSION_STATE_CHANGED, only to a client with CLIENT_SESSION_TRACK; others never see it.
   */
  sessionState?: Buffer;
}

/** Builds an OK payload for a client with the given (effective) capability flags. */
export function buildOk(capabilities: number, o: OkOptions = {}): Buffer {
  const w = new BufferWriter(32);
  const state = capabilities & CLIENT_SESSION_TRACK && o.sessionState !== undefined && o.sessionState.length > 0 ? o.sessionState : undefined;
  const status = ((o.statusFlags ?? 0) & ~SERVER_SESSION_STATE_CHANGED) | (state ? SERVER_SESSION_STATE_CHANGED : 0);
  w.u8(o.asEof ? EOF_HEADER : OK_HEADER)
    .lenenc(o.affectedRows ?? 0)
    .lenenc(o.lastInsertId ?? 0)
    .u16(status)
    .u16(o.warnings ?? 0);
  const info = o.info ?? '';
  // The info is string<lenenc> whatever the client asked for: MySQL's and MariaDB's
  // net_send_ok and Doris's MysqlOkPacket all write it so, and Connector/J reads it so even
  // without CLIENT_SESSION_TRACK. Under SESSION_TRACK or DEPRECATE_EOF an empty info is still
  // written (one 0x00), because Connector/J reads the field in those modes.
  if (info.length > 0 || state || capabilities & (CLIENT_SESSION_TRACK | CLIENT_DEPRECATE_EOF)) w.lenencString(info);
  if (state) w.lenencBytes(state);
  return w.finish();
}

export function parseOk(payload: Buffer, capabilities: number): OkPacket {
  const r = new BufferReader(payload);
  const header = r.u8();
  if (header !== OK_HEADER && header !== EOF_HEADER) throw new ProtocolError(`not an OK packet (header 0x${header.toString(16)})`);
  const affectedRows = r.lenencBig() ?? 0n;
  const lastInsertId = r.lenencBig() ?? 0n;
  const statusFlags = r.remaining >= 2 ? r.u16() : 0;
  const warnings = r.remaining >= 2 ? r.u16() : 0;
  let info = '';
  let sessionState: Buffer | undefined;
  if (r.remaining > 0) {
    const start = r.offset;
    try {
      info = r.lenencString();
      if (capabilities & CLIENT_SESSION_TRACK && statusFlags & SERVER_SESSION_STATE_CHANGED && r.remaining > 0) {
        sessionState = r.lenencBytes() ?? undefined;
      }
    } catch (e) {
      // A server that writes the info as string<EOF> (the documented form without SESSION_TRACK).
      if (!(e instanceof ProtocolError) || capabilities & CLIENT_SESSION_TRACK) throw e;
      info = payload.subarray(start).toString('utf8');
    }
  }
  return { affectedRows, lastInsertId, statusFlags, warnings, info, ...(sessionState ? { sessionState } : {}) };
}

export function buildErr(e: ErrPacket): Buffer {
  const state = (e.sqlState + '00000').slice(0, 5);
  return new BufferWriter(16 + e.message.length).u8(ERR_HEADER).u16(e.errno).string('#').string(state).string(e.message).finish();
}

export function parseErr(payload: Buffer): ErrPacket {
  const r = new BufferReader(payload);
  if (r.u8() !== ERR_HEADER) throw new ProtocolError('not an ERR packet');
  const errno = r.u16();
  let sqlState = 'HY000';
  if (r.remaining > 0 && payload[r.offset] === 0x23 /* '#' */) {
    r.skip(1);
    sqlState = r.bytes(5).toString('latin1');
  }
  return { errno, sqlState, message: r.restString() };
}

export function buildEof(e: EofPacket): Buffer {
  return new BufferWriter(5).u8(EOF_HEADER).u16(e.warnings).u16(e.statusFlags).finish();
}

export function parseEof(payload: Buffer): EofPacket {
  if (payload.length < 1 || payload[0] !== EOF_HEADER || payload.length >= 9) throw new ProtocolError('not an EOF packet');
  const r = new BufferReader(payload, 1);
  const warnings = r.remaining >= 2 ? r.u16() : 0;
  const statusFlags = r.remaining >= 2 ? r.u16() : 0;
  return { warnings, statusFlags };
}

export function isOkPacket(payload: Buffer): boolean {
  return payload.length >= 7 && payload[0] === OK_HEADER;
}

export function isErrPacket(payload: Buffer): boolean {
  return payload.length >= 3 && payload[0] === ERR_HEADER;
}

export function isEofPacket(payload: Buffer): boolean {
  return payload.length < 9 && payload.length >= 1 && payload[0] === EOF_HEADER;
}
