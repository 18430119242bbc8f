/**
 * Index manifests (`IndexManifestEntry`, `IndexFileMeta`, `DeletionVectorMeta`, `GlobalIndexMeta`,
 * `IndexManifestFile`, `IndexManifestFileHandler`): the full set of live index files (hash indexes,
 * deletion-vector files, global indexes) of a snapshot, `_VERSION` 1.
 */
import type { FileIO } from '../fs/file-io.js';
import { PaimonError } from '../errors.js';
import { INDEX_MANIFEST_ENTRY_SCHEMA, INDEX_MANIFEST_ENTRY_VERSION, avroBytesToBuffer, type AvroBytes } from '../spec/avro-schemas.js';
import { deserializeBinaryRow, type BinaryRow } from '../spec/binary-row.js';
import { fileKindFromByte, fileKindToByte, type FileKind } from '../spec/manifest-entry.js';
import { encodeMetadataFile, readMetadataRecords, type MetadataFileOptions } from './manifest-file.js';
import type { FileStorePathFactory } from './file-store-path-factory.js';

export const HASH_INDEX = 'HASH';
export const DELETION_VECTORS_INDEX = 'DELETION_VECTORS';

/** Where one data file's deletion vector sits inside a DV index file. */
export interface DeletionVectorMeta {
  dataFileName: string;
  offset: number;
  length: number;
  /** Number of deleted rows (1.0+); null when unknown. */
  cardinality: bigint | null;
}

export interface GlobalIndexMeta {
  rowRangeStart: bigint;
  rowRangeEnd: bigint;
  indexFieldId: number;
  extraFieldIds: number[] | null;
  indexMeta: Buffer | null;
  /** 2.0+ */
  sourceMeta: Buffer | null;
}

export interface IndexFileMeta {
  indexType: string;
  fileName: string;
  fileSize: bigint;
  rowCount: bigint;
  /** Per data file, in file order (Java keeps a LinkedHashMap keyed by data file name). */
  dvRanges: DeletionVectorMeta[] | null;
  externalPath: string | null;
  globalIndexMeta: GlobalIndexMeta | null;
}

export interface IndexManifestEntry {
  kind: FileKind;
  partition: BinaryRow;
  bucket: number;
  indexFile: IndexFileMeta;
}

/** `BucketMode`, as far as the index combiner cares. */
export type BucketMode = 'HASH_FIXED' | 'HASH_DYNAMIC' | 'KEY_DYNAMIC' | 'BUCKET_UNAWARE' | 'POSTPONE_MODE';

interface DvRecord {
  f0: string;
  f1: number;
  f2: number;
  _CARDINALITY: bigint | null;
}
interface GlobalIndexRecord {
  _ROW_RANGE_START: bigint;
  _ROW_RANGE_END: bigint;
  _INDEX_FIELD_ID: number;
  _EXTRA_FIELD_IDS: number[] | null;
  _INDEX_META: Buffer | AvroBytes | null;
  _SOURCE_META: Buffer | AvroBytes | null;
}
interface IndexManifestEntryRecord {
  _VERSION: number;
  _KIND: number;
  _PARTITION: Buffer | AvroBytes;
  _BUCKET: number;
  _INDEX_TYPE: string;
  _FILE_NAME: string;
  _FILE_SIZE: bigint;
  _ROW_COUNT: bigint;
  _DELETIONS_VECTORS_RANGES: (DvRecord | null)[] | null;
  _EXTERNAL_PATH: string | null;
  _GLOBAL_INDEX: GlobalIndexRecord | null;
}

export function indexManifestEntryToRecord(e: IndexManifestEntry): IndexManifestEntryRecord {
  const f = e.indexFile;
  const g = f.globalIndexMeta;
  return {
    _VERSION: INDEX_MANIFEST_ENTRY_VERSION,
    _KIND: fileKindToByte(e.kind),
    _PARTITION: e.partition.serialize(),
    _BUCKET: e.bucket,
    _INDEX_TYPE: f.indexType,
    _FILE_NAME: f.fileName,
    _FILE_SIZE: f.fileSize,
    _ROW_COUNT: f.rowCount,
    _DELETIONS_VECTORS_RANGES:
      f.dvRanges === null ? null : f.dvRanges.map((d) => ({ f0: d.dataFileName, f1: d.offset, f2: d.length, _CARDINALITY: d.cardinality })),
    _EXTERNAL_PATH: f.externalPath,
    _GLOBAL_INDEX:
      g === null
        ? null
        : {
            _ROW_RANGE_START: g.rowRangeStart,
            _ROW_RANGE_END: g.rowRangeEnd,
            _INDEX_FIELD_ID: g.indexFieldId,
            _EXTRA_FIELD_IDS: g.extraFieldIds,
            _INDEX_META: g.indexMeta,
            _SOURCE_META: g.sourceMeta,
          },
  };
}

