/**
 * Paimon's `ManifestEntry` (`ManifestEntry.SCHEMA`, `ManifestEntrySerializer`, version 2): one ADD or
 * DELETE of a data file in a partition and bucket.
 */
import { PaimonError } from './errors.js';
import { deserializeBinaryRow, type BinaryRow } from './binary-row.js';
import { dataFileMetaFromRecord, dataFileMetaToRecord, type DataFileMeta, type DataFileMetaRecord } from './data-file-meta.js';
import { MANIFEST_ENTRY_VERSION, type AvroBytes } from './avro-schemas.js';

/** `FileKind`: 0 ADD, 1 DELETE. */
export type FileKind = 'ADD' | 'DELETE';

export function fileKindToByte(k: FileKind): number {
  return k === 'ADD' ? 0 : 1;
}

export function fileKindFromByte(b: number, what: string): FileKind {
  if (b === 0) return 'ADD';
  if (b === 1) return 'DELETE';
  throw new PaimonError('CORRUPT_METADATA', `${what}: unknown file kind ${b}`);
}

export interface ManifestEntry {
  kind: FileKind;
  partition: BinaryRow;
  bucket: number;
  totalBuckets: number;
  file: DataFileMeta;
}

export interface ManifestEntryRecord {
  _VERSION: number;
  _KIND: number;
  _PARTITION: Buffer | AvroBytes;
  _BUCKET: number;
  _TOTAL_BUCKETS: number;
  _FILE: DataFileMetaRecord;
}

export function manifestEntryToRecord(e: ManifestEntry): ManifestEntryRecord {
  return {
    _VERSION: MANIFEST_ENTRY_VERSION,
    _KIND: fileKindToByte(e.kind),
    _PARTITION: e.partition.serialize(),
    _BUCKET: e.bucket,
    _TOTAL_BUCKETS: e.totalBuckets,
    _FILE: dataFileMetaToRecord(e.file),
  };
}

export function manifestEntryFromRecord(r: Record<string, unknown>, what: string): ManifestEntry {
  const rec = r as Partial<ManifestEntryRecord>;
  if (rec._VERSION !== MANIFEST_ENTRY_VERSION) {
    throw new PaimonError('UNSUPPORTED_FORMAT', `${what}: unsupported manifest entry version ${String(rec._VERSION)} (expected ${MANIFEST_ENTRY_VERSION})`);
  }
  if (rec._PARTITION === undefined || rec._BUCKET === undefined || rec._FILE === undefined || rec._KIND === undefined) {
    throw new PaimonError('CORRUPT_METADATA', `${what}: manifest entry lacks required fields`);
  }
  return {
    kind: fileKindFromByte(rec._KIND, what),
    partition: deserializeBinaryRow(rec._PARTITION),
    bucket: rec._BUCKET,
    // Paimon 0.x manifests may lack _TOTAL_BUCKETS; Java reads a missing non-null int as an error,
    // we read it as -1 (unknown) rather than fail.
    totalBuckets: rec._TOTAL_BUCKETS ?? -1,
    file: dataFileMetaFromRecord(rec._FILE, what),
  };
}

/** A DELETE for a live ADD entry: the same entry with only the kind changed (what Java writes). */
export function toDeleteEntry(e: ManifestEntry): ManifestEntry {
  return { ...e, kind: 'DELETE' };
}
