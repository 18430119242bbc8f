/**
 * Paimon's `DataFileMeta`: the description of one data file inside a manifest entry, with all 20
 * fields of the 1.3+ schema (`DataFileMeta.SCHEMA`, `DataFileMetaSerializer`). Fields added after
 * 0.9 read as null from older manifests, as Paimon's name-matching Avro reader does.
 */
import { PaimonError } from '../errors.js';
import { avroBytesToBuffer, type AvroBytes } from './avro-schemas.js';
import { BinaryRow, deserializeBinaryRow } from './binary-row.js';
import { EMPTY_STATS, simpleStatsFromRecord, simpleStatsToRecord, type SimpleStats, type SimpleStatsRecord } from './simple-stats.js';

/** `FileSource`: how a data file came to be. */
export const FileSource = { APPEND: 0, COMPACT: 1 } as const;

export interface DataFileMeta {
  fileName: string;
  fileSize: bigint;
  /** All rows, including retract rows in PK tables. */
  rowCount: bigint;
  /** First key (trimmed primary key) of a PK file; the empty row for append files. */
  minKey: BinaryRow;
  maxKey: BinaryRow;
  keyStats: SimpleStats;
  valueStats: SimpleStats;
  minSequenceNumber: bigint;
  maxSequenceNumber: bigint;
  schemaId: bigint;
  level: number;
  extraFiles: string[];
  /** Epoch millis of the writer's local wall clock taken as UTC (`Timestamp.fromLocalDateTime`). */
  creationTime: bigint | null;
  deleteRowCount: bigint | null;
  embeddedIndex: Buffer | null;
  /** 0 APPEND, 1 COMPACT; null when unknown (pre-0.9 files). */
  fileSource: number | null;
  /** null: stats cover all fields of `schemaId`; otherwise the covered columns. */
  valueStatsCols: string[] | null;
  externalPath: string | null;
  firstRowId: bigint | null;
  writeCols: string[] | null;
}

/** Avro record shape of `DataFileMeta.SCHEMA`. */
export interface DataFileMetaRecord {
  _FILE_NAME: string;
  _FILE_SIZE: bigint;
  _ROW_COUNT: bigint;
  _MIN_KEY: Buffer | AvroBytes;
  _MAX_KEY: Buffer | AvroBytes;
  _KEY_STATS: SimpleStatsRecord;
  _VALUE_STATS: SimpleStatsRecord;
  _MIN_SEQUENCE_NUMBER: bigint;
  _MAX_SEQUENCE_NUMBER: bigint;
  _SCHEMA_ID: bigint;
  _LEVEL: number;
  _EXTRA_FILES: string[];
  _CREATION_TIME: bigint | null;
  _DELETE_ROW_COUNT: bigint | null;
  _EMBEDDED_FILE_INDEX: Buffer | AvroBytes | null;
  _FILE_SOURCE: number | null;
  _VALUE_STATS_COLS: string[] | null;
  _EXTERNAL_PATH: string | null;
  _FIRST_ROW_ID: bigint | null;
  _WRITE_COLS: string[] | null;
}

export function dataFileMetaToRecord(f: DataFileMeta): DataFileMetaRecord {
  return {
    _FILE_NAME: f.fileName,
    _FILE_SIZE: f.fileSize,
    _ROW_COUNT: f.rowCount,
    _MIN_KEY: f.minKey.serialize(),
    _MAX_KEY: f.maxKey.serialize(),
    _KEY_STATS: simpleStatsToRecord(f.keyStats),
    _VALUE_STATS: simpleStatsToRecord(f.valueStats),
    _MIN_SEQUENCE_NUMBER: f.minSequenceNumber,
    _MAX_SEQUENCE_NUMBER: f.maxSequenceNumber,
    _SCHEMA_ID: f.schemaId,
    _LEVEL: f.level,
    _EXTRA_FILES: f.extraFiles,
    _CREATION_TIME: f.creationTime,
    _DELETE_ROW_COUNT: f.deleteRowCount,
    _EMBEDDED_FILE_INDEX: f.embeddedIndex,
    _FILE_SOURCE: f.fileSource,
    _VALUE_STATS_COLS: f.valueStatsCols,
    _EXTERNAL_PATH: f.externalPath,
    _FIRST_ROW_ID: f.firstRowId,
    _WRITE_COLS: f.writeCols,
  };
}

