/**
 * The Parquet engine: DuckDB's Node API, in-process (chosen by measurement, see
 * bench/parquet-engines.ts). DuckDB reads and writes only local files here (its httpfs
 * extension cannot be downloaded), so remote objects are streamed through our FileIO to a
 * local temporary file and back; nothing is ever held in memory whole.
 *
 * This module maps Paimon types to DuckDB column types and JS values both ways, and builds
 * the FIELD_IDS clause that gives every Parquet column Paimon's field id.
 */
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  DuckDBBlobValue,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBInstance,
  DuckDBListValue,
  DuckDBMapValue,
  DuckDBStructValue,
  DuckDBTimeValue,
  DuckDBTimeTZValue,
  DuckDBTimestampMillisecondsValue,
  DuckDBTimestampNanosecondsValue,
  DuckDBTimestampSecondsValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  type DuckDBConnection,
  type DuckDBValue,
} from '@duckdb/node-api';
import { PaimonError } from '../errors.js';
import { processTempDirName, sweepDeadProcessDirs } from '../fs/process-temp-dir.js';
import { Decimal, Timestamp } from '../spec/binary-row.js';
import type { DataFieldSpec, FieldType } from './field-type.js';
import { typeToString } from './field-type.js';
import type { Datum } from './internal-row.js';
import { arrayElementFieldId, mapKeyFieldId, mapValueFieldId } from './data-file-layout.js';
import { VARIANT_DUCK_TYPE, variantFieldIdSpec, variantFromDuck, variantToDuck } from './variant-parquet.js';

export interface DataEngineConfig {
  /** DuckDB's memory limit, e.g. "512MB". DuckDB spills to tempDir beyond it. */
  memoryLimit: string;
  /** Worker threads inside DuckDB. */
  threads: number;
  /**
   * Local parent directory for temporary copies of remote files, spill files and files being
   * written; this process works in its own `paimon-data-<pid>` directory below it.
   */
  tempDir: string;
}

let config: DataEngineConfig = {
  memoryLimit: process.env.PAIMON_DATA_MEMORY_LIMIT ?? '512MB',
  threads: Number(process.env.PAIMON_DATA_THREADS ?? 2),
  tempDir: process.env.PAIMON_DATA_TMP ?? tmpdir(),
};
let instance: Promise<DuckDBInstance> | null = null;

/** Sets the engine's limits; takes effect for the instance created next (call before first use). */
export function configureDataEngine(c: Partial<DataEngineConfig>): void {
  config = { ...config, ...c };
}

export function dataEngineConfig(): DataEngineConfig {
  return config;
}

function privateTempDir(): string {
  return join(config.tempDir, processTempDirName(TEMP_DIR_PREFIX));
}

const TEMP_DIR_PREFIX = 'paimon-data';
let staleSwept = false;

