/**
 * Reads Paimon data files in Avro (`file.format = avro`; `AvroSchemaConverter` layout): the
 * same columns as the Parquet files, in an Avro object container. Streamed block by block
 * from a local file (a remote file is first copied through the FileIO), so memory holds one
 * block (~64 KB compressed) at a time. Block codecs and the record decoder are the metadata
 * reader's (objects-file.ts, avro-schemas.ts). Columns are matched by name.
 *
 * Value mapping: int/long/float/double/boolean/string as is (long as bigint); bytes as bytes;
 * decimal bytes (two's complement, big-endian) to Decimal; date days; time-millis; timestamp /
 * local-timestamp millis or micros to Timestamp; arrays; string-keyed maps (objects) and
 * array-maps (arrays of {key, value} records, used for non-string keys) to pairs; records to rows.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { PaimonError } from '../errors.js';
import { Decimal, Timestamp } from '../spec/binary-row.js';
import { avroType } from '../spec/avro-schemas.js';
import { readBlocks, readHeader, type ObjectsFileHeader } from '../spec/objects-file.js';
import { VarintReader } from '../spec/varint.js';
import type { DataFieldSpec, FieldType } from './field-type.js';
import type { Datum } from './internal-row.js';
import type { ColumnBatch } from './parquet-reader.js';

type AvroSchemaNode = string | { type: unknown; logicalType?: string; items?: unknown; values?: unknown; fields?: Array<{ name: string; type: unknown }> } | unknown[];

function unwrapNullable(s: unknown): unknown {
  if (Array.isArray(s)) {
    const nonNull = s.filter((x) => x !== 'null');
    return nonNull.length === 1 ? nonNull[0] : s;
  }
  return s;
}

function logicalTypeOf(s: unknown): string | undefined {
  const u = unwrapNullable(s);
  return typeof u === 'object' && u !== null && !Array.isArray(u) ? (u as { logicalType?: string }).logicalType : undefined;
}

function bytesOf(v: unknown): Buffer {
  if (Buffer.isBuffer(v)) return Buffer.from(v);
  if (v && typeof v === 'object' && 'toBuffer' in v) return Buffer.from((v as { toBuffer(): Buffer }).toBuffer());
  if (v instanceof Uint8Array) return Buffer.from(v);
  throw new PaimonError('CORRUPT_METADATA', `expected Avro bytes, got ${typeof v}`);
}

function twosComplement(b: Buffer): bigint {
  if (b.length === 0) return 0n;
  let v = BigInt(`0x${b.toString('hex')}`);
  if (b[0] & 0x80) v -= 1n << BigInt(b.length * 8);
  return v;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

type Conv = (v: unknown) => Datum;

/** A converter from the decoded Avro value to our value, for a Paimon type and the file's Avro schema. */
function converter(t: FieldType, avro: unknown): Conv {
  const nn = (f: (v: unknown) => Datum): Conv => (v) => (v === null || v === undefined ? null : f(v));
  const schema = unwrapNullable(avro) as AvroSchemaNode;
  switch (t.root) {
    case 'BOOLEAN': case 'FLOAT': case 'DOUBLE': case 'CHAR': case 'VARCHAR':
      return nn((v) => v as Datum);
    case 'TINYINT': case 'SMALLINT': case 'INT': case 'DATE': case 'TIME':
      return nn((v) => Number(v));
    case 'BIGINT':
      return nn((v) => (typeof v === 'bigint' ? v : BigInt(v as number)));
    case 'BINARY': case 'VARBINARY':
      return nn((v) => bytesOf(v));
    case 'DECIMAL':
      return nn((v) => new Decimal(twosComplement(bytesOf(v)), t.precision!, t.scale!));
    case 'TIMESTAMP': case 'TIMESTAMP_LTZ': {
      const micros = (logicalTypeOf(avro) ?? '').endsWith('micros');
      return nn((v) => {
        const n = typeof v === 'bigint' ? v : BigInt(v as number);
        if (!micros) return new Timestamp(n, 0);
        const ms = floorDiv(n, 1000n);
        return new Timestamp(ms, Number(n - ms * 1000n) * 1000);
      });
    }
    case 'ARRAY': {
      const items = typeof schema === 'object' && !Array.isArray(schema) ? schema.items : undefined;
      const e = converter(t.element, items);
      return nn((v) => (v as unknown[]).map(e));
    }
    case 'MAP': case 'MULTISET': {
      const keyT: FieldType = t.root === 'MAP' ? t.key : t.element;
      const valT: FieldType = t.root === 'MAP' ? t.value : { root: 'INT', nullable: false };
      const node = typeof schema === 'object' && !Array.isArray(schema) ? schema : undefined;
      if (node && node.type === 'array') {
        // array-map: [{key, value}] records for non-string keys
        const rec = unwrapNullable(node.items) as { fields?: Array<{ name: string; type: unknown }> };
        const kf = rec.fields?.find((f) => f.name === 'key');
        const vf = rec.fields?.find((f) => f.name === 'value');
        const k = converter(keyT, kf?.type), val = converter(valT, vf?.type);
        return nn((v) => (v as Array<{ key: unknown; value: unknown }>).map((e) => [k(e.key), val(e.value)] as [Datum, Datum]));
      }
      const k = converter(keyT, 'string'), val = converter(valT, node?.values);
      return nn((v) => Object.entries(v as Record<string, unknown>).map(([a, b]) => [k(a), val(b)] as [Datum, Datum]));
    }
    case 'ROW': {
      const node = typeof schema === 'object' && !Array.isArray(schema) ? schema : undefined;
      const convs = t.fields.map((f) => [f.name, converter(f.type, node?.fields?.find((x) => x.name === f.name)?.type)] as const);
      return nn((v) => convs.map(([name, c]) => c((v as Record<string, unknown>)[name] ?? null)));
    }
    default:
      throw new PaimonError('UNSUPPORTED_FORMAT', `reading ${t.root} from Avro data files is not supported`);
  }
}

