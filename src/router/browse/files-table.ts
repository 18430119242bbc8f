/**
 * Paimon's `$files` system table (paimon-core `org.apache.paimon.table.system.FilesTable`,
 * 1.4.2 and 2.0.0 have the same 20 columns): one row per live data file of a snapshot (the
 * latest, a tag's or a given snapshot id), for the table's branch. Values render as FilesTable
 * renders them:
 * - `partition`: the partition row cast to STRING (`RowToStringCastRule`: `{v1, v2}`, `null`
 *   for a null field, `{}` for an unpartitioned table), each field as CastExecutors casts it
 *   (DATE as `yyyy-MM-dd`);
 * - `file_path`: the external path, else the bucket directory + `/` + the file name;
 * - `file_format`: the file name's extension (DataFilePathFactory.formatIdentifier);
 * - `min_key`/`max_key`: `Arrays.toString` of the trimmed primary key of the file's schema
 *   (null for append files, whose key row is empty);
 * - `null_value_counts`, `min_value_stats`, `max_value_stats`: a `TreeMap.toString()`
 *   (`{a=1, b=x}`, keys sorted) over the table's current fields, the file's stats evolved to
 *   them as SimpleStatsEvolution does: a field the file's schema lacks has no min/max (null)
 *   and a null count equal to the file's row count; a field outside `valueStatsCols` has
 *   nulls throughout. Values print as Java prints Paimon's internal objects (DATE as epoch
 *   days, TIMESTAMP as LocalDateTime.toString()); BINARY values, which Java prints as an
 *   object identity (`[B@1b2c3d`), print here as `0x` + hex instead.
 * - `creation_time`: the writer's local wall clock (stored as UTC millis), as TIMESTAMP(3).
 *
 * Row order: partitions by their text, then bucket, level and file name. Paimon's order comes
 * from its split planning (a partition listing, then per-bucket splits), which is not a
 * documented contract; compare rows by `file_path`.
 */
import { ProcedureError } from '../../../procedures/framework/errors.js';
import { binaryFieldTypeOf, type BinaryFieldType, type BinaryRow, type BinaryValue } from '../../paimon/spec/binary-row.js';
import type { DataField } from '../../paimon/spec/data-types.js';
import type { DataFileMeta } from '../../paimon/spec/data-file-meta.js';
import type { ManifestEntry } from '../../paimon/spec/manifest-entry.js';
import { partitionValueToString } from '../../paimon/spec/partition-path.js';
import type { Snapshot } from '../../paimon/spec/snapshot.js';
import { trimToSnapshot } from '../../paimon/spec/tag.js';
import { trimmedPrimaryKeys, type TableSchema } from '../../paimon/spec/table-schema.js';
import type { FileStoreTable } from '../../paimon/table/file-store-table.js';
import type { ColumnType, TextRow } from '../route.js';

/** Which snapshot `$files` lists: Doris's `FOR VERSION AS OF <snapshot id | 'tag'>`, or Paimon's `scan.tag-name`. */
export type TimeTravel = { kind: 'snapshot'; id: number } | { kind: 'tag'; name: string };

export const FILES_COLUMNS: [string, ColumnType][] = [
  ['partition', 'string'],
  ['bucket', 'int'],
  ['file_path', 'string'],
  ['file_format', 'string'],
  ['schema_id', 'bigint'],
  ['level', 'int'],
  ['record_count', 'bigint'],
  ['file_size_in_bytes', 'bigint'],
  ['min_key', 'string'],
  ['max_key', 'string'],
  ['null_value_counts', 'string'],
  ['min_value_stats', 'string'],
  ['max_value_stats', 'string'],
  ['min_sequence_number', 'bigint'],
  ['max_sequence_number', 'bigint'],
  ['creation_time', 'datetime'],
  ['deleteRowCount', 'bigint'],
  ['file_source', 'string'],
  ['first_row_id', 'bigint'],
  ['write_cols', 'string'],
];

const FILE_SOURCE = ['APPEND', 'COMPACT'];
const COMPRESSION_EXTENSIONS = new Set(['gz', 'bz2', 'deflate', 'lz4', 'snappy', 'zst', 'zstd', 'lzo', 'br', 'xz']);

