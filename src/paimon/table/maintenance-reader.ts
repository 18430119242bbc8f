/**
 * A table branch as the maintenance planners (src/paimon/maintenance: expire, orphan
 * reachability, rollback) read it: the MaintenanceReader and FileLocator they are passed, and
 * the snapshot, tag, consumer and long-lived changelog views they are fed, all in the planners'
 * narrow shapes. Snapshots and tags are read as SnapshotFiles (spec/snapshot.ts), the keys that
 * name files, as Java's OrphanFilesClean and SnapshotDeletion read them.
 */
import { PaimonError, isPaimonError } from '../errors.js';
import { join, parent } from '../fs/path.js';
import type { BinaryRow } from '../spec/binary-row.js';
import type { ManifestEntry } from '../spec/manifest-entry.js';
import { manifestFileMetaFromRecord } from '../spec/manifest-file-meta.js';
import { parseSnapshotFiles } from '../spec/snapshot.js';
import type {
  FileLocator,
  IndexFileRef,
  MaintenanceFileEntry,
  MaintenanceReader,
  ManifestFileNames,
  ManifestFileRef,
  SnapshotLike,
} from '../maintenance/types.js';
import { listOriginalVersionedFiles } from './hint-file.js';
import { mapIter, readMetadataRecords, type ManifestFile } from './manifest-file.js';
import type { FileStorePathFactory } from './file-store-path-factory.js';
import { TAG_PREFIX } from './tag-manager.js';
import type { FileStoreTable } from './file-store-table.js';

/** A tag file as maintenance sees it: its name and path, its snapshot, and its bytes. */
export interface TagInfo {
  name: string;
  path: string;
  snapshot: SnapshotLike;
  /** The tag file's bytes, to restore a snapshot file from it (rollback to an expired tag). */
  raw: Buffer;
}

export class TableMaintenanceReader implements MaintenanceReader, FileLocator {
  private readonly partitionByKey = new Map<string, BinaryRow>();
  private readonly pathFactory: FileStorePathFactory;
  private readonly manifestFile: ManifestFile;

  /** Needs the table's latest schema (partition fields, options): a table without one fails here. */
  constructor(readonly table: FileStoreTable) {
    this.pathFactory = table.pathFactory;
    this.manifestFile = table.manifestFile;
  }

  // --- MaintenanceReader ---------------------------------------------------------------------

  async readManifestList(name: string): Promise<ManifestFileRef[]> {
    const path = this.pathFactory.toManifestFilePath(name);
    const what = `manifest list ${path}`;
    const out: ManifestFileRef[] = [];
    for (const r of await readMetadataRecords(await this.table.fileIO.readFile(path), what)) {
      const m = manifestFileMetaFromRecord(r, what);
      out.push({ fileName: m.fileName, fileSize: Number(m.fileSize) });
    }
    return out;
  }

  async readManifest(name: string): Promise<MaintenanceFileEntry[]> {
    return (await this.manifestFile.read(name)).map((e) => this.toMaintenanceEntry(e));
  }

  /** The file names of a manifest's entries, decoded one block at a time (orphan cleaning: a base manifest can hold 100,000s of entries). */
  async iterateManifestFiles(name: string): Promise<Iterable<ManifestFileNames>> {
    return mapIter(await this.manifestFile.iterate(name), (e) => e.file);
  }

  toMaintenanceEntry(e: ManifestEntry): MaintenanceFileEntry {
    const key = e.partition.bytes.toString('hex');
    if (!this.partitionByKey.has(key)) this.partitionByKey.set(key, e.partition);
    return {
      kind: e.kind,
      partition: key,
      bucket: e.bucket,
      level: e.file.level,
      fileName: e.file.fileName,
      fileSize: Number(e.file.fileSize),
      extraFiles: e.file.extraFiles,
      externalPath: e.file.externalPath,
      fileSource: e.file.fileSource === null ? null : e.file.fileSource === 1 ? 'COMPACT' : 'APPEND',
    };
  }

  /** Index manifest entries (IndexManifestEntry): only the index file's name, size and location matter here. */
  async readIndexManifest(name: string): Promise<IndexFileRef[]> {
    const path = this.pathFactory.toManifestFilePath(name);
    const out: IndexFileRef[] = [];
    for (const r of await readMetadataRecords(await this.table.fileIO.readFile(path), `index manifest ${path}`)) {
      const fileName = r['_FILE_NAME'];
      if (typeof fileName !== 'string') throw new PaimonError('CORRUPT_METADATA', `index manifest ${path}: entry without _FILE_NAME`);
      const size = r['_FILE_SIZE'];
      const ext = r['_EXTERNAL_PATH'];
      out.push({
        fileName,
        fileSize: typeof size === 'number' ? size : typeof size === 'bigint' ? Number(size) : null,
        externalPath: typeof ext === 'string' ? ext : null,
      });
    }
    return out;
  }

  // --- FileLocator ---------------------------------------------------------------------------

  manifestPath(name: string): string {
    return this.pathFactory.toManifestFilePath(name);
  }
  indexManifestPath(name: string): string {
    return this.pathFactory.toManifestFilePath(name);
  }
  indexFilePath(ref: IndexFileRef): string {
    return this.pathFactory.toIndexFilePath(ref.fileName, ref.externalPath);
  }
  statisticsPath(name: string): string {
    return this.pathFactory.toStatsFilePath(name);
  }
  private partitionOf(e: MaintenanceFileEntry): BinaryRow {
    const p = this.partitionByKey.get(e.partition);
    if (p === undefined) throw new PaimonError('CORRUPT_METADATA', `unknown partition key ${e.partition}`);
    return p;
  }
  dataFilePath(e: MaintenanceFileEntry): string {
    return this.pathFactory.toDataFilePath(this.partitionOf(e), e.bucket, e);
  }
  extraFilePath(e: MaintenanceFileEntry, extraFile: string): string {
    // DataFilePathFactory.toAlignedPath: beside the data file (also for external data files).
    const dir = e.externalPath ? (parent(e.externalPath) ?? '') : this.pathFactory.bucketPath(this.partitionOf(e), e.bucket);
    return join(dir, extraFile);
  }

  // --- snapshots, tags, consumers ------------------------------------------------------------

  /** A snapshot of this branch in the planners' shape, or null if its file is gone. */
  async trySnapshot(id: number): Promise<SnapshotLike | null> {
    const path = this.table.snapshotManager().snapshotPath(id);
    try {
      return parseSnapshotFiles((await this.table.fileIO.readFile(path)).toString('utf8'), path);
    } catch (e) {
      if (isPaimonError(e, 'FILE_NOT_FOUND')) return null;
      throw e;
    }
  }

  /** Every tag of this branch, sorted by snapshot id then name; tags deleted while listing are skipped. */
  async tags(): Promise<TagInfo[]> {
    const out: TagInfo[] = [];
    const fileIO = this.table.fileIO;
    for await (const { status, suffix } of listOriginalVersionedFiles(fileIO, this.table.tagManager().tagDirectory(), TAG_PREFIX)) {
      let raw: Buffer;
      try {
        raw = await fileIO.readFile(status.path);
      } catch (e) {
        if (isPaimonError(e, 'FILE_NOT_FOUND')) continue;
        throw e;
      }
      out.push({ name: suffix, path: status.path, snapshot: parseSnapshotFiles(raw.toString('utf8'), status.path), raw });
    }
    out.sort((a, b) => a.snapshot.id - b.snapshot.id || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return out;
  }

  /** `ConsumerManager.consumers()`: id -> nextSnapshot. */
  async consumers(): Promise<Map<string, number>> {
    return this.table.consumerManager().consumers();
  }
}