export function indexManifestEntryFromRecord(r: Record<string, unknown>, what: string): IndexManifestEntry {
  const rec = r as Partial<IndexManifestEntryRecord>;
  if (rec._VERSION !== INDEX_MANIFEST_ENTRY_VERSION) {
    throw new PaimonError('UNSUPPORTED_FORMAT', `${what}: unsupported index manifest entry version ${String(rec._VERSION)} (expected ${INDEX_MANIFEST_ENTRY_VERSION})`);
  }
  if (rec._KIND === undefined || rec._PARTITION === undefined || rec._BUCKET === undefined || rec._INDEX_TYPE === undefined || rec._FILE_NAME === undefined || rec._FILE_SIZE === undefined || rec._ROW_COUNT === undefined) {
    throw new PaimonError('CORRUPT_METADATA', `${what}: index manifest entry lacks required fields`);
  }
  const g = rec._GLOBAL_INDEX ?? null;
  return {
    kind: fileKindFromByte(rec._KIND, what),
    partition: deserializeBinaryRow(rec._PARTITION),
    bucket: rec._BUCKET,
    indexFile: {
      indexType: rec._INDEX_TYPE,
      fileName: rec._FILE_NAME,
      fileSize: rec._FILE_SIZE,
      rowCount: rec._ROW_COUNT,
      dvRanges:
        rec._DELETIONS_VECTORS_RANGES == null
          ? null
          : rec._DELETIONS_VECTORS_RANGES.filter((d): d is DvRecord => d !== null).map((d) => ({
              dataFileName: d.f0,
              offset: d.f1,
              length: d.f2,
              cardinality: d._CARDINALITY ?? null,
            })),
      externalPath: rec._EXTERNAL_PATH ?? null,
      globalIndexMeta:
        g === null
          ? null
          : {
              rowRangeStart: g._ROW_RANGE_START,
              rowRangeEnd: g._ROW_RANGE_END,
              indexFieldId: g._INDEX_FIELD_ID,
              extraFieldIds: g._EXTRA_FIELD_IDS ?? null,
              indexMeta: avroBytesToBuffer(g._INDEX_META),
              sourceMeta: avroBytesToBuffer(g._SOURCE_META),
            },
    },
  };
}

export class IndexManifestFile {
  constructor(
    readonly fileIO: FileIO,
    readonly pathFactory: FileStorePathFactory,
    readonly options: MetadataFileOptions = {},
  ) {}

  async read(fileName: string): Promise<IndexManifestEntry[]> {
    const path = this.pathFactory.toManifestFilePath(fileName);
    const what = `index manifest ${path}`;
    const out: IndexManifestEntry[] = [];
    for (const r of await readMetadataRecords(await this.fileIO.readFile(path), what)) out.push(indexManifestEntryFromRecord(r, what));
    return out;
  }

  /** Writes one index manifest with all given entries (`writeWithoutRolling`). */
  async write(entries: readonly IndexManifestEntry[]): Promise<{ fileName: string; fileSize: number }> {
    const fileName = this.pathFactory.newIndexManifestName();
    const data = await encodeMetadataFile(INDEX_MANIFEST_ENTRY_SCHEMA, entries.map(indexManifestEntryToRecord), this.options, `index manifest ${fileName}`);
    await this.fileIO.writeFile(this.pathFactory.toManifestFilePath(fileName), data);
    return { fileName, fileSize: data.length };
  }

