/**
 * The Avro schemas of Paimon's metadata files, spelled as `AvroSchemaConverter` derives them from
 * `VersionedObjectSerializer.versionType(X.SCHEMA)` in Paimon 1.4 (and 2.0, which only adds
 * `_SOURCE_META` to the global-index record):
 *   - top-level record `org.apache.paimon.avro.generated.record`, nested records named
 *     `<parent>_<field name>` (so `record__FILE`, `record__FILE__KEY_STATS`), array items take the
 *     array field's row name;
 *   - nullable types become `["null", T]` (null first: Paimon's reader takes branch 1 as the value)
 *     with `"default": null`; non-null fields have no default;
 *   - TINYINT/SMALLINT/INT -> int, BIGINT -> long, STRING -> string, BYTES -> bytes,
 *     TIMESTAMP(3) -> long with logicalType timestamp-millis.
 * Readers match fields by name, so writing the newest shape stays readable by Paimon 1.0-1.3.
 */
import avro from 'avsc';
import { VarintReader, writeVarLong } from './varint.js';

export type AvroSchema = Record<string, unknown> | string | unknown[];

const NS = 'org.apache.paimon.avro.generated';
const TOP = `${NS}.record`;

function nullable(t: AvroSchema): unknown[] {
  return ['null', t];
}

function field(name: string, type: AvroSchema, isNullable = false): Record<string, unknown> {
  return isNullable ? { name, type: nullable(type), default: null } : { name, type };
}

/** `SimpleStats.SCHEMA` as a (non-null) nested record. */
function simpleStats(recordName: string): Record<string, unknown> {
  return {
    type: 'record',
    name: recordName,
    fields: [
      field('_MIN_VALUES', 'bytes'),
      field('_MAX_VALUES', 'bytes'),
      field('_NULL_COUNTS', { type: 'array', items: nullable('long') }, true),
    ],
  };
}

const STRING_ARRAY = { type: 'array', items: 'string' };

/** `DataFileMeta.SCHEMA` (20 fields, 1.3+). */
function dataFileMeta(recordName: string): Record<string, unknown> {
  return {
    type: 'record',
    name: recordName,
    fields: [
      field('_FILE_NAME', 'string'),
      field('_FILE_SIZE', 'long'),
      field('_ROW_COUNT', 'long'),
      field('_MIN_KEY', 'bytes'),
      field('_MAX_KEY', 'bytes'),
      field('_KEY_STATS', simpleStats(`${recordName}__KEY_STATS`)),
      field('_VALUE_STATS', simpleStats(`${recordName}__VALUE_STATS`)),
      field('_MIN_SEQUENCE_NUMBER', 'long'),
      field('_MAX_SEQUENCE_NUMBER', 'long'),
      field('_SCHEMA_ID', 'long'),
      field('_LEVEL', 'int'),
      field('_EXTRA_FILES', STRING_ARRAY),
      field('_CREATION_TIME', { type: 'long', logicalType: 'timestamp-millis' }, true),
      field('_DELETE_ROW_COUNT', 'long', true),
      field('_EMBEDDED_FILE_INDEX', 'bytes', true),
      field('_FILE_SOURCE', 'int', true),
      field('_VALUE_STATS_COLS', STRING_ARRAY, true),
      field('_EXTERNAL_PATH', 'string', true),
      field('_FIRST_ROW_ID', 'long', true),
      field('_WRITE_COLS', STRING_ARRAY, true),
    ],
  };
}

/** Manifest file: `_VERSION` (2) + `ManifestEntry.SCHEMA`. */
export const MANIFEST_ENTRY_SCHEMA: Record<string, unknown> = {
  type: 'record',
  name: TOP,
  fields: [
    field('_VERSION', 'int'),
    field('_KIND', 'int'),
    field('_PARTITION', 'bytes'),
    field('_BUCKET', 'int'),
    field('_TOTAL_BUCKETS', 'int'),
    field('_FILE', dataFileMeta(`${TOP}__FILE`)),
  ],
};

