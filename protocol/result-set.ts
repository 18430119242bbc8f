/**
 * Column definitions (Protocol::ColumnDefinition41) and text result sets
 * (Protocol::Text::ResultsetRow), for results the proxy produces itself. Forwarded results
 * are never decoded; see response-tracker.ts.
 */
import { BufferReader } from './buffer-reader.js';
import { BufferWriter } from './buffer-writer.js';
import { CLIENT_DEPRECATE_EOF, SERVER_MORE_RESULTS_EXISTS } from './constants.js';
import { buildEof, buildOk } from './generic-response.js';
import { encodePacket } from './packet.js';

export interface ColumnDefinition {
  schema: string;
  table: string;
  orgTable: string;
  name: string;
  orgName: string;
  characterSet: number;
  columnLength: number;
  type: number;
  flags: number;
  decimals: number;
  /** Only in COM_FIELD_LIST responses. */
  defaultValue?: string;
}

export function buildColumnDefinition(c: ColumnDefinition): Buffer {
  const w = new BufferWriter(64);
  w.lenencString('def')
    .lenencString(c.schema)
    .lenencString(c.table)
    .lenencString(c.orgTable)
    .lenencString(c.name)
    .lenencString(c.orgName)
    .lenenc(0x0c)
    .u16(c.characterSet)
    .u32(c.columnLength)
    .u8(c.type)
    .u16(c.flags)
    .u8(c.decimals)
    .u16(0);
  if (c.defaultValue !== undefined) w.lenencString(c.defaultValue);
  return w.finish();
}

export function parseColumnDefinition(payload: Buffer): ColumnDefinition {
  const r = new BufferReader(payload);
  r.lenencString(); // catalog, always "def"
  const schema = r.lenencString();
  const table = r.lenencString();
  const orgTable = r.lenencString();
  const name = r.lenencString();
  const orgName = r.lenencString();
  const fixed = r.lenenc() ?? 0;
  const start = r.offset;
  const characterSet = r.u16();
  const columnLength = r.u32();
  const type = r.u8();
  const flags = r.u16();
  const decimals = r.u8();
  r.offset = start + fixed;
  const c: ColumnDefinition = { schema, table, orgTable, name, orgName, characterSet, columnLength, type, flags, decimals };
  if (r.remaining > 0) c.defaultValue = r.lenencString();
  return c;
}

/** One text-protocol row: each value a string<lenenc>, NULL as 0xFB. */
export function buildTextRow(values: readonly (string | Buffer | null)[]): Buffer {
  const w = new BufferWriter(16 * values.length + 8);
  for (const v of values) {
    if (v === null) w.u8(0xfb);
    else if (typeof v === 'string') w.lenencString(v);
    else w.lenencBytes(v);
  }
  return w.finish();
}

export function parseTextRow(payload: Buffer, columns: number): (string | null)[] {
  const r = new BufferReader(payload);
  const out: (string | null)[] = [];
  for (let i = 0; i < columns; i++) {
    const b = r.lenencBytes();
    out.push(b === null ? null : b.toString('utf8'));
  }
  return out;
}

export interface ResultSetOptions {
  /** The session's effective capabilities (decides EOF vs OK terminators). */
  capabilities: number;
  /** Status flags for the terminator; SERVER_MORE_RESULTS_EXISTS is set or cleared by `moreResults`. */
  statusFlags: number;
  moreResults: boolean;
  warnings?: number;
}

/**
 * Encodes a complete text result set as payloads: column count, column definitions, EOF
 * (unless CLIENT_DEPRECATE_EOF), rows, then EOF or the 0xFE-headed OK terminator.
 */
export function textResultSetPayloads(
  columns: readonly ColumnDefinition[],
  rows: Iterable<readonly (string | Buffer | null)[]>,
  o: ResultSetOptions,
): Buffer[] {
  const deprecateEof = (o.capabilities & CLIENT_DEPRECATE_EOF) !== 0;
  const status = o.moreResults ? o.statusFlags | SERVER_MORE_RESULTS_EXISTS : o.statusFlags & ~SERVER_MORE_RESULTS_EXISTS;
  const out: Buffer[] = [new BufferWriter(9).lenenc(columns.length).finish()];
  for (const c of columns) out.push(buildColumnDefinition(c));
  if (!deprecateEof) out.push(buildEof({ warnings: 0, statusFlags: status & ~SERVER_MORE_RESULTS_EXISTS }));
  for (const row of rows) {
    if (row.length !== columns.length) throw new RangeError(`row has ${row.length} values for ${columns.length} columns`);
    out.push(buildTextRow(row));
  }
  out.push(
    deprecateEof
      ? buildOk(o.capabilities, { asEof: true, statusFlags: status, warnings: o.warnings ?? 0 })
      : buildEof({ warnings: o.warnings ?? 0, statusFlags: status }),
  );
  return out;
}

/** Frames consecutive payloads of one response starting at `seq`; returns the bytes and the next seq. */
export function framePayloads(payloads: readonly Buffer[], seq: number): { bytes: Buffer; nextSeq: number } {
  const parts: Buffer[] = [];
  for (const p of payloads) {
    const framed = encodePacket(p, seq);
    parts.push(framed);
    seq = (seq + Math.floor(p.length / 0xffffff) + 1) & 0xff;
  }
  return { bytes: parts.length === 1 ? parts[0] : Buffer.concat(parts), nextSeq: seq };
}
