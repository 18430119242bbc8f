/**
 * Reads Paimon data files as rows, streamed in batches (DuckDB reads the Parquet file in
 * chunks of 2048 rows; nothing holds the whole file). Columns are matched by name against the
 * schema the file was written with, as Paimon Java does (`ParquetReaderFactory.clipParquetSchema`).
 * A file on a remote store is first streamed through the FileIO into a local temporary file.
 *
 * ORC and Avro data files are refused with UNSUPPORTED_FORMAT naming the format and the table.
 */
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { FileIO } from '../file-io.js';
import { PaimonError } from '../errors.js';
import type { DataFieldSpec } from './field-type.js';
import type { InternalRow, KeyValue, RowKindByte } from './internal-row.js';
import { dataFileLayout, formatFromFileName, formatFromMagic, type DataFileLayout, type TableSchemaLike } from './data-file-layout.js';
import { connectDuckDB, dataTempDir, fromDuckConverter, localPathOf, quoteIdent, quoteLiteral } from './duckdb-engine.js';

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
}

function fileName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Refuses formats this library cannot read, naming the table and the format. */
export async function checkReadableFormat(fileIO: FileIO, path: string, table?: string): Promise<void> {
  let format = formatFromFileName(fileName(path));
  if (format === null) {
    const head = await fileIO.readRange(path, 0, 4).catch(() => Buffer.alloc(0));
    format = formatFromMagic(head);
  }
  if (format !== 'parquet') {
    const what = table ? `table ${table}` : 'the table';
    throw new PaimonError(
      'UNSUPPORTED_FORMAT',
      `${what} has ${format ?? 'unrecognised'} data files (${fileName(path)}); only Parquet data files can be read and written by this proxy. Use Paimon's own engines (Flink/Spark) for ${format ?? 'this format'}.`,
    );
  }
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

/**
 * Streams the rows of a data file over the given fields (default: all physical fields of the
 * file's layout), in file order. A field the file lacks reads as null.
 */
export async function* readParquetRows(
  fileIO: FileIO,
  path: string,
  fields: readonly DataFieldSpec[],
  opts: { table?: string; batchSize?: number } = {},
): AsyncGenerator<InternalRow[]> {
  await checkReadableFormat(fileIO, path, opts.table);
  const batchSize = opts.batchSize ?? 4096;
  const { local, release } = await localCopy(fileIO, path);
  let conn: DuckDBConnection | null = null;
  try {
    conn = await connectDuckDB();
    let present: Set<string>;
    try {
      present = await fileColumns(conn, local);
    } catch (e) {
      throw new PaimonError('CORRUPT_METADATA', `cannot read Parquet data file ${path}: ${(e as Error).message}`, { cause: e });
    }
    const select = fields.map((f) => (present.has(f.name) ? quoteIdent(f.name) : `NULL AS ${quoteIdent(f.name)}`));
    const converters = fields.map((f) => fromDuckConverter(f.type));
    const result = await conn.stream(`SELECT ${select.length ? select.join(', ') : '1'} FROM read_parquet(${quoteLiteral(local)}, hive_partitioning = false)`);
    let batch: InternalRow[] = [];
    for await (const chunk of result) {
      const n = chunk.rowCount;
      if (n === 0) continue;
      const cols = fields.length ? chunk.getColumns() : [];
      const converted = cols.map((col, i) => col.map(converters[i]));
      for (let r = 0; r < n; r++) {
        const row: InternalRow = new Array(fields.length);
        for (let c = 0; c < converted.length; c++) row[c] = converted[c][r];
        batch.push(row);
      }
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  } finally {
    conn?.closeSync();
    await release();
  }
}

/** Streams all physical rows of a data file (for PK files: `_KEY_`..., seq, kind, values). */
export function readDataFile(o: DataFileReadOptions): AsyncGenerator<InternalRow[]> {
  const layout = dataFileLayout(o.schema);
  return readParquetRows(o.fileIO, o.path, layout.physicalFields, o);
}

/**
 * Streams the records of a primary-key table file as KeyValues, in file (= key) order. In thin
 * mode the key is taken from the value columns, as Java does from 1.0 on.
 */
export async function* readKeyValues(o: DataFileReadOptions): AsyncGenerator<KeyValue[]> {
  const layout = dataFileLayout(o.schema);
  if (!layout.isPrimaryKey) throw new PaimonError('INVALID_ARGUMENT', `${o.path} belongs to a table without primary key`);
  const fields = [...layout.keyFields, ...layout.physicalFields.filter((f) => !f.name.startsWith('_KEY_'))];
  const nKey = layout.keyFields.length;
  for await (const rows of readParquetRows(o.fileIO, o.path, fields, o)) {
    yield rows.map((r) => toKeyValue(layout, r, nKey));
  }
}

function toKeyValue(layout: DataFileLayout, r: InternalRow, nKey: number): KeyValue {
  const value = r.slice(nKey + 2);
  let key = r.slice(0, nKey);
  if (key.some((k) => k === null)) key = layout.keyValueIndexes.map((i) => value[i]);
  return { key, sequenceNumber: r[nKey] as bigint, valueKind: Number(r[nKey + 1]) as RowKindByte, value };
}

/** Streams the table-level rows of a data file: all fields for append files, the value part for PK files. */
export async function* readValueRows(o: DataFileReadOptions): AsyncGenerator<InternalRow[]> {
  const layout = dataFileLayout(o.schema);
  yield* readParquetRows(o.fileIO, o.path, layout.valueFields, o);
}
