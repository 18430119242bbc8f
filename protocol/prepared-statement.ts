/**
 * The binary (prepared-statement) protocol pieces the proxy needs to answer prepared statements
 * itself: COM_STMT_PREPARE_OK, COM_STMT_EXECUTE parameter decoding and binary result rows
 * (Protocol::BinaryResultsetRow). Layouts per MySQL's page_protocol_com_stmt_prepare,
 * page_protocol_com_stmt_execute and page_protocol_binary_resultset.
 */
import { BufferReader, ProtocolError } from './buffer-reader.js';
import { BufferWriter } from './buffer-writer.js';
import {
  CLIENT_DEPRECATE_EOF,
  MYSQL_TYPE_BIT,
  MYSQL_TYPE_BLOB,
  MYSQL_TYPE_DATE,
  MYSQL_TYPE_DATETIME,
  MYSQL_TYPE_DECIMAL,
  MYSQL_TYPE_DOUBLE,
  MYSQL_TYPE_FLOAT,
  MYSQL_TYPE_INT24,
  MYSQL_TYPE_JSON,
  MYSQL_TYPE_LONG,
  MYSQL_TYPE_LONGLONG,
  MYSQL_TYPE_NEWDECIMAL,
  MYSQL_TYPE_NULL,
  MYSQL_TYPE_SHORT,
  MYSQL_TYPE_STRING,
  MYSQL_TYPE_TIME,
  MYSQL_TYPE_TIMESTAMP,
  MYSQL_TYPE_TINY,
  MYSQL_TYPE_VAR_STRING,
  MYSQL_TYPE_VARCHAR,
  MYSQL_TYPE_YEAR,
  SERVER_MORE_RESULTS_EXISTS,
} from './constants.js';
import { buildEof, buildOk } from './generic-response.js';
import { buildColumnDefinition, type ColumnDefinition, type ResultSetOptions } from './result-set.js';

/**
 * Most placeholders one prepared statement can have: COM_STMT_PREPARE_OK counts them in two
 * bytes. MySQL refuses a statement with more at prepare time (ER_PS_MANY_PARAM, sql_prepare.cc).
 */
export const MAX_PREPARED_PARAMS = 0xffff;

/** COM_STMT_PREPARE_OK plus its parameter block (column count 0: metadata comes with EXECUTE). */
export function prepareOkPayloads(statementId: number, params: number, columns: readonly ColumnDefinition[], capabilities: number, statusFlags: number): Buffer[] {
  if (params > MAX_PREPARED_PARAMS || columns.length > MAX_PREPARED_PARAMS) {
    throw new RangeError(`a prepared statement has at most ${MAX_PREPARED_PARAMS} parameters and columns (${params} parameters, ${columns.length} columns)`);
  }
  const out = [new BufferWriter(12).u8(0).u32(statementId).u16(columns.length).u16(params).u8(0).u16(0).finish()];
  const eof = () => (capabilities & CLIENT_DEPRECATE_EOF ? [] : [buildEof({ warnings: 0, statusFlags })]);
  if (params > 0) {
    const p: ColumnDefinition = { schema: '', table: '', orgTable: '', name: '?', orgName: '', characterSet: 63, columnLength: 0, type: MYSQL_TYPE_VAR_STRING, flags: 0x80, decimals: 0 };
    for (let i = 0; i < params; i++) out.push(buildColumnDefinition(p));
    out.push(...eof());
  }
  if (columns.length > 0) {
    for (const c of columns) out.push(buildColumnDefinition(c));
    out.push(...eof());
  }
  return out;
}

export type ParamValue = null | bigint | number | string | Buffer;

export interface ExecuteRequest {
  statementId: number;
  flags: number;
  values: ParamValue[];
  /** Parameter type words (low byte type, 0x8000 unsigned) now in force. */
  types: number[];
}