function req<T>(v: T | undefined | null, name: string, what: string): T {
  if (v === undefined || v === null) throw new PaimonError('CORRUPT_METADATA', `${what}: required field ${name} is missing`);
  return v;
}

const opt = <T>(v: T | undefined | null): T | null => (v === undefined ? null : v);

export function dataFileMetaFromRecord(r: Partial<DataFileMetaRecord>, what: string): DataFileMeta {
  return {
    fileName: req(r._FILE_NAME, '_FILE_NAME', what),
    fileSize: req(r._FILE_SIZE, '_FILE_SIZE', what),
    rowCount: req(r._ROW_COUNT, '_ROW_COUNT', what),
    minKey: deserializeBinaryRow(req(r._MIN_KEY, '_MIN_KEY', what)),
    maxKey: deserializeBinaryRow(req(r._MAX_KEY, '_MAX_KEY', what)),
    keyStats: simpleStatsFromRecord(r._KEY_STATS, `${what} _KEY_STATS`),
    valueStats: simpleStatsFromRecord(r._VALUE_STATS, `${what} _VALUE_STATS`),
    minSequenceNumber: req(r._MIN_SEQUENCE_NUMBER, '_MIN_SEQUENCE_NUMBER', what),
    maxSequenceNumber: req(r._MAX_SEQUENCE_NUMBER, '_MAX_SEQUENCE_NUMBER', what),
    schemaId: req(r._SCHEMA_ID, '_SCHEMA_ID', what),
    level: req(r._LEVEL, '_LEVEL', what),
    extraFiles: req(r._EXTRA_FILES, '_EXTRA_FILES', what),
    creationTime: opt(r._CREATION_TIME),
    deleteRowCount: opt(r._DELETE_ROW_COUNT),
    embeddedIndex: avroBytesToBuffer(r._EMBEDDED_FILE_INDEX),
    fileSource: opt(r._FILE_SOURCE),
    valueStatsCols: opt(r._VALUE_STATS_COLS),
    externalPath: opt(r._EXTERNAL_PATH),
    firstRowId: opt(r._FIRST_ROW_ID),
    writeCols: opt(r._WRITE_COLS),
  };
}

/** `LocalDateTime.now()` stored as if it were UTC, in epoch millis (`_CREATION_TIME`). */
export function localNowAsUtcMillis(now: Date = new Date()): bigint {
  return BigInt(now.getTime() - now.getTimezoneOffset() * 60_000);
}

/** `DataFileMeta.forAppend`-style meta for a newly written append-table file. */
export function newAppendFileMeta(args: {
  fileName: string;
  fileSize: bigint;
  rowCount: bigint;
  valueStats: SimpleStats;
  minSequenceNumber: bigint;
  maxSequenceNumber: bigint;
  schemaId: bigint;
  fileSource?: number;
  level?: number;
  valueStatsCols?: string[] | null;
  extraFiles?: string[];
  embeddedIndex?: Buffer | null;
  externalPath?: string | null;
  firstRowId?: bigint | null;
  writeCols?: string[] | null;
  creationTime?: bigint;
}): DataFileMeta {
  return {
    fileName: args.fileName,
    fileSize: args.fileSize,
    rowCount: args.rowCount,
    minKey: BinaryRow.EMPTY_ROW,
    maxKey: BinaryRow.EMPTY_ROW,
    keyStats: EMPTY_STATS,
    valueStats: args.valueStats,
    minSequenceNumber: args.minSequenceNumber,
    maxSequenceNumber: args.maxSequenceNumber,
    schemaId: args.schemaId,
    level: args.level ?? 0,
    extraFiles: args.extraFiles ?? [],
    creationTime: args.creationTime ?? localNowAsUtcMillis(),
    deleteRowCount: 0n,
    embeddedIndex: args.embeddedIndex ?? null,
    fileSource: args.fileSource ?? FileSource.APPEND,
    valueStatsCols: args.valueStatsCols ?? null,
    externalPath: args.externalPath ?? null,
    firstRowId: args.firstRowId ?? null,
    writeCols: args.writeCols ?? null,
  };
}

/** Added rows minus deleted rows are what `deltaRecordCount` sums; `addRowCount` = rowCount - deleteRowCount. */
export function addRowCount(f: DataFileMeta): bigint {
  return f.rowCount - (f.deleteRowCount ?? 0n);
}
