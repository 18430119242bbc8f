/**
 * Reads the payloads of one command response with mysql2's own packet classes
 * (node_modules/mysql2/lib/packets: ResultSetHeader for OK, ColumnDefinition, Packet.isEOF /
 * eofStatusFlags / asError, PreparedStatementHeader, and the text and binary row parsers of
 * lib/parsers), so our encoders are checked by a real client's decoder, never by our own parser.
 *
 * The walk between packets follows the client side of MySQL's protocol for the given
 * capability flags (mysql2's Query command always expects the EOF after the column block, so it
 * cannot walk a CLIENT_DEPRECATE_EOF response itself): the 0xFE-headed OK that ends a result set
 * under DEPRECATE_EOF is handed to mysql2's OK parser with its header byte as 0x00, as Connector/J
 * and libmariadb read it as an OK packet.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CLIENT_DEPRECATE_EOF, SERVER_MORE_RESULTS_EXISTS } from '../../../protocol/constants.js';

const require = createRequire(import.meta.url);
// mysql2's package "exports" hides lib/, so the files are required by path.
const LIB = join(dirname(require.resolve('mysql2')), 'lib');
const Packet = require(join(LIB, 'packets/packet.js')) as new (id: number, buffer: Buffer, start: number, end: number) => Mysql2Packet;
const ResultSetHeader = require(join(LIB, 'packets/resultset_header.js')) as new (p: Mysql2Packet, connection: unknown) => Mysql2Ok;
const ColumnDefinition = require(join(LIB, 'packets/column_definition.js')) as new (p: Mysql2Packet, encoding: string, extended: boolean) => Mysql2Field;
const PreparedStatementHeader = require(join(LIB, 'packets/prepared_statement_header.js')) as new (p: Mysql2Packet) => Mysql2PrepareHeader;
const ConnectionConfig = require(join(LIB, 'connection_config.js')) as new (o: Record<string, unknown>) => Record<string, unknown>;
const getTextParser = require(join(LIB, 'parsers/text_parser.js')) as (f: Mysql2Field[], o: object, c: object) => new (f: Mysql2Field[]) => RowParser;
const getBinaryParser = require(join(LIB, 'parsers/binary_parser.js')) as (f: Mysql2Field[], o: object, c: object) => new () => RowParser;

export interface Mysql2Packet {
  offset: number;
  end: number;
  buffer: Buffer;
  isEOF(): boolean;
  isError(): boolean;
  eofStatusFlags(): number;
  eofWarningCount(): number;
  asError(encoding?: string): Error & { errno: number; sqlState: string; code: string; sqlMessage: string };
  haveMoreData(): boolean;
}
export interface Mysql2Ok {
  fieldCount: number;
  affectedRows: number | string;
  insertId: number | string;
  serverStatus: number;
  warningStatus: number;
  info: string;
  stateChanges?: { schema: string | null; systemVariables: Record<string, string> };
}
export interface Mysql2Field {
  name: string;
  columnType: number;
  characterSet: number;
  columnLength: number;
  flags: number;
  decimals: number;
  encoding: string;
}
export interface Mysql2PrepareHeader {
  id: number;
  fieldCount: number;
  parameterCount: number;
  warningCount: number;
}
interface RowParser {
  next(p: Mysql2Packet, fields: Mysql2Field[], options: object): unknown[];
}

/** A whole decoded response: its results in order, as mysql2 hands them to an application. */
export type Decoded =
  | { kind: 'ok'; ok: Mysql2Ok }
  | { kind: 'error'; errno: number; sqlState: string; message: string }
  | { kind: 'resultset'; fields: Mysql2Field[]; rows: unknown[][]; status: number; warnings: number; terminatorOk?: Mysql2Ok };

/** One payload as a mysql2 Packet (a 4-byte header in front, as mysql2's framer leaves it). */
export function packetOf(payload: Buffer, seq = 0): Mysql2Packet {
  const b = Buffer.alloc(payload.length + 4);
  b.writeUIntLE(payload.length, 0, 3);
  b[3] = seq;
  payload.copy(b, 4);
  return new Packet(seq, b, 0, b.length);
}

/** mysql2's connection configuration: strings for dates and big numbers so values compare as text. */
export const mysql2Config = new ConnectionConfig({ dateStrings: true, supportBigNumbers: true, bigNumberStrings: true, decimalNumbers: false });
const ROW_OPTIONS = { rowsAsArray: true, dateStrings: true, supportBigNumbers: true, bigNumberStrings: true };

/** The stand-in for mysql2's Connection that ResultSetHeader reads: config, encoding, negotiated flags. */
function connectionFor(capabilities: number): unknown {
  return { config: mysql2Config, serverEncoding: 'utf8', _handshakePacket: { capabilityFlags: capabilities } };
}

export function decodeOk(payload: Buffer, capabilities: number): Mysql2Ok {
  const p = packetOf(payload);
  if (payload[0] === 0xfe) p.buffer[4] = 0x00; // the DEPRECATE_EOF terminator: an OK body behind 0xFE
  const ok = new ResultSetHeader(p, connectionFor(capabilities));
  if (p.offset > p.end) throw new Error(`mysql2 read past the end of the OK packet (${p.offset} > ${p.end})`);
  return ok;
}

export function decodeErr(payload: Buffer): { errno: number; sqlState: string; message: string } {
  const p = packetOf(payload);
  if (!p.isError()) throw new Error('not an ERR packet for mysql2');
  const e = p.asError('utf8');
  return { errno: e.errno, sqlState: e.sqlState, message: e.message };
}