/** The statement id of a COM_STMT_EXECUTE / CLOSE / RESET / SEND_LONG_DATA / FETCH payload. */
export function statementIdOf(payload: Buffer): number {
  return payload.length >= 5 ? payload.readUInt32LE(1) : -1;
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

/**
 * Decodes COM_STMT_EXECUTE. `previousTypes` are the types bound by an earlier execute (a client
 * sends them only when new_params_bound is 1); `longData` holds COM_STMT_SEND_LONG_DATA pieces.
 */
export function parseExecute(payload: Buffer, paramCount: number, previousTypes: number[] | null, longData?: Map<number, Buffer>): ExecuteRequest {
  const r = new BufferReader(payload, 1);
  const statementId = r.u32();
  const flags = r.u8();
  r.u32(); // iteration count, always 1
  const values: ParamValue[] = [];
  let types = previousTypes ?? [];
  if (paramCount > 0) {
    const nullBitmap = r.bytes((paramCount + 7) >> 3);
    const newParamsBound = r.u8();
    if (newParamsBound === 1) {
      types = [];
      for (let i = 0; i < paramCount; i++) types.push(r.u16());
    } else if (previousTypes === null) {
      throw new ProtocolError('COM_STMT_EXECUTE without parameter types, and none were bound before');
    }
    for (let i = 0; i < paramCount; i++) {
      if (nullBitmap[i >> 3] & (1 << (i & 7))) {
        values.push(null);
        continue;
      }
      const long = longData?.get(i);
      if (long !== undefined) {
        values.push(long);
        continue;
      }
      values.push(readBinaryValue(r, types[i] ?? MYSQL_TYPE_VAR_STRING));
    }
  }
  return { statementId, flags, values, types };
}

function readBinaryValue(r: BufferReader, typeWord: number): ParamValue {
  const type = typeWord & 0xff;
  const unsigned = (typeWord & 0x8000) !== 0;
  switch (type) {
    case MYSQL_TYPE_NULL:
      return null;
    case MYSQL_TYPE_TINY: {
      const v = r.u8();
      return unsigned ? v : (v << 24) >> 24;
    }
    case MYSQL_TYPE_SHORT:
    case MYSQL_TYPE_YEAR: {
      const v = r.u16();
      return unsigned ? v : (v << 16) >> 16;
    }
    case MYSQL_TYPE_LONG:
    case MYSQL_TYPE_INT24: {
      const v = r.u32();
      return unsigned ? v : v | 0;
    }
    case MYSQL_TYPE_LONGLONG: {
      const v = r.u64();
      return unsigned ? v : BigInt.asIntN(64, v);
    }
    case MYSQL_TYPE_FLOAT:
      return r.bytes(4).readFloatLE(0);
    case MYSQL_TYPE_DOUBLE:
      return r.bytes(8).readDoubleLE(0);
    case MYSQL_TYPE_DATE:
    case MYSQL_TYPE_DATETIME:
    case MYSQL_TYPE_TIMESTAMP: {
      const len = r.u8();
      if (len === 0) return type === MYSQL_TYPE_DATE ? '0000-00-00' : '0000-00-00 00:00:00';
      const y = r.u16();
      const mo = r.u8();
      const d = r.u8();
      let s = `${String(y).padStart(4, '0')}-${pad(mo)}-${pad(d)}`;
      if (len >= 7) s += ` ${pad(r.u8())}:${pad(r.u8())}:${pad(r.u8())}`;
      if (len >= 11) s += `.${String(r.u32()).padStart(6, '0')}`;
      return s;
    }
    case MYSQL_TYPE_TIME: {
      const len = r.u8();
      if (len === 0) return '00:00:00';
      const neg = r.u8() === 1;
      const days = r.u32();
      const h = r.u8() + days * 24;
      let s = `${neg ? '-' : ''}${pad(h)}:${pad(r.u8())}:${pad(r.u8())}`;
      if (len >= 12) s += `.${String(r.u32()).padStart(6, '0')}`;
      return s;
    }
    case MYSQL_TYPE_DECIMAL:
    case MYSQL_TYPE_NEWDECIMAL:
    case MYSQL_TYPE_VARCHAR:
    case MYSQL_TYPE_VAR_STRING:
    case MYSQL_TYPE_STRING:
    case MYSQL_TYPE_JSON:
      return r.lenencString();
    case MYSQL_TYPE_BIT:
    case MYSQL_TYPE_BLOB:
    default:
      if (type >= 0xf9 && type <= 0xfc) return r.lenencBytes() ?? Buffer.alloc(0); // TINY/MEDIUM/LONG/BLOB
      if (type === MYSQL_TYPE_BIT) return r.lenencBytes() ?? Buffer.alloc(0);
      throw new ProtocolError(`unsupported parameter type 0x${type.toString(16)}`);
  }
}

/** Binary protocol encoding of one text value for a column of the given type. */
function writeBinaryValue(w: BufferWriter, c: ColumnDefinition, v: string): void {
  switch (c.type) {
    case MYSQL_TYPE_TINY:
      w.u8(Number(v) & 0xff);
      return;
    case MYSQL_TYPE_SHORT:
    case MYSQL_TYPE_YEAR:
      w.u16(Number(v) & 0xffff);
      return;
    case MYSQL_TYPE_LONG:
    case MYSQL_TYPE_INT24:
      w.u32(Number(v) >>> 0);
      return;
    case MYSQL_TYPE_LONGLONG:
      w.u64(BigInt.asUintN(64, BigInt(v)));
      return;
    case MYSQL_TYPE_DOUBLE: {
      const b = Buffer.allocUnsafe(8);
      b.writeDoubleLE(Number(v), 0);
      w.bytes(b);
      return;
    }
    case MYSQL_TYPE_FLOAT: {
      const b = Buffer.allocUnsafe(4);
      b.writeFloatLE(Number(v), 0);
      w.bytes(b);
      return;
    }
    case MYSQL_TYPE_DATE:
    case MYSQL_TYPE_DATETIME:
    case MYSQL_TYPE_TIMESTAMP: {
      const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?)?$/.exec(v);
      if (!m) {
        w.u8(0);
        return;
      }
      const micros = m[7] ? Number(m[7].padEnd(6, '0')) : 0;
      const len = micros ? 11 : m[4] !== undefined ? 7 : 4;
      w.u8(len).u16(Number(m[1])).u8(Number(m[2])).u8(Number(m[3]));
      if (len >= 7) w.u8(Number(m[4])).u8(Number(m[5])).u8(Number(m[6]));
      if (len === 11) w.u32(micros);
      return;
    }
    default:
      w.lenencString(v);
  }
}