  /**
   * `writeIndexFiles`: with no index changes the previous manifest name is kept; otherwise the
   * previous entries are combined with the changes per index type and a new complete file is written.
   */
  async writeIndexFiles(previous: string | null | undefined, changes: readonly IndexManifestEntry[], bucketMode: BucketMode): Promise<string | null> {
    if (changes.length === 0) return previous ?? null;
    const prev = previous ? await this.read(previous) : [];
    return (await this.write(combineIndexEntries(prev, changes, bucketMode))).fileName;
  }
}

/** `IndexManifestFileHandler.write` minus the I/O: the new full state of index entries. */
export function combineIndexEntries(prev: readonly IndexManifestEntry[], changes: readonly IndexManifestEntry[], bucketMode: BucketMode): IndexManifestEntry[] {
  for (const e of prev) {
    if (e.kind !== 'ADD') throw new PaimonError('CORRUPT_METADATA', `index manifest holds a DELETE entry for ${e.indexFile.fileName}`);
  }
  const byType = (list: readonly IndexManifestEntry[]): Map<string, IndexManifestEntry[]> => {
    const m = new Map<string, IndexManifestEntry[]>();
    for (const e of list) {
      const l = m.get(e.indexFile.indexType) ?? [];
      l.push(e);
      m.set(e.indexFile.indexType, l);
    }
    return m;
  };
  const p = byType(prev);
  const c = byType(changes);
  const out: IndexManifestEntry[] = [];
  for (const type of new Set([...p.keys(), ...c.keys()])) {
    const before = p.get(type) ?? [];
    const now = c.get(type) ?? [];
    if (type !== DELETION_VECTORS_INDEX && type !== HASH_INDEX) out.push(...combineByFileName(before, now, false));
    else if (type === DELETION_VECTORS_INDEX && bucketMode === 'BUCKET_UNAWARE') out.push(...combineByFileName(before, now, true));
    else out.push(...combineByBucket(before, now));
  }
  return out;
}

function combineByBucket(prev: readonly IndexManifestEntry[], changes: readonly IndexManifestEntry[]): IndexManifestEntry[] {
  const key = (e: IndexManifestEntry): string => `${e.partition.key()}|${e.bucket}|${e.indexFile.indexType}`;
  const m = new Map<string, IndexManifestEntry>();
  for (const e of prev) m.set(key(e), e);
  for (const e of changes) if (e.kind === 'DELETE') m.delete(key(e));
  for (const e of changes) if (e.kind === 'ADD') m.set(key(e), e);
  return [...m.values()];
}

/** GlobalCombiner (strict, DV on bucket-unaware tables) and GlobalIndexCombiner (lenient). */
function combineByFileName(prev: readonly IndexManifestEntry[], changes: readonly IndexManifestEntry[], strict: boolean): IndexManifestEntry[] {
  const m = new Map<string, IndexManifestEntry>();
  const dvFiles = new Set<string>();
  for (const e of prev) {
    m.set(e.indexFile.fileName, e);
    for (const d of e.indexFile.dvRanges ?? []) dvFiles.add(d.dataFileName);
  }
  if (!strict) {
    for (const e of changes) if (e.kind === 'DELETE') m.delete(e.indexFile.fileName);
    for (const e of changes) if (e.kind === 'ADD') m.set(e.indexFile.fileName, e);
    return [...m.values()];
  }
  for (const e of changes) {
    const name = e.indexFile.fileName;
    if (e.kind === 'ADD') {
      if (m.has(name)) throw new PaimonError('COMMIT_CONFLICT', `Trying to add index file ${name} which is already added`);
      for (const d of e.indexFile.dvRanges ?? []) {
        if (dvFiles.has(d.dataFileName)) throw new PaimonError('COMMIT_CONFLICT', `Trying to add a deletion vector for data file ${d.dataFileName} which already has one`);
        dvFiles.add(d.dataFileName);
      }
      m.set(name, e);
    } else {
      if (!m.has(name)) throw new PaimonError('COMMIT_CONFLICT', `Trying to delete index file ${name} which does not exist`);
      for (const d of e.indexFile.dvRanges ?? []) {
        if (!dvFiles.has(d.dataFileName)) throw new PaimonError('COMMIT_CONFLICT', `Trying to delete the deletion vector of data file ${d.dataFileName} which does not exist`);
        dvFiles.delete(d.dataFileName);
      }
      m.delete(name);
    }
  }
  return [...m.values()];
}