/** This process's private temporary directory (created on demand; the first call sweeps dead processes' ones). */
export function dataTempDir(): string {
  const dir = privateTempDir();
  if (!staleSwept) {
    staleSwept = true;
    // A process killed in the middle of a compaction leaves its spill and partial local files.
    sweepDeadProcessDirs(config.tempDir, TEMP_DIR_PREFIX);
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

async function createInstance(): Promise<DuckDBInstance> {
  const dir = dataTempDir();
  return DuckDBInstance.create(':memory:', {
    threads: String(config.threads),
    memory_limit: config.memoryLimit,
    temp_directory: join(dir, 'duckdb-spill'),
    // No extension may be fetched: this process only ever reads local Parquet files.
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
}

/** Opens connections to a DuckDB instance: the process's shared one, or one opened for a single job. */
export interface DataEngine {
  connect(): Promise<DuckDBConnection>;
}

export async function connectDuckDB(engine?: DataEngine | null): Promise<DuckDBConnection> {
  if (engine) return engine.connect();
  if (!instance) instance = createInstance();
  return (await instance).connect();
}

/** A DuckDB instance of its own for one job (a compaction), with its own memory limit. */
export interface PrivateDataEngine extends DataEngine {
  readonly memoryLimitBytes: number;
  /** Closes the instance and removes its spill directory. */
  close(): Promise<void>;
}

/**
 * Opens a DuckDB instance whose memory (buffer manager: temporary tables of the files being
 * written, sorts) is limited to `memoryLimitBytes`, spilling to its own directory under this
 * process's temporary directory; `threads` defaults to the engine's setting. Each job that must
 * stay within a memory budget gets one, so that its limit does not change the shared instance's.
 */
export async function openDataEngine(o: { memoryLimitBytes: number; threads?: number }): Promise<PrivateDataEngine> {
  const spill = join(dataTempDir(), `duckdb-spill-${randomUUID()}`);
  const limit = Math.max(8 << 20, Math.floor(o.memoryLimitBytes));
  const inst = await DuckDBInstance.create(':memory:', {
    threads: String(Math.max(1, o.threads ?? config.threads)),
    memory_limit: `${Math.floor(limit / 1024)}KiB`,
    temp_directory: spill,
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  let closed = false;
  return {
    memoryLimitBytes: limit,
    connect: () => {
      if (closed) throw new PaimonError('INVALID_ARGUMENT', 'data engine already closed');
      return inst.connect();
    },
    close: async () => {
      if (closed) return;
      closed = true;
      inst.closeSync();
      await rm(spill, { recursive: true, force: true });
    },
  };
}

/**
 * Closes the shared instance (tests, shutdown) and removes this process's temporary directory
 * (spill files, local copies of remote files, files being written), which no one else uses.
 */
export async function closeDataEngine(): Promise<void> {
  if (instance) {
    const i = await instance;
    instance = null;
    i.closeSync();
  }
  await rm(privateTempDir(), { recursive: true, force: true });
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function quoteLiteral(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** A local filesystem path for `path` when it is one (no scheme, or file:), else null. */
export function localPathOf(path: string): string | null {
  if (path.startsWith('file://')) return decodeURIComponent(path.slice('file://'.length));
  if (path.startsWith('file:')) return path.slice('file:'.length);
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(path)) return null;
  return path;
}

// ---------------------------------------------------------------------------------------
// Paimon type -> DuckDB column type (what we write; ParquetSchemaConverter is the target)
// ---------------------------------------------------------------------------------------

/**
 * The DuckDB type whose Parquet encoding matches Paimon's `ParquetSchemaConverter` for a type.
 * Exceptions, all readable by Paimon (its readers go by the Paimon type, `ParquetVectorUpdaterFactory`):
 * - TIME is written as plain INT32 milliseconds (Paimon: INT32 + TIME(MILLIS)); DuckDB's TIME is INT64 micros.
 * - TIMESTAMP(p<=3) WITH LOCAL TIME ZONE is INT64 millis without the UTC flag (DuckDB has no TIMESTAMPTZ_MS).
 * - DECIMAL(p>18) is a 16-byte FIXED_LEN_BYTE_ARRAY (Paimon uses the minimal length).
 * - Columns are OPTIONAL even when NOT NULL (DuckDB never writes REQUIRED); so are VARIANT's parts.
 * - VARIANT is its unshredded value/metadata group (variant-parquet.ts).
 * Refused: TIMESTAMP(p>6) (Paimon needs INT96, which DuckDB cannot write), BLOB.
 */
export function duckWriteType(t: FieldType, where: string): string {
  switch (t.root) {
    case 'BOOLEAN': return 'BOOLEAN';
    case 'TINYINT': return 'TINYINT';
    case 'SMALLINT': return 'SMALLINT';
    case 'INT': return 'INTEGER';
    case 'BIGINT': return 'BIGINT';
    case 'FLOAT': return 'FLOAT';
    case 'DOUBLE': return 'DOUBLE';
    case 'CHAR': case 'VARCHAR': return 'VARCHAR';
    case 'BINARY': case 'VARBINARY': return 'BLOB';
    case 'DECIMAL': return `DECIMAL(${t.precision}, ${t.scale})`;
    case 'DATE': return 'DATE';
    case 'TIME': return 'INTEGER';
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const p = t.precision ?? 6;
      if (p <= 3) return 'TIMESTAMP_MS';
      if (p <= 6) return t.root === 'TIMESTAMP' ? 'TIMESTAMP' : 'TIMESTAMPTZ';
      throw new PaimonError('UNSUPPORTED_FORMAT', `${where}: ${typeToString(t)} needs Parquet INT96, which this writer cannot produce`);
    }
    case 'ARRAY': return `${duckWriteType(t.element, where)}[]`;
    case 'MULTISET': return `MAP(${duckWriteType(t.element, where)}, INTEGER)`;
    case 'MAP': return `MAP(${duckWriteType(t.key, where)}, ${duckWriteType(t.value, where)})`;
    case 'ROW': return `STRUCT(${t.fields.map((f) => `${quoteIdent(f.name)} ${duckWriteType(f.type, where)}`).join(', ')})`;
    case 'VARIANT': return VARIANT_DUCK_TYPE;
    default:
      throw new PaimonError('UNSUPPORTED_FORMAT', `${where}: writing ${typeToString(t)} to Parquet is not supported`);
  }
}

/** The FIELD_IDS option value: Paimon's field ids, including list elements and map keys/values. */
export function fieldIdsOption(fields: readonly DataFieldSpec[]): string {
  return `{${fields.map((f) => `${quoteLiteral(f.name)}: ${fieldIdSpec(f.type, f.id, f.id, 0)}`).join(', ')}}`;
}

/**
 * FIELD_IDS for the top-level columns only. Metadata files reuse ids inside their nested rows
 * (every row numbers its fields from 0), which DuckDB refuses; Paimon's Parquet reader matches
 * columns by name (`ParquetReaderFactory.clipParquetSchema`), so the nested ids are left out,
 * and so is `_VERSION`'s -1 (DuckDB takes only non-negative ids).
 */
export function topLevelFieldIdsOption(fields: readonly DataFieldSpec[]): string {
  return `{${fields.filter((f) => f.id >= 0).map((f) => `${quoteLiteral(f.name)}: ${f.id}`).join(', ')}}`;
}

function fieldIdSpec(t: FieldType, id: number, parentId: number, depth: number): string {
  switch (t.root) {
    case 'ARRAY':
      return `{__duckdb_field_id: ${id}, element: ${fieldIdSpec(t.element, arrayElementFieldId(parentId, depth + 1), parentId, depth + 1)}}`;
    case 'MAP':
      return `{__duckdb_field_id: ${id}, key: ${fieldIdSpec(t.key, mapKeyFieldId(parentId, depth + 1), parentId, depth + 1)}, value: ${fieldIdSpec(t.value, mapValueFieldId(parentId, depth + 1), parentId, depth + 1)}}`;
    case 'MULTISET':
      return `{__duckdb_field_id: ${id}, key: ${fieldIdSpec(t.element, mapKeyFieldId(parentId, depth + 1), parentId, depth + 1)}, value: ${mapValueFieldId(parentId, depth + 1)}}`;
    case 'ROW':
      // ROW children carry their own DataField ids, at depth 0 (ParquetSchemaConverter.convertToParquetTypes).
      return `{__duckdb_field_id: ${id}, ${t.fields.map((f) => `${quoteLiteral(f.name)}: ${fieldIdSpec(f.type, f.id, f.id, 0)}`).join(', ')}}`;
    case 'VARIANT':
      return variantFieldIdSpec(id);
    default:
      return String(id);
  }
}

// ---------------------------------------------------------------------------------------
// JS values -> DuckDB values (appending rows to be written)
// ---------------------------------------------------------------------------------------

export type ToDuck = (v: Datum) => DuckDBValue;

export function toDuckConverter(t: FieldType): ToDuck {
  const nn = (f: (v: Exclude<Datum, null>) => DuckDBValue): ToDuck => (v) => (v === null || v === undefined ? null : f(v));
  switch (t.root) {
    case 'BOOLEAN': case 'TINYINT': case 'SMALLINT': case 'INT': case 'FLOAT': case 'DOUBLE': case 'TIME':
    case 'CHAR': case 'VARCHAR': case 'BIGINT':
      return (v) => (v === undefined ? null : (v as DuckDBValue));
    case 'BINARY': case 'VARBINARY':
      return nn((v) => new DuckDBBlobValue(v as Uint8Array));
    case 'DECIMAL': {
      const p = t.precision!, s = t.scale!;
      return nn((v) => new DuckDBDecimalValue(rescale(v as Decimal, s), p, s));
    }
    case 'DATE':
      return nn((v) => new DuckDBDateValue(v as number));
    case 'TIMESTAMP': case 'TIMESTAMP_LTZ': {
      const p = t.precision ?? 6;
      if (p <= 3) return nn((v) => new DuckDBTimestampMillisecondsValue((v as Timestamp).millisecond));
      const micros = (ts: Timestamp): bigint => ts.millisecond * 1000n + BigInt(Math.floor(ts.nanoOfMillisecond / 1000));
      if (t.root === 'TIMESTAMP') return nn((v) => new DuckDBTimestampValue(micros(v as Timestamp)));
      return nn((v) => new DuckDBTimestampTZValue(micros(v as Timestamp)));
    }
    case 'ARRAY': {
      const e = toDuckConverter(t.element);
      return nn((v) => new DuckDBListValue((v as Datum[]).map(e)));
    }
    case 'MULTISET': {
      const k = toDuckConverter(t.element);
      return nn((v) => new DuckDBMapValue((v as Array<[Datum, Datum]>).map(([a, b]) => ({ key: k(a), value: b as number }))));
    }
    case 'MAP': {
      const k = toDuckConverter(t.key), val = toDuckConverter(t.value);
      return nn((v) => new DuckDBMapValue((v as Array<[Datum, Datum]>).map(([a, b]) => ({ key: k(a), value: val(b) }))));
    }
    case 'ROW': {
      const convs = t.fields.map((f) => [f.name, toDuckConverter(f.type)] as const);
      return nn((v) => {
        const o: Record<string, DuckDBValue> = {};
        convs.forEach(([name, c], i) => { o[name] = c((v as Datum[])[i]); });
        return new DuckDBStructValue(o);
      });
    }
    case 'VARIANT':
      return variantToDuck;
    default:
      throw new PaimonError('UNSUPPORTED_FORMAT', `writing ${typeToString(t)} to Parquet is not supported`);
  }
}

function rescale(d: Decimal, scale: number): bigint {
  if (d.scale === scale) return d.unscaled;
  if (d.scale < scale) return d.unscaled * 10n ** BigInt(scale - d.scale);
  throw new PaimonError('INVALID_ARGUMENT', `decimal with scale ${d.scale} does not fit scale ${scale}`);
}

// ---------------------------------------------------------------------------------------
// DuckDB values -> JS values (reading), driven by the Paimon type of the column
// ---------------------------------------------------------------------------------------

export type FromDuck = (v: DuckDBValue) => Datum;

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
}

function timestampFromDuck(v: DuckDBValue): Timestamp {
  if (v instanceof DuckDBTimestampMillisecondsValue) return new Timestamp(v.millis, 0);
  if (v instanceof DuckDBTimestampValue || v instanceof DuckDBTimestampTZValue) {
    const ms = floorDiv(v.micros, 1000n);
    return new Timestamp(ms, Number(v.micros - ms * 1000n) * 1000);
  }
  if (v instanceof DuckDBTimestampNanosecondsValue) {
    const ms = floorDiv(v.nanos, 1_000_000n);
    return new Timestamp(ms, Number(v.nanos - ms * 1_000_000n));
  }
  if (v instanceof DuckDBTimestampSecondsValue) return new Timestamp(v.seconds * 1000n, 0);
  if (typeof v === 'bigint') return new Timestamp(v, 0);
  throw new PaimonError('CORRUPT_METADATA', `unexpected timestamp value ${String(v)} in a data file`);
}

export function fromDuckConverter(t: FieldType): FromDuck {
  const nn = (f: (v: Exclude<DuckDBValue, null>) => Datum): FromDuck => (v) => (v === null ? null : f(v));
  switch (t.root) {
    case 'BOOLEAN': case 'FLOAT': case 'DOUBLE': case 'CHAR': case 'VARCHAR':
      return (v) => v as Datum;
    case 'TINYINT': case 'SMALLINT': case 'INT':
      return nn((v) => Number(v));
    case 'BIGINT':
      return nn((v) => (typeof v === 'bigint' ? v : BigInt(v as number)));
    case 'BINARY': case 'VARBINARY': case 'BLOB':
      return nn((v) => (v instanceof DuckDBBlobValue ? v.bytes : (v as unknown as Uint8Array)));
    case 'DECIMAL': {
      const p = t.precision!, s = t.scale!;
      return nn((v) => {
        if (v instanceof DuckDBDecimalValue) {
          const u = v.scale === s ? v.value : v.scale < s ? v.value * 10n ** BigInt(s - v.scale) : v.value / 10n ** BigInt(v.scale - s);
          return new Decimal(u, p, s);
        }
        return new Decimal(BigInt(v as number | bigint), p, s);
      });
    }
    case 'DATE':
      return nn((v) => (v instanceof DuckDBDateValue ? v.days : Number(v)));
    case 'TIME':
      // Paimon writes TIME(MILLIS) INT32 (DuckDB: TIME, micros); we write plain INT32 millis.
      // (DuckDB reads TIME(MILLIS, isAdjustedToUTC=true) as TIME WITH TIME ZONE.)
      return nn((v) =>
        v instanceof DuckDBTimeValue || v instanceof DuckDBTimeTZValue ? Number(floorDiv(BigInt(v.micros), 1000n)) : Number(v),
      );
    case 'TIMESTAMP': case 'TIMESTAMP_LTZ':
      return nn(timestampFromDuck);
    case 'ARRAY': {
      const e = fromDuckConverter(t.element);
      return nn((v) => (v as DuckDBListValue).items.map(e));
    }
    case 'MULTISET': {
      const k = fromDuckConverter(t.element);
      return nn((v) => (v as DuckDBMapValue).entries.map((x) => [k(x.key), Number(x.value)] as [Datum, Datum]));
    }
    case 'MAP': {
      const k = fromDuckConverter(t.key), val = fromDuckConverter(t.value);
      return nn((v) => (v as DuckDBMapValue).entries.map((x) => [k(x.key), val(x.value)] as [Datum, Datum]));
    }
    case 'ROW': {
      const convs = t.fields.map((f) => [f.name, fromDuckConverter(f.type)] as const);
      return nn((v) => {
        const e = (v as DuckDBStructValue).entries;
        return convs.map(([name, c]) => c(e[name] ?? null));
      });
    }
    case 'VARIANT':
      return variantFromDuck;
    default:
      throw new PaimonError('UNSUPPORTED_FORMAT', `reading ${typeToString(t)} from Parquet is not supported`);
  }
}

// ---------------------------------------------------------------------------------------
// Metadata records (the Avro-shaped objects of manifests, manifest lists, index manifests)
// ---------------------------------------------------------------------------------------

/** Bytes as the metadata records hold them: a Buffer, or a view with `toBuffer()` (spec/avro-schemas AvroBytes). */
function recordBytes(v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'object' && v !== null && typeof (v as { toBuffer?: unknown }).toBuffer === 'function') return (v as { toBuffer(): Buffer }).toBuffer();
  throw new PaimonError('INVALID_ARGUMENT', `metadata record: expected bytes, got ${typeof v}`);
}

/**
 * A converter from a metadata record's field value (named fields as objects, longs as bigint,
 * timestamps as epoch-millis bigint, bytes as Buffers) to the DuckDB value of its column.
 */
export function recordToDuckConverter(t: FieldType): (v: unknown) => DuckDBValue {
  const nn = (f: (v: unknown) => DuckDBValue) => (v: unknown): DuckDBValue => (v === null || v === undefined ? null : f(v));
  switch (t.root) {
    case 'TINYINT': case 'SMALLINT': case 'INT':
      return nn((v) => Number(v));
    case 'BIGINT':
      return nn((v) => BigInt(v as number | bigint));
    case 'VARCHAR': case 'CHAR':
      return nn((v) => String(v));
    case 'BINARY': case 'VARBINARY':
      return nn((v) => new DuckDBBlobValue(recordBytes(v)));
    case 'TIMESTAMP':
      return nn((v) => new DuckDBTimestampMillisecondsValue(BigInt(v as number | bigint)));
    case 'ARRAY': {
      const e = recordToDuckConverter(t.element);
      return nn((v) => new DuckDBListValue((v as unknown[]).map(e)));
    }
    case 'ROW': {
      const convs = t.fields.map((f) => [f.name, recordToDuckConverter(f.type)] as const);
      return nn((v) => {
        const o: Record<string, DuckDBValue> = {};
        for (const [name, c] of convs) o[name] = c((v as Record<string, unknown>)[name]);
        return new DuckDBStructValue(o);
      });
    }
    default:
      throw new PaimonError('UNSUPPORTED_FORMAT', `metadata files have no ${typeToString(t)} fields`);
  }
}

/**
 * A DuckDB value read from a metadata file, as the metadata records hold it (the inverse of
 * recordToDuckConverter, driven by the value itself so that files of every version decode).
 */
export function recordFromDuck(v: DuckDBValue): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof DuckDBBlobValue) return Buffer.from(v.bytes.buffer, v.bytes.byteOffset, v.bytes.byteLength);
  if (v instanceof DuckDBStructValue) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v.entries)) o[k] = recordFromDuck(x);
    return o;
  }
  if (v instanceof DuckDBListValue) return v.items.map(recordFromDuck);
  if (v instanceof DuckDBTimestampMillisecondsValue) return v.millis;
  if (v instanceof DuckDBTimestampValue || v instanceof DuckDBTimestampTZValue) return floorDiv(v.micros, 1000n);
  if (v instanceof DuckDBTimestampNanosecondsValue) return floorDiv(v.nanos, 1_000_000n);
  if (v instanceof DuckDBTimestampSecondsValue) return v.seconds * 1000n;
  throw new PaimonError('CORRUPT_METADATA', `unexpected value ${String(v)} in a metadata file`);
}