/** Manifest list: `_VERSION` (2) + `ManifestFileMeta.SCHEMA` (12 fields, 1.4+). */
export const MANIFEST_FILE_META_SCHEMA: Record<string, unknown> = {
  type: 'record',
  name: TOP,
  fields: [
    field('_VERSION', 'int'),
    field('_FILE_NAME', 'string'),
    field('_FILE_SIZE', 'long'),
    field('_NUM_ADDED_FILES', 'long'),
    field('_NUM_DELETED_FILES', 'long'),
    field('_PARTITION_STATS', simpleStats(`${TOP}__PARTITION_STATS`)),
    field('_SCHEMA_ID', 'long'),
    field('_MIN_BUCKET', 'int', true),
    field('_MAX_BUCKET', 'int', true),
    field('_MIN_LEVEL', 'int', true),
    field('_MAX_LEVEL', 'int', true),
    field('_MIN_ROW_ID', 'long', true),
    field('_MAX_ROW_ID', 'long', true),
  ],
};

/** Index manifest: `_VERSION` (1) + `IndexManifestEntry.SCHEMA` (1.4; `_SOURCE_META` from 2.0). */
export const INDEX_MANIFEST_ENTRY_SCHEMA: Record<string, unknown> = {
  type: 'record',
  name: TOP,
  fields: [
    field('_VERSION', 'int'),
    field('_KIND', 'int'),
    field('_PARTITION', 'bytes'),
    field('_BUCKET', 'int'),
    field('_INDEX_TYPE', 'string'),
    field('_FILE_NAME', 'string'),
    field('_FILE_SIZE', 'long'),
    field('_ROW_COUNT', 'long'),
    field(
      '_DELETIONS_VECTORS_RANGES',
      {
        type: 'array',
        items: nullable({
          type: 'record',
          name: `${TOP}__DELETIONS_VECTORS_RANGES`,
          fields: [field('f0', 'string'), field('f1', 'int'), field('f2', 'int'), field('_CARDINALITY', 'long', true)],
        }),
      },
      true,
    ),
    field('_EXTERNAL_PATH', 'string', true),
    field(
      '_GLOBAL_INDEX',
      {
        type: 'record',
        name: `${TOP}__GLOBAL_INDEX`,
        fields: [
          field('_ROW_RANGE_START', 'long'),
          field('_ROW_RANGE_END', 'long'),
          field('_INDEX_FIELD_ID', 'int'),
          field('_EXTRA_FIELD_IDS', { type: 'array', items: 'int' }, true),
          field('_INDEX_META', 'bytes', true),
          field('_SOURCE_META', 'bytes', true),
        ],
      },
      true,
    ),
  ],
};

/** `_VERSION` values Paimon's readers accept (`VersionedObjectSerializer.getVersion`). */
export const MANIFEST_ENTRY_VERSION = 2;
export const MANIFEST_FILE_META_VERSION = 2;
export const INDEX_MANIFEST_ENTRY_VERSION = 1;

interface AvroTap {
  buf: Buffer;
  pos: number;
}

/**
 * Under avsc a value cut off by the end of the buffer is not an error of its own: the tap's position
 * is left past the end and avsc reports the truncation itself.
 */
class TapVarints extends VarintReader {
  protected override truncated(): Error {
    return TAP_TRUNCATED;
  }
}

const TAP_TRUNCATED = new Error('truncated');
const NO_BYTES = Buffer.alloc(0);
const TAP_VARINTS = new TapVarints(NO_BYTES);

function readBigLong(tap: AvroTap): bigint {
  const r = TAP_VARINTS;
  r.buf = tap.buf;
  r.pos = tap.pos;
  let v = 0n;
  try {
    v = r.long();
    tap.pos = r.pos;
  } catch {
    tap.pos = tap.buf.length + 1;
  }
  r.buf = NO_BYTES; // the cursor keeps no block alive
  return v;
}

function writeBigLong(tap: AvroTap, val: unknown): void {
  if (typeof val !== 'bigint' || val < -(1n << 63n) || val >= 1n << 63n) {
    throw new Error(`invalid "long": ${typeof val === 'bigint' ? `${val}n` : String(val)}`);
  }
  tap.pos = writeVarLong(tap.buf, tap.pos, val);
}

