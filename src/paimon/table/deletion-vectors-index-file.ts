/**
 * Deletion-vector index files (`DeletionVectorsIndexFile`, `DeletionFileWriter`,
 * `BucketedDvMaintainer`): one file holds the deletion vectors of several data files of a bucket
 * (or, for bucket-unaware append tables, of any files). Layout: the version byte 1, then the
 * serialized deletion vectors one after the other; the index manifest entry
 * (`IndexFileMeta.dvRanges`) says, per data file, where its vector starts and how long it is.
 *
 * Location (`FileStorePathFactory.indexFileFactory`): the entry's external path when set; else,
 * with `index-file-in-data-file-dir` = true, the bucket directory; else `<table>/index/`.
 * New files are named `index-<uuid>-<n>` like Java's.
 */
import type { FileIO } from '../fs/file-io.js';
import { PaimonError } from '../errors.js';
import { join } from '../fs/path.js';
import { DV_INDEX_FILE_VERSION, readDeletionVector, type DeletionVectorBlob } from '../spec/deletion-vector.js';
import { DELETION_VECTORS_INDEX, type DeletionVectorMeta, type IndexFileMeta, type IndexManifestEntry } from './index-manifest.js';
import type { FileStorePathFactory } from './file-store-path-factory.js';

export interface DvIndexLocation {
  pathFactory: FileStorePathFactory;
  /** `index-file-in-data-file-dir` of the table. */
  inDataFileDir: boolean;
}

/** Full path of an index file (`IndexPathFactory.toPath(IndexFileMeta)`). */
export function indexFilePath(loc: DvIndexLocation, meta: IndexFileMeta, bucketDir: string): string {
  if (meta.externalPath) return meta.externalPath;
  return loc.inDataFileDir ? join(bucketDir, meta.fileName) : loc.pathFactory.toIndexFilePath(meta.fileName);
}

/** Reads every deletion vector of one index file, keyed by data file name (`readAllDeletionVectors`). */
export async function readDeletionVectorsIndexFile(fileIO: FileIO, path: string, meta: IndexFileMeta): Promise<Map<string, DeletionVectorBlob>> {
  if (meta.indexType !== DELETION_VECTORS_INDEX) {
    throw new PaimonError('INVALID_ARGUMENT', `${meta.fileName} is a ${meta.indexType} index file, not a deletion-vector index file`);
  }
  const out = new Map<string, DeletionVectorBlob>();
  const ranges = meta.dvRanges ?? [];
  if (ranges.length === 0) return out;
  const buf = await fileIO.readFile(path);
  if (buf.length < 1 || buf[0] !== DV_INDEX_FILE_VERSION) {
    throw new PaimonError('CORRUPT_METADATA', `deletion-vector index file ${path}: version ${buf.length ? buf[0] : 'missing'} (expected ${DV_INDEX_FILE_VERSION})`);
  }
  for (const r of ranges) {
    const blob = readDeletionVector(buf, r.offset, r.length, `deletion vector of ${r.dataFileName} in ${path}`);
    if (r.cardinality !== null && BigInt(blob.dv.cardinality) !== r.cardinality) {
      throw new PaimonError('CORRUPT_METADATA', `deletion vector of ${r.dataFileName} in ${path}: ${blob.dv.cardinality} positions, the index entry says ${r.cardinality}`);
    }
    out.set(r.dataFileName, blob);
  }
  return out;
}

/** The index file's bytes and metadata for the given vectors, in the given order (`DeletionFileWriter`). */
export function encodeDeletionVectorsIndexFile(
  fileName: string,
  vectors: ReadonlyArray<{ dataFileName: string; blob: DeletionVectorBlob }>,
  externalPath: string | null = null,
): { data: Buffer; meta: IndexFileMeta } {
  const parts: Buffer[] = [Buffer.from([DV_INDEX_FILE_VERSION])];
  let pos = 1;
  const ranges: DeletionVectorMeta[] = [];
  const seen = new Set<string>();
  for (const v of vectors) {
    if (seen.has(v.dataFileName)) throw new PaimonError('INVALID_ARGUMENT', `two deletion vectors for data file ${v.dataFileName}`);
    seen.add(v.dataFileName);
    ranges.push({ dataFileName: v.dataFileName, offset: pos, length: v.blob.metaLength, cardinality: BigInt(v.blob.dv.cardinality) });
    parts.push(v.blob.blob);
    pos += v.blob.blob.length;
  }
  const data = Buffer.concat(parts);
  return {
    data,
    meta: {
      indexType: DELETION_VECTORS_INDEX,
      fileName,
      fileSize: BigInt(data.length),
      rowCount: BigInt(ranges.length),
      dvRanges: ranges,
      externalPath,
      globalIndexMeta: null,
    },
  };
}

/** Writes a new index file (`BucketedDvMaintainer.writeDeletionVectorsIndex` → `writeSingleFile`). */
export async function writeDeletionVectorsIndexFile(
  fileIO: FileIO,
  loc: DvIndexLocation,
  bucketDir: string,
  vectors: ReadonlyArray<{ dataFileName: string; blob: DeletionVectorBlob }>,
): Promise<{ meta: IndexFileMeta; path: string }> {
  const fileName = loc.pathFactory.newIndexFileName();
  const { data, meta } = encodeDeletionVectorsIndexFile(fileName, vectors);
  const path = indexFilePath(loc, meta, bucketDir);
  await fileIO.writeFile(path, data);
  return { meta, path };
}

/** The deletion-vector index entries of one bucket (partition key + bucket) among a snapshot's index entries. */
export function bucketDvEntries(entries: readonly IndexManifestEntry[], partitionKey: string, bucket: number): IndexManifestEntry[] {
  return entries.filter((e) => e.kind === 'ADD' && e.indexFile.indexType === DELETION_VECTORS_INDEX && e.bucket === bucket && e.partition.key() === partitionKey);
}
