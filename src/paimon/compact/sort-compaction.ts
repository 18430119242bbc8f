/**
 * Sort compaction of an unaware-bucket append table (`order_strategy` order / zorder / hilbert),
 * as Paimon's Spark `CompactProcedure.sortCompactUnAwareBucketTable` and Flink
 * `SortCompactAction` do it: the rows of every selected partition (one partition = one compact
 * group, `packForSort`) are read, sorted by the strategy's key (sort-key.ts) and written anew by
 * the ordinary append writer (level 0, file source APPEND, sequence numbers from 0 because an
 * overwrite ignores the previous files), rolled at `target-file-size`; the result is committed as
 * one OVERWRITE snapshot of those partitions (dynamic partition overwrite: exactly the partitions
 * that got new files), i.e. DELETE of every live file of the partitions and ADD of the new ones.
 *
 * Unlike Java, which re-reads the partitions' live files at commit time and deletes whatever is
 * there then (a data-loss hazard: rows appended concurrently are dropped without having been
 * read), the DELETE set here is pinned to the snapshot the rows were read
 * from. The commit's conflict check then fails the call with COMMIT_CONFLICT when a concurrent
 * writer removed any of those files (a compaction, another overwrite), and keeps files appended
 * concurrently (their rows were not read, so they are neither lost nor duplicated). On a quiet
 * table the result is the same as Java's.
 *
 * Bounded memory: the sort key is computed per row in JS (Paimon's byte-level normalisation is
 * easier to reproduce exactly there than in SQL) and each row goes, with its key and input
 * ordinal, into a DuckDB temporary table; DuckDB sorts it (`ORDER BY key, ordinal`) with its
 * external sort, which spills to its temp directory beyond its memory limit. JS holds one chunk
 * (2048 rows) at a time on the way in and one result chunk on the way out.
 */
