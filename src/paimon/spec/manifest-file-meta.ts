/**
 * Paimon's `ManifestFileMeta` (`ManifestFileMeta.SCHEMA`, `ManifestFileMetaSerializer`, version 2):
 * one manifest file as listed in a manifest list.
 */
import { PaimonError } from '../errors.js';
import { MANIFEST_FILE_META_VERSION } from './avro-schemas.js';
import { simpleStatsFromRecord, simpleStatsToRecord, type SimpleStats, type SimpleStatsRecord } from './simple-stats.js';

export interface ManifestFileMeta {
  fileName: string;
  /** Exact byte size; Paimon's Avro reader uses it as the end of the file. */
  fileSize: bigint;
  numAddedFiles: bigint;
  numDeletedFiles: bigint;
  partitionStats: SimpleStats;
  schemaId: bigint;
  minBucket: number | null;
  maxBucket: number | null;
  minLevel: number | null;
  maxLevel: number | null;
  minRowId: bigint | null;
  maxRowId: bigint | null;
}

export interface ManifestFileMetaRecord {
  _VERSION: number;
  _FILE_NAME: string;
  _FILE_SIZE: bigint;
  _NUM_ADDED_FILES: bigint;
  _NUM_DELETED_FILES: bigint;
  _PARTITION_STATS: SimpleStatsRecord;
  _SCHEMA_ID: bigint;
  _MIN_BUCKET: number | null;
  _MAX_BUCKET: number | null;
  _MIN_LEVEL: number | null;
  _MAX_LEVEL: number | null;
  _MIN_ROW_ID: bigint | null;
  _MAX_ROW_ID: bigint | null;
}

export function manifestFileMetaToRecord(m: ManifestFileMeta): ManifestFileMetaRecord {
  return {
    _VERSION: MANIFEST_FILE_META_VERSION,
    _FILE_NAME: m.fileName,
    _FILE_SIZE: m.fileSize,
    _NUM_ADDED_FILES: m.numAddedFiles,
    _NUM_DELETED_FILES: m.numDeletedFiles,
    _PARTITION_STATS: simpleStatsToRecord(m.partitionStats),
    _SCHEMA_ID: m.schemaId,
    _MIN_BUCKET: m.minBucket,
    _MAX_BUCKET: m.maxBucket,
    _MIN_LEVEL: m.minLevel,
    _MAX_LEVEL: m.maxLevel,
    _MIN_ROW_ID: m.minRowId,
    _MAX_ROW_ID: m.maxRowId,
  };
}

const opt = <T>(v: T | undefined | null): T | null => (v === undefined ? null : v);

export function manifestFileMetaFromRecord(r: Record<string, unknown>, what: string): ManifestFileMeta {
  const rec = r as Partial<ManifestFileMetaRecord>;
  if (rec._VERSION !== MANIFEST_FILE_META_VERSION) {
    throw new PaimonError('UNSUPPORTED_FORMAT', `${what}: unsupported manifest file meta version ${String(rec._VERSION)} (expected ${MANIFEST_FILE_META_VERSION})`);
  }
  if (rec._FILE_NAME === undefined || rec._FILE_SIZE === undefined || rec._NUM_ADDED_FILES === undefined || rec._NUM_DELETED_FILES === undefined || rec._SCHEMA_ID === undefined) {
    throw new PaimonError('CORRUPT_METADATA', `${what}: manifest file meta lacks required fields`);
  }
  return {
    fileName: rec._FILE_NAME,
    fileSize: rec._FILE_SIZE,
    numAddedFiles: rec._NUM_ADDED_FILES,
    numDeletedFiles: rec._NUM_DELETED_FILES,
    partitionStats: simpleStatsFromRecord(rec._PARTITION_STATS, `${what} _PARTITION_STATS`),
    schemaId: rec._SCHEMA_ID,
    minBucket: opt(rec._MIN_BUCKET),
    maxBucket: opt(rec._MAX_BUCKET),
    minLevel: opt(rec._MIN_LEVEL),
    maxLevel: opt(rec._MAX_LEVEL),
    minRowId: opt(rec._MIN_ROW_ID),
    maxRowId: opt(rec._MAX_ROW_ID),
  };
}