/** Protocol::BinaryResultsetRow: 0x00, NULL bitmap with a 2-bit offset, then the non-NULL values. */
export function buildBinaryRow(columns: readonly ColumnDefinition[], row: readonly (string | null)[]): Buffer {
  const w = new BufferWriter(16 + 16 * columns.length);
  w.u8(0);
  const bitmap = Buffer.alloc((columns.length + 7 + 2) >> 3);
  row.forEach((v, i) => {
    if (v === null) bitmap[(i + 2) >> 3] |= 1 << ((i + 2) & 7);
  });
  w.bytes(bitmap);
  row.forEach((v, i) => {
    if (v !== null) writeBinaryValue(w, columns[i], v);
  });
  return w.finish();
}

/** A complete binary result set (the answer to COM_STMT_EXECUTE), same framing rules as the text one. */
export function binaryResultSetPayloads(columns: readonly ColumnDefinition[], rows: Iterable<readonly (string | null)[]>, o: ResultSetOptions): Buffer[] {
  const deprecateEof = (o.capabilities & CLIENT_DEPRECATE_EOF) !== 0;
  const status = o.moreResults ? o.statusFlags | SERVER_MORE_RESULTS_EXISTS : o.statusFlags & ~SERVER_MORE_RESULTS_EXISTS;
  const out: Buffer[] = [new BufferWriter(9).lenenc(columns.length).finish()];
  for (const c of columns) out.push(buildColumnDefinition(c));
  if (!deprecateEof) out.push(buildEof({ warnings: 0, statusFlags: status & ~SERVER_MORE_RESULTS_EXISTS }));
  for (const row of rows) {
    if (row.length !== columns.length) throw new RangeError(`row has ${row.length} values for ${columns.length} columns`);
    out.push(buildBinaryRow(columns, row));
  }
  out.push(
    deprecateEof
      ? buildOk(o.capabilities, { asEof: true, statusFlags: status, warnings: o.warnings ?? 0 })
      : buildEof({ warnings: o.warnings ?? 0, statusFlags: status }),
  );
  return out;
}
