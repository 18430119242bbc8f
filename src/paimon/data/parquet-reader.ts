/**
 * Reads Paimon data files as rows, streamed in batches (DuckDB reads the Parquet file in
 * chunks of 2048 rows; nothing holds the whole file). Columns are matched by name against the
 * schema the file was written with, as Paimon Java does (`ParquetReaderFactory.clipParquetSchema`).
 * A file on a remote store is first streamed through the FileIO into a local temporary file.
 *
 * Avro data files are read by avro-data-reader.ts (same columns, same batches); ORC data files
 * are refused with UNSUPPORTED_FORMAT naming the format and the table.
 */
import { createWriteStream } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import type { DuckDBConnection, DuckDBDataChunk, DuckDBValue, DuckDBVector } from '@duckdb/node-api';
import type { FileIO } from '../fs/file-io.js';
import { PaimonError } from '../errors.js';
import type { DataFieldSpec } from './field-type.js';
import type { Datum, InternalRow, KeyValue, RowKindByte } from './internal-row.js';
import { SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD, dataFileLayout, formatFromFileName, formatFromMagic, type TableSchemaLike } from './data-file-layout.js';
import { readAvroColumns } from './avro-data-reader.js';
import { connectDuckDB, dataTempDir, fromDuckConverter, localPathOf, quoteIdent, quoteLiteral, recordFromDuck, type DataEngine } from './duckdb-engine.js';

export interface DataFileReadOptions {
  fileIO: FileIO;
  /** Full path of the data file. */
  path: string;
  /** The schema of the file (`schema/schema-<_SCHEMA_ID>`). */
  schema: TableSchemaLike;
  /** For error messages: `db.table`. */
  table?: string;
  /** Rows per yielded batch (default 4096). */
  batchSize?: number;
  /**
   * The file's deletion vector: rows at positions (0-based, in file order) it marks as deleted
   * are skipped, as Paimon's readers do for deletion-vector tables.
   */
  deletionVector?: { isDeleted(position: number): boolean } | null;
  /** The DuckDB instance to read with (default: the process's shared one). */
  engine?: DataEngine | null;
  /**
   * readKeyValues: convert a record's value row only when it is first read (`kv.value`), so a
   * merge that supersedes most records (deduplicate) never decodes their values. The record then
   * keeps its part of DuckDB's chunk until its value is read or it is dropped.
   */
  lazyValues?: boolean;
}

function fileName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The format of a data file (by extension, else by magic); refuses what cannot be read (ORC), naming the table. */
export async function checkReadableFormat(fileIO: FileIO, path: string, table?: string): Promise<'parquet' | 'avro'> {
  let format = formatFromFileName(fileName(path));
  if (format === null) {
    const head = await fileIO.readRange(path, 0, 4).catch(() => Buffer.alloc(0));
    format = formatFromMagic(head);
  }
  if (format !== 'parquet' && format !== 'avro') {
    const what = table ? `table ${table}` : 'the table';
    throw new PaimonError(
      'UNSUPPORTED_FORMAT',
      `${what} has ${format ?? 'unrecognised'} data files (${fileName(path)}); this proxy reads Parquet and Avro data files only. Use Paimon's own engines (Flink/Spark) for ${format ?? 'this format'}.`,
    );
  }
  return format;
}