async function readAt(fh: FileHandle, pos: number, len: number): Promise<Buffer> {
  const buf = Buffer.alloc(len);
  const { bytesRead } = await fh.read(buf, 0, len, pos);
  return buf.subarray(0, bytesRead);
}

class BlockHeaderVarints extends VarintReader {
  protected override truncated(): PaimonError {
    return new PaimonError('CORRUPT_METADATA', 'truncated Avro block header');
  }
}

const NO_BYTES = Buffer.alloc(0);
const BLOCK_HEADER_VARINTS = new BlockHeaderVarints(NO_BYTES);

function varint(buf: Buffer, pos: number): { value: number; next: number } {
  const r = BLOCK_HEADER_VARINTS;
  r.buf = buf;
  r.pos = pos;
  try {
    const value = r.int();
    return { value, next: r.pos };
  } finally {
    r.buf = NO_BYTES; // the cursor keeps no block alive
  }
}

/** Streams the rows of a local Avro data file column-wise over `fields`, in file order. */
export async function* readAvroColumns(local: string, fields: readonly DataFieldSpec[], what: string): AsyncGenerator<ColumnBatch> {
  const fh = await open(local, 'r');
  try {
    const size = (await fh.stat()).size;
    let head = await readAt(fh, 0, Math.min(size, 65536));
    let header: ObjectsFileHeader | null = null;
    while (header === null) {
      try {
        header = readHeader(head, what);
      } catch (e) {
        if (head.length >= size) throw e;
        head = await readAt(fh, 0, Math.min(size, head.length * 4));
      }
    }
    const headerBytes = head.subarray(0, header.dataStart);
    const fileSchema = JSON.parse(header.schema) as { fields?: Array<{ name: string; type: unknown }> };
    const type = avroType(header.schema);
    const convs = fields.map((f) => {
      const af = fileSchema.fields?.find((x) => x.name === f.name);
      return af ? converter(f.type, af.type) : null;
    });
    let pos = header.dataStart;
    while (pos < size) {
      const pre = await readAt(fh, pos, 20);
      const count = varint(pre, 0);
      const len = varint(pre, count.next);
      const blockLen = len.next + len.value + 16;
      const block = await readAt(fh, pos, blockLen);
      if (block.length < blockLen) throw new PaimonError('CORRUPT_METADATA', `${what}: truncated Avro block at offset ${pos}`);
      pos += blockLen;
      // decode this one block with the metadata reader's codecs: header + block as a tiny file
      for (const { count: n, data } of readBlocks(Buffer.concat([headerBytes, block]), what, header)) {
        const columns: Datum[][] = fields.map(() => new Array(n));
        let off = 0;
        for (let r = 0; r < n; r++) {
          const res = type.decode(data, off);
          if (res.offset < 0) throw new PaimonError('CORRUPT_METADATA', `${what}: truncated Avro record`);
          off = res.offset;
          const rec = res.value as Record<string, unknown>;
          for (let c = 0; c < fields.length; c++) {
            const conv = convs[c];
            columns[c][r] = conv ? conv(rec[fields[c].name] ?? null) : null;
          }
        }
        yield { rowCount: n, columns };
      }
    }
  } finally {
    await fh.close();
  }
}