/** DataFilePathFactory.formatIdentifier: the extension, or the one before a compression extension. */
export function formatIdentifier(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  if (dot < 0) throw new ProcedureError('CORRUPT_METADATA', `${fileName} is not a legal data file name (no format extension)`);
  const ext = fileName.slice(dot + 1);
  if (!COMPRESSION_EXTENSIONS.has(ext.toLowerCase())) return ext;
  const second = fileName.lastIndexOf('.', dot - 1);
  if (second < 0) throw new ProcedureError('CORRUPT_METADATA', `${fileName} is not a legal data file name (no format extension)`);
  return fileName.slice(second + 1, dot);
}

/** `Object.toString()` of the internal value InternalRowUtils.get returns for a field of `type`. */
export function javaInternalText(type: BinaryFieldType, v: BinaryValue): string {
  if (v === null) return 'null';
  if (v instanceof Uint8Array) return '0x' + Buffer.from(v).toString('hex');
  return partitionValueToString(type, v, true) ?? 'null';
}

/** CastExecutors' cast of a partition field to STRING (DATE as yyyy-MM-dd; the rest as their Java text). */
function castToString(type: BinaryFieldType, v: BinaryValue): string {
  if (v === null) return 'null';
  if (type.root === 'DATE' || type.root === 'TIME') return partitionValueToString(type, v, false) ?? 'null';
  return javaInternalText(type, v);
}

function fieldValue(row: BinaryRow, pos: number, type: BinaryFieldType | null): BinaryValue {
  if (pos >= row.arity || row.isNullAt(pos)) return null;
  // Nested columns carry no stats (their slots are null); anything else is unreadable here.
  if (type === null) throw new ProcedureError('UNSUPPORTED_FORMAT', `a stats or key value of a nested column at position ${pos}`);
  return row.get(pos, type);
}

function binaryType(f: DataField): BinaryFieldType | null {
  return binaryFieldTypeOf(f.type);
}

/** `TreeMap<String, ?>.toString()`. */
function treeMapText(entries: [string, string][]): string {
  return '{' + entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join(', ') + '}';
}

interface FileStats {
  nullCounts: string;
  mins: string;
  maxs: string;
}

/** SimpleStatsEvolution of one file's value stats to the table's fields, rendered (see the header). */
function valueStatsText(file: DataFileMeta, fileSchema: TableSchema, tableFields: readonly DataField[]): FileStats {
  const fileFields = fileSchema.fields;
  const stats = file.valueStats;
  const cols = file.valueStatsCols;
  const statsFields = cols === null ? fileFields : cols.map((c) => fileFields.find((f) => f.name === c));
  // SchemaEvolutionUtils.createIndexMapping: none (null) when table field j is file field j for every j.
  const identity = tableFields.every((f, j) => fileFields[j]?.id === f.id);
  // The evolved rows' arity: the raw stats row (all fields), the dense projection (file fields), or the mapping (table fields).
  const arity = !identity ? tableFields.length : cols === null ? stats.minValues.arity : fileFields.length;
  const length = Math.min(arity, tableFields.length);
  const nulls: [string, string][] = [];
  const mins: [string, string][] = [];
  const maxs: [string, string][] = [];
  for (let j = 0; j < length; j++) {
    const field = tableFields[j]!;
    const i = identity ? j : fileFields.findIndex((f) => f.id === field.id);
    if (i < 0) {
      // A field the file's schema lacks (NullCountsEvoArray): no bounds, every row null.
      nulls.push([field.name, String(file.rowCount)]);
      mins.push([field.name, 'null']);
      maxs.push([field.name, 'null']);
      continue;
    }
    // Position in the stats rows: all fields, or only valueStatsCols (-1: not covered).
    const p = cols === null ? i : cols.indexOf(fileFields[i]!.name);
    const sf = p < 0 ? undefined : statsFields[p];
    if (p < 0 || sf === undefined) {
      nulls.push([field.name, 'null']);
      mins.push([field.name, 'null']);
      maxs.push([field.name, 'null']);
      continue;
    }
    const nc = stats.nullCounts[p];
    nulls.push([field.name, nc === null || nc === undefined ? 'null' : String(nc)]);
    const st = binaryType(sf);
    const type = binaryType(field) ?? st;
    const text = (row: BinaryRow): string => {
      const v = fieldValue(row, p, st);
      return v === null || type === null ? 'null' : javaInternalText(st ?? type, v);
    };
    mins.push([field.name, text(stats.minValues)]);
    maxs.push([field.name, text(stats.maxValues)]);
  }
  return { nullCounts: treeMapText(nulls), mins: treeMapText(mins), maxs: treeMapText(maxs) };
}