export function decodeColumn(payload: Buffer): Mysql2Field {
  const p = packetOf(payload);
  const f = new ColumnDefinition(p, 'utf8', false);
  // mysql2 stops after `decimals`; what follows must be exactly the two filler bytes
  if (p.end - p.offset !== 2) throw new Error(`column definition has ${p.end - p.offset} bytes after decimals for mysql2 (2 expected)`);
  return f;
}

/** A DEPRECATE_EOF response ends a row stream with 0xFE and a payload shorter than a full 16 MiB fragment. */
function isOkTerminator(payload: Buffer): boolean {
  return payload[0] === 0xfe && payload.length < 0xffffff;
}

/**
 * Walks a whole response (text or binary rows) and returns what mysql2 decodes, checking along
 * the way that every packet is of the kind the protocol expects where it stands.
 */
export function decodeResponse(payloads: readonly Buffer[], capabilities: number, o: { binary?: boolean } = {}): Decoded[] {
  const deprecateEof = (capabilities & CLIENT_DEPRECATE_EOF) !== 0;
  const out: Decoded[] = [];
  let i = 0;
  const next = (what: string): Buffer => {
    const p = payloads[i++];
    if (p === undefined) throw new Error(`response ended where mysql2 expects ${what}`);
    return p;
  };
  for (;;) {
    const first = next('a response');
    if (first[0] === 0xff) {
      out.push({ kind: 'error', ...decodeErr(first) });
      break;
    }
    if (first[0] === 0x00) {
      const ok = decodeOk(first, capabilities);
      out.push({ kind: 'ok', ok });
      if (ok.serverStatus & SERVER_MORE_RESULTS_EXISTS) continue;
      break;
    }
    const header = new ResultSetHeader(packetOf(first), connectionFor(capabilities));
    const fields: Mysql2Field[] = [];
    for (let k = 0; k < header.fieldCount; k++) fields.push(decodeColumn(next('a column definition')));
    if (!deprecateEof) {
      const eof = packetOf(next('the EOF after the columns'));
      if (!eof.isEOF()) throw new Error('mysql2 expects an EOF packet after the column definitions');
    }
    const parser = o.binary
      ? new (getBinaryParser(fields, { ...ROW_OPTIONS }, mysql2Config))()
      : new (getTextParser(fields, { ...ROW_OPTIONS }, mysql2Config))(fields);
    const rows: unknown[][] = [];
    let status: number;
    let warnings: number;
    let terminatorOk: Mysql2Ok | undefined;
    for (;;) {
      const payload = next('a row or the terminator');
      const p = packetOf(payload);
      if (p.isError()) {
        out.push({ kind: 'resultset', fields, rows, status: 0, warnings: 0 });
        out.push({ kind: 'error', ...decodeErr(payload) });
        return finish(out, payloads, i);
      }
      if (deprecateEof ? isOkTerminator(payload) : p.isEOF()) {
        if (deprecateEof) {
          terminatorOk = decodeOk(payload, capabilities);
          status = terminatorOk.serverStatus;
          warnings = terminatorOk.warningStatus;
        } else {
          if (payload.length !== 5) throw new Error(`an EOF packet of ${payload.length} bytes (5 expected under PROTOCOL_41)`);
          status = p.eofStatusFlags();
          warnings = p.eofWarningCount();
        }
        // mysql2's own row loop sees the same packet as EOF (it checks 0xFE and length < 13)
        if (!p.isEOF()) throw new Error('mysql2 does not see the result-set terminator as an EOF');
        break;
      }
      const row = parser.next(p, fields, ROW_OPTIONS);
      if (p.offset !== p.end) throw new Error(`row has ${p.end - p.offset} bytes mysql2 did not read`);
      rows.push(row);
    }
    out.push({ kind: 'resultset', fields, rows, status, warnings, ...(terminatorOk ? { terminatorOk } : {}) });
    if (status & SERVER_MORE_RESULTS_EXISTS) continue;
    break;
  }
  return finish(out, payloads, i);
}

function finish(out: Decoded[], payloads: readonly Buffer[], i: number): Decoded[] {
  if (i !== payloads.length) throw new Error(`${payloads.length - i} packets after the end of the response`);
  return out;
}

/** COM_STMT_PREPARE_OK and its parameter and column blocks, as mysql2's Prepare command reads them. */
export function decodePrepareOk(payloads: readonly Buffer[], capabilities: number): { header: Mysql2PrepareHeader; params: Mysql2Field[]; columns: Mysql2Field[] } {
  const deprecateEof = (capabilities & CLIENT_DEPRECATE_EOF) !== 0;
  let i = 0;
  const next = (what: string): Buffer => {
    const p = payloads[i++];
    if (p === undefined) throw new Error(`PREPARE_OK ended where mysql2 expects ${what}`);
    return p;
  };
  const header = new PreparedStatementHeader(packetOf(next('the header')));
  const block = (n: number, what: string): Mysql2Field[] => {
    const fields: Mysql2Field[] = [];
    for (let k = 0; k < n; k++) fields.push(decodeColumn(next(what)));
    if (n > 0 && !deprecateEof && !packetOf(next(`the EOF after the ${what}s`)).isEOF()) throw new Error(`mysql2 expects EOF after the ${what}s`);
    return fields;
  };
  const params = block(header.parameterCount, 'parameter definition');
  const columns = block(header.fieldCount, 'column definition');
  if (i !== payloads.length) throw new Error(`${payloads.length - i} packets after PREPARE_OK`);
  return { header, params, columns };
}