/** A local path DuckDB can open for `path`, and how to release it. */
async function localCopy(fileIO: FileIO, path: string): Promise<{ local: string; release: () => Promise<void> }> {
  const local = localPathOf(path);
  if (local !== null) return { local, release: async () => undefined };
  const tmp = join(dataTempDir(), `${randomUUID()}-${fileName(path)}`);
  try {
    await pipeline(await fileIO.openRead(path), createWriteStream(tmp));
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  return { local: tmp, release: () => rm(tmp, { force: true }) };
}

// hive_partitioning = false: Paimon's partition directories (dt=2024-01-01) must never be
// turned into columns by DuckDB; the file's own columns are the truth.
async function fileColumns(conn: DuckDBConnection, local: string): Promise<Set<string>> {
  const r = await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${quoteLiteral(local)}, hive_partitioning = false)`);
  return new Set(r.getRowObjects().map((o) => String(o.column_name)));
}

/** A batch of rows in columnar form: `columns[c][r]`. */
export interface ColumnBatch {
  rowCount: number;
  columns: Datum[][];
}

/**
 * One chunk of a data file being read: `cell(c, r)` converts the value of field c at row r on
 * demand (DuckDB chunk of up to 2048 rows, or an Avro column batch). Valid until the next chunk
 * is asked for.
 */
interface DataChunkView {
  rowCount: number;
  cell(c: number, r: number): Datum;
  /**
   * Rows [from, from + n) as a view of their own. DuckDB's vectors keep every value they have
   * converted until the chunk is dropped; a slice's values are kept only as long as the slice,
   * so records made batch by batch from slices die young (before V8 promotes them).
   */
  slice(from: number, n: number): DataChunkView;
}

function columnsView(columns: Datum[][], rowCount: number, offset = 0): DataChunkView {
  return {
    rowCount,
    cell: (c, r) => columns[c][offset + r],
    slice: (from, n) => columnsView(columns, n, offset + from),
  };
}

/**
 * A view over a DuckDB chunk's vectors. It holds the chunk itself: the vectors read the chunk's
 * native memory, which lives only as long as the chunk object does.
 */
function vectorsView(chunk: DuckDBDataChunk, vectors: DuckDBVector[], converters: ReadonlyArray<(v: DuckDBValue) => Datum>, rowCount: number): DataChunkView & { chunk: DuckDBDataChunk } {
  return {
    chunk,
    rowCount,
    cell: (c, r) => converters[c](vectors[c].getItem(r)),
    slice: (from, n) => vectorsView(chunk, vectors.map((v) => v.slice(from, n)), converters, n),
  };
}

/** Streams a data file chunk by chunk over the given fields (a field the file lacks reads as null). */
async function* scanDataFile(
  fileIO: FileIO,
  path: string,
  fields: readonly DataFieldSpec[],
  opts: { table?: string; engine?: DataEngine | null } = {},
): AsyncGenerator<DataChunkView> {
  const format = await checkReadableFormat(fileIO, path, opts.table);
  const { local, release } = await localCopy(fileIO, path);
  let conn: DuckDBConnection | null = null;
  try {
    if (format === 'avro') {
      for await (const b of readAvroColumns(local, fields, path)) {
        yield columnsView(b.columns, b.rowCount);
      }
      return;
    }
    conn = await connectDuckDB(opts.engine);
    let present: Set<string>;
    try {
      present = await fileColumns(conn, local);
    } catch (e) {
      throw new PaimonError('CORRUPT_METADATA', `cannot read Parquet data file ${path}: ${(e as Error).message}`, { cause: e });
    }
    const select = fields.map((f) => (present.has(f.name) ? quoteIdent(f.name) : `NULL AS ${quoteIdent(f.name)}`));
    const converters = fields.map((f) => fromDuckConverter(f.type));
    const result = await conn.stream(`SELECT ${select.length ? select.join(', ') : '1'} FROM read_parquet(${quoteLiteral(local)}, hive_partitioning = false)`);
    // The next chunk is fetched (decoded on DuckDB's side) while this one is being consumed.
    let next = result.fetchChunk();
    try {
      for (;;) {
        const chunk = await next;
        if (chunk === null || chunk.rowCount === 0) break;
        next = result.fetchChunk();
        yield vectorsView(chunk, fields.map((_, c) => chunk.getColumnVector(c)), converters, chunk.rowCount);
      }
    } finally {
      // Settle the read ahead before the connection closes.
      await next.catch(() => null);
    }
  } finally {
    conn?.closeSync();
    await release();
  }
}

/**
 * Streams a data file column-wise over the given fields (a field the file lacks reads as null),
 * in file order, one batch per DuckDB chunk (2048 rows).
 */
export async function* readParquetColumns(
  fileIO: FileIO,
  path: string,
  fields: readonly DataFieldSpec[],
  opts: { table?: string; engine?: DataEngine | null } = {},
): AsyncGenerator<ColumnBatch> {
  for await (const chunk of scanDataFile(fileIO, path, fields, opts)) {
    const n = chunk.rowCount;
    const columns: Datum[][] = new Array(fields.length);
    for (let c = 0; c < fields.length; c++) {
      const out: Datum[] = new Array(n);
      for (let r = 0; r < n; r++) out[r] = chunk.cell(c, r);
      columns[c] = out;
    }
    yield { rowCount: n, columns };
  }
}

/** Streams the rows of a data file over the given fields, in file order, in batches. */
export async function* readParquetRows(
  fileIO: FileIO,
  path: string,
  fields: readonly DataFieldSpec[],
  opts: { table?: string; batchSize?: number; deletionVector?: DataFileReadOptions['deletionVector']; engine?: DataEngine | null } = {},
): AsyncGenerator<InternalRow[]> {
  const batchSize = opts.batchSize ?? 4096;
  const dv = opts.deletionVector ?? null;
  let position = 0;
  let batch: InternalRow[] = [];
  for await (const { rowCount, columns } of readParquetColumns(fileIO, path, fields, opts)) {
    for (let r = 0; r < rowCount; r++, position++) {
      if (dv !== null && dv.isDeleted(position)) continue;
      const row: InternalRow = new Array(columns.length);
      for (let c = 0; c < columns.length; c++) row[c] = columns[c][r];
      batch.push(row);
    }
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** Streams all physical rows of a data file (for PK files: `_KEY_`..., seq, kind, values). */
export function readDataFile(o: DataFileReadOptions): AsyncGenerator<InternalRow[]> {
  const layout = dataFileLayout(o.schema);
  return readParquetRows(o.fileIO, o.path, layout.physicalFields, o);
}

/** A KeyValue whose value row is converted from the file's chunk when first read. */
class LazyKeyValue implements KeyValue {
  private v: InternalRow | null = null;
  constructor(
    readonly key: InternalRow,
    readonly sequenceNumber: bigint,
    readonly valueKind: RowKindByte,
    private view: DataChunkView | null,
    private readonly row: number,
    private readonly nValue: number,
  ) {}

  get value(): InternalRow {
    if (this.v === null) {
      const view = this.view!;
      const value: InternalRow = new Array(this.nValue);
      for (let c = 0; c < this.nValue; c++) value[c] = view.cell(2 + c, this.row);
      this.v = value;
      this.view = null;
    }
    return this.v;
  }

  set value(v: InternalRow) {
    this.v = v;
    this.view = null;
  }
}

/** Streams the records of a primary-key table file as KeyValues, in file (= key) order. */
export async function* readKeyValues(o: DataFileReadOptions): AsyncGenerator<KeyValue[]> {
  const layout = dataFileLayout(o.schema);
  if (!layout.isPrimaryKey) throw new PaimonError('INVALID_ARGUMENT', `${o.path} belongs to a table without primary key`);
  const nKey = layout.keyFields.length;
  const nValue = layout.valueFields.length;
  // The key is taken from the value columns, as Java does from 1.0 on (FormatReaderMapping
  // trims the _KEY_ fields): this reads thin-mode files and full files alike, and reads less.
  const fields = [SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD, ...layout.valueFields];
  const keyIdx = layout.keyValueIndexes;
  const batchSize = o.batchSize ?? 4096;
  const dv = o.deletionVector ?? null;
  const lazy = o.lazyValues === true;
  let position = 0;
  let out: KeyValue[] = [];
  // Records are made from the chunk as the batch fills (not a whole chunk at once), so a merge
  // with small batches holds little more than DuckDB's chunk per open file.
  for await (const whole of scanDataFile(o.fileIO, o.path, fields, o)) {
    for (let from = 0; from < whole.rowCount; from += batchSize) {
      const chunk = whole.rowCount <= batchSize ? whole : whole.slice(from, Math.min(batchSize, whole.rowCount - from));
      const rowCount = chunk.rowCount;
      if (lazy) {
        for (let r = 0; r < rowCount; r++, position++) {
          if (dv !== null && dv.isDeleted(position)) continue;
          const key: InternalRow = new Array(nKey);
          for (let k = 0; k < nKey; k++) key[k] = chunk.cell(2 + keyIdx[k], r);
          out.push(new LazyKeyValue(key, chunk.cell(0, r) as bigint, chunk.cell(1, r) as RowKindByte, chunk, r, nValue));
        }
      } else for (let r = 0; r < rowCount; r++, position++) {
        if (dv !== null && dv.isDeleted(position)) continue;
        const value: InternalRow = new Array(nValue);
        for (let c = 0; c < nValue; c++) value[c] = chunk.cell(2 + c, r);
        const key: InternalRow = new Array(nKey);
        for (let k = 0; k < nKey; k++) key[k] = value[keyIdx[k]];
        out.push({ key, sequenceNumber: chunk.cell(0, r) as bigint, valueKind: chunk.cell(1, r) as RowKindByte, value });
      }
      if (out.length >= batchSize) {
        yield out;
        out = [];
      }
    }
  }
  if (out.length > 0) yield out;
}

/** Streams the table-level rows of a data file: all fields for append files, the value part for PK files. */
export async function* readValueRows(o: DataFileReadOptions): AsyncGenerator<InternalRow[]> {
  const layout = dataFileLayout(o.schema);
  yield* readParquetRows(o.fileIO, o.path, layout.valueFields, o);
}

/**
 * Every record of a Parquet metadata file held in memory (a manifest, manifest list or index
 * manifest written with `manifest.format` = parquet), as the Avro-shaped objects the metadata
 * decoders take: fields by name, longs as bigint, bytes as Buffers, timestamps as epoch millis.
 * A file DuckDB cannot decode is CORRUPT_METADATA naming `what`.
 */
export async function decodeParquetRecords(buf: Buffer, what: string, engine?: DataEngine | null): Promise<Record<string, unknown>[]> {
  const local = join(dataTempDir(), `${randomUUID()}-metadata.parquet`);
  await writeFile(local, buf);
  const conn = await connectDuckDB(engine);
  try {
    let rows: Record<string, DuckDBValue>[];
    try {
      rows = (await conn.runAndReadAll(`SELECT * FROM read_parquet(${quoteLiteral(local)}, hive_partitioning = false)`)).getRowObjects();
    } catch (e) {
      const msg = (e as Error).message;
      const codec = /Unsupported compression codec "?([A-Za-z0-9_]+)/.exec(msg);
      if (codec) {
        throw new PaimonError('UNSUPPORTED_FORMAT', `${what} is compressed with ${codec[1]} ('manifest.compression'), which this proxy cannot read; use zstd, snappy, gzip or none, or Paimon's own engines`, { cause: e });
      }
      throw new PaimonError('CORRUPT_METADATA', `cannot decode ${what} as Parquet: ${msg}`, { cause: e });
    }
    return rows.map((r) => {
      const o: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(r)) o[k] = recordFromDuck(v);
      return o;
    });
  } finally {
    conn.closeSync();
    await rm(local, { force: true });
  }
}