/** Avro `long` as JS bigint (sequence numbers, sizes and row ids can pass 2^53). */
export const BIGINT_LONG: avro.types.LongType = (() => {
  const base = avro.types.LongType.__with(
    {
      fromBuffer: (buf: Buffer) => buf.readBigInt64LE(),
      toBuffer: (n: bigint) => {
        const buf = Buffer.alloc(8);
        buf.writeBigInt64LE(n);
        return buf;
      },
      fromJSON: (v: unknown) => BigInt(v as string),
      toJSON: (n: bigint) => Number(n),
      isValid: (n: unknown) => typeof n === 'bigint',
      compare: (a: bigint, b: bigint) => (a === b ? 0 : a < b ? -1 : 1),
    },
    true,
  );
  // Direct varint codecs instead of the generic unpack-to-8-bytes path (a hot spot: ~10 longs per
  // manifest entry). The base object is frozen, so the overrides are defined on a child.
  const fast = Object.create(base) as avro.types.LongType;
  Object.defineProperty(fast, '_read', { value: readBigLong });
  Object.defineProperty(fast, '_write', { value: writeBigLong });
  return fast;
})();

/**
 * An Avro `bytes` value as decoded from a metadata file: a range of the decoded block, not a copy.
 * A Buffer of its own for every `_PARTITION`/`_MIN_KEY`/stats field would make garbage collection
 * the dominant cost of reading large manifests.
 */
export class AvroBytes {
  constructor(
    readonly buf: Buffer,
    readonly offset: number,
    readonly length: number,
  ) {}

  /** A view of the bytes. */
  toBuffer(): Buffer {
    return this.buf.subarray(this.offset, this.offset + this.length);
  }
}

/** A decoded `bytes` value (our reader yields AvroBytes; records built in memory hold Buffers). */
export function avroBytesToBuffer(v: unknown): Buffer | null {
  if (v === null || v === undefined) return null;
  if (v instanceof AvroBytes) return v.toBuffer();
  if (Buffer.isBuffer(v)) return v;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  throw new Error(`not Avro bytes: ${typeof v}`);
}

interface AvroReadTap extends AvroTap {
  readLong(): number;
  _invalidate(): void;
}

const BYTES_REF: avro.Type = (() => {
  const base = avro.Type.forSchema('bytes');
  const t = Object.create(base) as avro.Type;
  Object.defineProperty(t, '_read', {
    value(tap: AvroReadTap): AvroBytes | undefined {
      const len = tap.readLong();
      if (len < 0) {
        tap._invalidate();
        return undefined;
      }
      const pos = tap.pos;
      tap.pos += len;
      return tap.pos > tap.buf.length ? undefined : new AvroBytes(tap.buf, pos, len);
    },
  });
  // Writing accepts Buffers (records we build) and AvroBytes (records copied from a file).
  const baseWrite = (base as unknown as { _write(tap: AvroTap, v: unknown): void })._write;
  Object.defineProperty(t, '_write', {
    value(tap: AvroTap, v: unknown): void {
      baseWrite.call(base, tap, v instanceof AvroBytes ? v.toBuffer() : v);
    },
  });
  return t;
})();

const typeCache = new Map<string, avro.Type>();

/** An avsc type for a schema, with longs as bigint. Cached by schema JSON (files share few schemas). */
export function avroType(schema: AvroSchema): avro.Type {
  const key = typeof schema === 'string' ? schema : JSON.stringify(schema);
  let t = typeCache.get(key);
  if (!t) {
    const parsed: avro.Schema = typeof schema === 'string' ? (JSON.parse(schema) as avro.Schema) : (schema as avro.Schema);
    // Every long, also the annotated `{"type":"long","logicalType":"timestamp-millis"}`, as bigint.
    t = avro.Type.forSchema(parsed, {
      wrapUnions: false,
      typeHook: (s: avro.Schema) => {
        const name = typeof s === 'string' ? s : typeof s === 'object' && s !== null ? (s as { type?: unknown }).type : undefined;
        if (name === 'long') return BIGINT_LONG;
        if (name === 'bytes' && !(typeof s === 'object' && (s as { logicalType?: unknown }).logicalType)) return BYTES_REF;
        return undefined;
      },
    });
    if (typeCache.size > 64) typeCache.clear();
    typeCache.set(key, t);
  }
  return t;
}
