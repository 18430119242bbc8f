/**
 * The small, structural view of Paimon metadata that the maintenance planners (expire,
 * orphan reachability, rollback) work on. The planners take these values plus a reader
 * that is passed in, so they can be tested with plain data; a table's maintenance reader
 * (src/paimon/table/maintenance-reader.ts) adapts ManifestEntry / IndexManifestEntry to these
 * shapes.
 *
 * Field names follow Paimon's JSON and Java names (Snapshot.java, DataFileMeta.java,
 * FileEntry.Identifier); snapshots are read by the one snapshot parser (spec/snapshot.ts).
 */
import { PaimonError } from '../errors.js';
import type { SnapshotFiles } from '../spec/snapshot.js';

/**
 * The fields of a snapshot (or a tag trimmed to its snapshot, or a long-lived changelog) the
 * planners read: the snapshot files view, which a library Snapshot also satisfies.
 */
export type SnapshotLike = SnapshotFiles;

export type FileKind = 'ADD' | 'DELETE';

/** One manifest entry reduced to what file maintenance needs (Paimon's ExpireFileEntry plus size). */
export interface MaintenanceFileEntry {
  kind: FileKind;
  /** Opaque identity of the partition (for example the hex of its serialized BinaryRow). */
  partition: string;
  bucket: number;
  level: number;
  fileName: string;
  /** Bytes of the data file, from DataFileMeta.fileSize. */
  fileSize: number;
  extraFiles: readonly string[];
  externalPath: string | null;
  /** DataFileMeta._FILE_SOURCE: APPEND (0) or COMPACT (1); null in tables written before 0.9. */
  fileSource: 'APPEND' | 'COMPACT' | null;
}

/** A manifest file named in a manifest list (ManifestFileMeta). */
export interface ManifestFileRef {
  fileName: string;
  fileSize: number | null;
}

/** An index file named in an index manifest (IndexManifestEntry.indexFile). */
export interface IndexFileRef {
  fileName: string;
  fileSize: number | null;
  /** Index files may live outside `index/` since 1.3 (`_EXTERNAL_PATH`). */
  externalPath: string | null;
}

/**
 * Reads the metadata the planners need. Implementations throw PaimonError('FILE_NOT_FOUND')
 * for a missing file, so that the planners can tell "gone" (expired meanwhile) from "broken".
 */
export interface MaintenanceReader {
  readManifestList(name: string): Promise<ManifestFileRef[]>;
  readManifest(name: string): Promise<MaintenanceFileEntry[]>;
  readIndexManifest(name: string): Promise<IndexFileRef[]>;
  /**
   * Optional: only the file names of a manifest's entries, decoded lazily (errors may surface
   * while iterating). Orphan cleaning uses it when present, so that a large manifest is never
   * held decoded as a whole.
   */
  iterateManifestFiles?(name: string): Promise<Iterable<ManifestFileNames>>;
}

/** The names an entry of a manifest reaches: its data file and the extra files beside it. */
export interface ManifestFileNames {
  fileName: string;
  extraFiles: readonly string[];
}

/** Where files live: the table root for `manifest/`, `index/`, `statistics/` and data. */
export interface FileLocator {
  manifestPath(name: string): string;
  indexManifestPath(name: string): string;
  indexFilePath(ref: IndexFileRef): string;
  statisticsPath(name: string): string;
  dataFilePath(entry: MaintenanceFileEntry): string;
  /** An extra file (e.g. `<data>.index`) sits beside its data file (DataFilePathFactory.toAlignedPath). */
  extraFilePath(entry: MaintenanceFileEntry, extraFile: string): string;
}

/** The kinds of file a maintenance procedure deletes; results report counts and bytes per kind. */
export type DeletedFileKind =
  | 'data'
  | 'changelog'
  | 'manifest'
  | 'manifest_list'
  | 'index'
  | 'index_manifest'
  | 'statistics'
  | 'snapshot'
  | 'changelog_meta'
  | 'tag'
  | 'other';

export interface PlannedFile {
  path: string;
  kind: DeletedFileKind;
  /** Known size in bytes, or null when the metadata does not record it. */
  bytes: number | null;
}

/** Identity of a data file for merging ADD/DELETE entries (FileEntry.Identifier). */
export function entryIdentity(e: MaintenanceFileEntry): string {
  return `${e.partition}\u0000${e.bucket}\u0000${e.level}\u0000${e.fileName}\u0000${e.extraFiles.join('\u0001')}\u0000${e.externalPath ?? ''}`;
}

/** Key of a data file inside its bucket, as the tag skipper compares (partition, bucket, fileName). */
export function bucketFileKey(e: Pick<MaintenanceFileEntry, 'partition' | 'bucket' | 'fileName'>): string {
  return `${e.partition}\u0000${e.bucket}\u0000${e.fileName}`;
}

/**
 * Merge entries in order the way Paimon's FileEntry.mergeEntries does: an ADD is recorded,
 * a DELETE cancels an earlier entry of the same identity, a DELETE without an ADD stays as a
 * DELETE. An ADD of an identity already present is corrupt metadata.
 */
export function mergeEntries(
  entries: Iterable<MaintenanceFileEntry>,
  into: Map<string, MaintenanceFileEntry> = new Map(),
): Map<string, MaintenanceFileEntry> {
  for (const e of entries) {
    const id = entryIdentity(e);
    if (e.kind === 'ADD') {
      if (into.has(id)) {
        throw new PaimonError('CORRUPT_METADATA', `Trying to add file ${e.fileName} which is already added.`);
      }
      into.set(id, e);
    } else {
      if (into.has(id)) into.delete(id);
      else into.set(id, e);
    }
  }
  return into;
}