import { randomUUID } from 'node:crypto';
import { DuckDBDataChunk, type DuckDBAppender, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import type { FileIO } from '../fs/file-io.js';
import { PaimonError } from '../errors.js';
import type { BinaryRow } from '../spec/binary-row.js';
import type { DataFileMeta } from '../spec/data-file-meta.js';
import { FileSource } from '../spec/data-file-meta.js';
import { FileStoreCommit } from '../table/file-store-commit.js';
import { toDeleteEntry, type ManifestEntry } from '../spec/manifest-entry.js';
import type { TableSchema } from '../spec/table-schema.js';
import { SchemaManager } from '../table/schema-manager.js';
import type { Snapshot } from '../spec/snapshot.js';
import { partitionSpec, type PartitionField } from '../spec/partition-path.js';
import { parseDataField, type DataFieldSpec } from '../data/field-type.js';
import { parseMemorySize } from '../spec/core-options.js';
import { AppendDataFileWriter, binaryFieldType } from '../data/parquet-writer.js';
import { readValueRows } from '../data/parquet-reader.js';
import { rowEvolution } from '../data/schema-evolution.js';
import type { InternalRow } from '../data/internal-row.js';
import { connectDuckDB, duckWriteType, fromDuckConverter, quoteIdent, toDuckConverter } from '../data/duckdb-engine.js';
import { checkCompactable, schemaLike, variantColumnOf, type CompactTableResult, type SchemaLike } from './compact-table.js';
import { sortKeyEncoder, type SortKeyEncoder, type SortStrategy } from './sort-key.js';
import { optionBool as bool } from '../spec/core-options.js';

export interface SortCompactOptions {
  fileIO: FileIO;
  tablePath: string;
  branch?: string | null;
  /** `db.tbl` for messages. */
  table: string;
  strategy: SortStrategy;
  orderBy: readonly string[];
  dynamicOptions?: Readonly<Record<string, string>>;
  partitionFilter?: ((spec: ReadonlyArray<readonly [string, string]>) => boolean) | null;
  dryRun?: boolean;
  signal?: AbortSignal;
  onProgress?: (p: SortCompactProgress) => void;
  /** Called at named points: the procedure reports its commit phase at 'before-commit'; crash tests kill the process there. */
  onPoint?: (point: string) => void | Promise<void>;
}

export interface SortCompactProgress {
  partitionsDone: number;
  partitionsTotal: number;
  rowsRead: bigint;
  rowsWritten: bigint;
  bytesWritten: bigint;
}

/** A compaction's result without what only bucketed/primary-key compaction has (buckets, level upgrades, deletion vectors). */
export type SortCompactResult = Omit<CompactTableResult, 'buckets' | 'filesUpgraded' | 'deletionVectorsApplied' | 'dvIndexFilesWritten'>;


/**
 * The table checks of a sort compaction (Spark's messages where it has them), before any work:
 * unaware-bucket append tables only, no incremental clustering, no data evolution, order columns
 * that exist, are not partition columns and have sortable types.
 */
export function checkSortCompactable(
  table: string,
  schema: TableSchema,
  options: Readonly<Record<string, string>>,
  strategy: SortStrategy,
  orderBy: readonly string[],
): SortKeyEncoder {
  if (orderBy.some((c) => schema.partitionKeys.includes(c))) {
    throw new PaimonError(
      'INVALID_ARGUMENT',
      `order_by should not contain partition cols, because it is meaningless, your order_by cols are [${orderBy.join(', ')}], and partition cols are [${schema.partitionKeys.join(', ')}]`,
    );
  }
  if (bool(options['clustering.incremental'])) {
    throw new PaimonError('UNSUPPORTED_TABLE', 'The table has enabled incremental clustering, do not support sort compact.');
  }
  const bucket = Number(options['bucket'] ?? '-1');
  if (schema.primaryKeys.length > 0 || bucket !== -1) {
    throw new PaimonError(
      'UNSUPPORTED_TABLE',
      `compact with sort_type ${strategy} only support unaware-bucket append-only table yet (${table} is a ${schema.primaryKeys.length > 0 ? 'primary-key' : 'fixed-bucket append'} table with bucket = ${bucket}).`,
    );
  }
  if (bool(options['data-evolution.enabled'])) throw new PaimonError('UNSUPPORTED_TABLE', 'Data Evolution table cannot be sorted!');
  if (bool(options['deletion-vectors.enabled'])) {
    // The sort rewrite reads files without their deletion vectors and commits no index change.
    throw new PaimonError('UNSUPPORTED_TABLE', `compact with sort_type ${strategy} on ${table}: tables with deletion vectors (deletion-vectors.enabled=true) are not sorted by this proxy; compact without order_strategy, or sort with Paimon's own engine (Spark CALL sys.compact)`);
  }
  const variant = variantColumnOf(schema);
  if (variant !== undefined) {
    // Sorting tables with variants was never compared with Paimon's own sort compaction.
    throw new PaimonError('UNSUPPORTED_TABLE', `compact with sort_type ${strategy} on ${table}: column ${variant.name} holds VARIANT values, and such tables are not sorted by this proxy; compact without order_strategy, or sort with Paimon's own engine (Spark CALL sys.compact)`);
  }
  checkCompactable(table, schema, options);
  return sortKeyEncoder(strategy, schema.fields.map((f) => parseDataField(f)), orderBy, options);
}

const CHUNK_ROWS = 2048;
const KEY = '__paimon_sort_key';
const ORD = '__paimon_sort_ordinal';

/** A DuckDB temporary table of (key, ordinal, row...) that returns the rows sorted by key. */
class SortBuffer {
  private readonly name = `sort_${randomUUID().replace(/-/g, '')}`;
  private appender: DuckDBAppender | null = null;
  private types: DuckDBType[] = [];
  private pending: DuckDBValue[][] = [];
  private pendingRows = 0;
  private chunk: DuckDBDataChunk | null = null;
  private ordinal = 0n;
  private readonly toDuck: Array<(v: InternalRow[number]) => DuckDBValue>;
  private readonly keyToDuck = toDuckConverter({ root: 'VARBINARY', nullable: false });

  constructor(
    private readonly conn: DuckDBConnection,
    private readonly fields: readonly DataFieldSpec[],
    private readonly where: string,
  ) {
    this.toDuck = fields.map((f) => toDuckConverter(f.type));
  }

  async open(): Promise<void> {
    const cols = [`${KEY} BLOB`, `${ORD} BIGINT`, ...this.fields.map((f) => `${quoteIdent(`c_${f.id}`)} ${duckWriteType(f.type, `${this.where}, column ${f.name}`)}`)];
    await this.conn.run(`CREATE TEMP TABLE ${this.name} (${cols.join(', ')})`);
    this.types = (await this.conn.run(`SELECT * FROM ${this.name} LIMIT 0`)).columnTypes();
    this.appender = await this.conn.createAppender(this.name, 'main', 'temp');
    this.pending = this.types.map(() => []);
  }

  add(key: Uint8Array, row: InternalRow): void {
    this.pending[0].push(this.keyToDuck(key));
    this.pending[1].push(this.ordinal++);
    for (let i = 0; i < this.toDuck.length; i++) this.pending[i + 2].push(this.toDuck[i](row[i]));
    if (++this.pendingRows >= CHUNK_ROWS) this.flush();
  }

  private flush(): void {
    if (this.pendingRows === 0) return;
    this.chunk ??= DuckDBDataChunk.create(this.types, CHUNK_ROWS);
    this.chunk.reset();
    this.chunk.rowCount = this.pendingRows;
    this.chunk.setColumns(this.pending);
    this.appender!.appendDataChunk(this.chunk);
    this.pending = this.types.map(() => []);
    this.pendingRows = 0;
  }

  /** The rows in key order (ties in input order), in batches of one DuckDB chunk. */
  async *sorted(signal?: AbortSignal): AsyncGenerator<InternalRow[]> {
    this.flush();
    this.appender!.closeSync();
    this.appender = null;
    const from = this.fields.map((f) => fromDuckConverter(f.type));
    const select = this.fields.map((f) => quoteIdent(`c_${f.id}`)).join(', ');
    const result = await this.conn.stream(`SELECT ${select || '1'} FROM ${this.name} ORDER BY ${KEY}, ${ORD}`);
    for await (const chunk of result) {
      signal?.throwIfAborted();
      const n = chunk.rowCount;
      if (n === 0) continue;
      const cols = from.map((conv, c) => {
        const vec = chunk.getColumnVector(c);
        const out = new Array<InternalRow[number]>(n);
        for (let r = 0; r < n; r++) out[r] = conv(vec.getItem(r));
        return out;
      });
      const rows: InternalRow[] = new Array(n);
      for (let r = 0; r < n; r++) {
        const row: InternalRow = new Array(cols.length);
        for (let c = 0; c < cols.length; c++) row[c] = cols[c][r];
        rows[r] = row;
      }
      yield rows;
    }
  }

  async drop(): Promise<void> {
    if (this.appender) {
      try { this.appender.closeSync(); } catch { /* already failing */ }
      this.appender = null;
    }
    await this.conn.run(`DROP TABLE IF EXISTS temp.main.${this.name}`);
  }
}

interface PartitionGroup {
  partition: BinaryRow;
  totalBuckets: number;
  entries: ManifestEntry[];
}

export async function sortCompactTable(o: SortCompactOptions): Promise<SortCompactResult> {
  const schemas = new SchemaManager(o.fileIO, o.tablePath, o.branch);
  const ids = await schemas.listAllIds();
  if (ids.length === 0) throw new PaimonError('SCHEMA_NOT_FOUND', `${o.table} has no schema`);
  const latest = await schemas.schema(ids[ids.length - 1]);
  const options: Record<string, string> = { ...latest.options, ...(o.dynamicOptions ?? {}) };
  const encoder = checkSortCompactable(o.table, latest, options, o.strategy, o.orderBy);
  const target = schemaLike({ ...latest, options });
  const schemaCache = new Map<string, Promise<SchemaLike>>([[String(latest.id), Promise.resolve(target)]]);
  const schemaOf = (id: bigint): Promise<SchemaLike> => {
    const k = String(id);
    let p = schemaCache.get(k);
    if (!p) schemaCache.set(k, (p = schemas.schema(Number(id)).then(schemaLike)));
    return p;
  };
  const partitionFields: PartitionField[] = latest.partitionKeys.map((k) => {
    const f = latest.fields.find((x) => x.name === k);
    if (!f) throw new PaimonError('CORRUPT_METADATA', `${o.table}: partition key ${k} is not a field`);
    return { name: k, type: binaryFieldType(parseDataField(f).type) };
  });
  const commitUser = `sort-compact-${randomUUID()}`;
  const commit = new FileStoreCommit({
    fileIO: o.fileIO, tablePath: o.tablePath, branch: o.branch, commitUser, partitionFields, keyTypes: [], bucketMode: 'BUCKET_UNAWARE', tableOptions: latest.options,
  });
  const partitionOptions = {
    defaultName: options['partition.default-name'],
    legacyName: options['partition.legacy-name'] === undefined ? true : bool(options['partition.legacy-name']),
  };

  const base: Snapshot | null = await commit.snapshotManager.latestSnapshot();
  const empty: SortCompactResult = {
    baseSnapshotId: base?.id ?? null, committedSnapshotId: null, partitions: 0, filesBefore: 0, filesAfter: 0,
    bytesBefore: 0n, bytesAfter: 0n, rowsRead: 0n, rowsWritten: 0n, skippedReason: null,
  };
  if (base === null) return { ...empty, skippedReason: 'the table has no snapshot' };
  const groups = new Map<string, PartitionGroup>();
  for (const e of await commit.scan.readLiveEntries(base)) {
    if (o.partitionFilter && !o.partitionFilter(partitionSpec(e.partition, partitionFields, partitionOptions))) continue;
    const k = e.partition.key();
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { partition: e.partition, totalBuckets: e.totalBuckets, entries: [] }));
    g.entries.push(e);
  }
  if (groups.size === 0) return { ...empty, skippedReason: 'No data split to sort compact (no data files match the partition filter)' };

  const targetFileSize = parseMemorySize(options['target-file-size'] ?? '256 mb', 'target-file-size');
  const list = [...groups.values()];
  const res: SortCompactResult = { ...empty, partitions: list.length };
  for (const g of list) {
    res.filesBefore += g.entries.length;
    for (const e of g.entries) res.bytesBefore += e.file.fileSize;
  }
  if (o.dryRun) {
    for (const g of list) for (const e of g.entries) res.rowsRead += e.file.rowCount;
    return res;
  }

  const progress: SortCompactProgress = { partitionsDone: 0, partitionsTotal: list.length, rowsRead: 0n, rowsWritten: 0n, bytesWritten: 0n };
  const written: Array<{ g: PartitionGroup; m: DataFileMeta; dir: string }> = [];
  const conn = await connectDuckDB();
  try {
    for (const g of list) {
      o.signal?.throwIfAborted();
      const bucketDir = commit.pathFactory.bucketPath(g.partition, 0);
      const where = `sort compaction of ${o.table} (${bucketDir})`;
      const buffer = new SortBuffer(conn, target.fieldSpecs, where);
      const writer = new AppendDataFileWriter({
        fileIO: o.fileIO, bucketDir, schema: target, level: 0, fileSource: FileSource.APPEND, options, targetFileSize, startSequenceNumber: 0n,
      });
      try {
        await buffer.open();
        // Input order (the ties' order): files by sequence number, as Paimon's scan lists them.
        const files = [...g.entries].sort((a, b) =>
          a.file.minSequenceNumber !== b.file.minSequenceNumber ? (a.file.minSequenceNumber < b.file.minSequenceNumber ? -1 : 1) : a.file.fileName < b.file.fileName ? -1 : 1,
        );
        for (const e of files) {
          o.signal?.throwIfAborted();
          const f = e.file;
          const fileSchema = await schemaOf(BigInt(f.schemaId));
          const evolve = rowEvolution(fileSchema.fieldSpecs, target.fieldSpecs, `${o.table} file ${f.fileName}`);
          const path = f.externalPath ?? `${commit.pathFactory.bucketPath(g.partition, e.bucket)}/${f.fileName}`;
          for await (const rows of readValueRows({ fileIO: o.fileIO, path, schema: fileSchema, table: o.table })) {
            for (const raw of rows) {
              const row = evolve === null ? raw : evolve(raw);
              buffer.add(encoder.key(row), row);
            }
            res.rowsRead += BigInt(rows.length);
            progress.rowsRead += BigInt(rows.length);
          }
        }
        await o.onPoint?.('partition-read');
        for await (const rows of buffer.sorted(o.signal)) {
          await writer.write(rows);
          res.rowsWritten += BigInt(rows.length);
          progress.rowsWritten += BigInt(rows.length);
        }
        const metas = await writer.close();
        for (const m of metas) {
          written.push({ g, m, dir: bucketDir });
          progress.bytesWritten += m.fileSize;
        }
      } catch (e) {
        await writer.abort().catch(() => undefined);
        throw e;
      } finally {
        await buffer.drop().catch(() => undefined);
      }
      progress.partitionsDone++;
      o.onProgress?.({ ...progress });
      await o.onPoint?.('partition-written');
    }
    if (res.rowsRead !== res.rowsWritten) {
      throw new PaimonError('CORRUPT_METADATA', `sort compaction of ${o.table} read ${res.rowsRead} rows but wrote ${res.rowsWritten}; nothing committed`);
    }
    o.signal?.throwIfAborted();

    const delta: ManifestEntry[] = [];
    for (const g of list) for (const e of g.entries) delta.push(toDeleteEntry(e));
    for (const { g, m } of written) {
      delta.push({ kind: 'ADD', partition: g.partition, bucket: 0, totalBuckets: g.totalBuckets, file: m });
      res.bytesAfter += m.fileSize;
      res.filesAfter++;
    }
    await o.onPoint?.('before-commit');
    const committed = await commit.commit({ kind: 'OVERWRITE', deltaEntries: delta, commitIdentifier: 9223372036854775807n, baseSnapshotId: base.id });
    await o.onPoint?.('after-commit');
    return { ...res, committedSnapshotId: committed.snapshot.id };
  } catch (e) {
    if (written.length > 0) {
      const landed = await commit.snapshotManager.latestSnapshot().catch(() => null);
      if (landed === null || landed.commitUser !== commitUser) {
        await o.fileIO.deleteMany(written.map(({ m, dir }) => m.externalPath ?? `${dir}/${m.fileName}`)).catch(() => 0);
      }
    }
    throw e;
  } finally {
    conn.closeSync();
  }
}