/** `Arrays.toString` of a file's trimmed primary key (null for the empty key row of append files). */
function keyText(key: BinaryRow, fileSchema: TableSchema): string | null {
  if (key.arity <= 0) return null;
  const pk = trimmedPrimaryKeys(fileSchema);
  const fields = pk.length > 0 ? pk.map((k) => fileSchema.fields.find((f) => f.name === k)!) : fileSchema.fields;
  const parts: string[] = [];
  for (let i = 0; i < key.arity && i < fields.length; i++) {
    const type = binaryType(fields[i]!);
    const v = fieldValue(key, i, type);
    parts.push(v === null || type === null ? 'null' : javaInternalText(type, v));
  }
  return `[${parts.join(', ')}]`;
}

/** The snapshot `$files` lists, or null when the branch has none (no rows, as Paimon). */
async function snapshotOf(table: FileStoreTable, at: TimeTravel | null): Promise<Snapshot | null> {
  if (at === null) return table.snapshotManager().latestSnapshot();
  if (at.kind === 'tag') {
    const tag = await table.tagManager().get(at.name);
    if (tag === null) throw new ProcedureError('TAG_NOT_FOUND', `Tag '${at.name}' doesn't exist in ${table.identifier}; SELECT tag_name FROM ${table.identifier}$tags lists them.`);
    return trimToSnapshot(tag);
  }
  const s = await table.snapshotManager().tryGetSnapshot(at.id);
  if (s === null) throw new ProcedureError('SNAPSHOT_NOT_FOUND', `Snapshot ${at.id} doesn't exist in ${table.identifier}; SELECT snapshot_id FROM ${table.identifier}$snapshots lists them.`);
  return s;
}

/** Java's rendering of a TIMESTAMP(3) holding the writer's wall clock (epoch millis taken as UTC). */
function wallClockText(millis: bigint): string {
  const iso = new Date(Number(millis)).toISOString(); // yyyy-mm-ddThh:mm:ss.SSSZ
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
}

export async function filesRows(table: FileStoreTable, at: TimeTravel | null): Promise<TextRow[]> {
  const snapshot = await snapshotOf(table, at);
  if (snapshot === null) return [];
  const entries = await table.newScan().readLiveEntries(snapshot);
  const schemas = new Map<number, TableSchema>();
  const schemaOf = async (id: bigint): Promise<TableSchema> => {
    const n = Number(id);
    let s = schemas.get(n);
    if (s === undefined) {
      s = await table.schemaManager().schema(n);
      schemas.set(n, s);
    }
    return s;
  };
  const tableFields = table.schema.fields;
  const partitionTypes = table.partitionFields.map((f) => f.type);
  const paths = table.pathFactory;
  const partitionText = (e: ManifestEntry): string => {
    const values = e.partition.toValues(partitionTypes);
    return `{${values.map((v, i) => castToString(partitionTypes[i]!, v)).join(', ')}}`;
  };
  const rows: { sort: [string, number, number, string]; row: TextRow }[] = [];
  for (const e of entries) {
    const f = e.file;
    const fileSchema = await schemaOf(f.schemaId);
    const st = valueStatsText(f, fileSchema, tableFields);
    const partition = partitionText(e);
    rows.push({
      sort: [partition, e.bucket, f.level, f.fileName],
      row: [
        partition,
        String(e.bucket),
        paths.toDataFilePath(e.partition, e.bucket, f),
        formatIdentifier(f.fileName),
        String(f.schemaId),
        String(f.level),
        String(f.rowCount),
        String(f.fileSize),
        keyText(f.minKey, fileSchema),
        keyText(f.maxKey, fileSchema),
        st.nullCounts,
        st.mins,
        st.maxs,
        String(f.minSequenceNumber),
        String(f.maxSequenceNumber),
        f.creationTime === null ? null : wallClockText(f.creationTime),
        f.deleteRowCount === null ? null : String(f.deleteRowCount),
        f.fileSource === null ? null : (FILE_SOURCE[f.fileSource] ?? String(f.fileSource)),
        f.firstRowId === null ? null : String(f.firstRowId),
        f.writeCols === null ? null : `[${f.writeCols.join(', ')}]`,
      ],
    });
  }
  const cmp = (a: string | number, b: string | number): number => (a < b ? -1 : a > b ? 1 : 0);
  rows.sort((x, y) => cmp(x.sort[0], y.sort[0]) || cmp(x.sort[1], y.sort[1]) || cmp(x.sort[2], y.sort[2]) || cmp(x.sort[3], y.sort[3]));
  return rows.map((r) => r.row);
}
