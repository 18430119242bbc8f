/**
 * Everything the maintenance procedures (expire_snapshots, remove_orphan_files, rollback_*)
 * read from one table branch, on top of the Paimon library: snapshot manager, latest schema
 * (partition fields and options), tags, consumers, long-lived changelogs, and the
 * MaintenanceReader / FileLocator adapters the pure planners in src/paimon/maintenance use.
 */
import { PaimonError, isPaimonError } from '../../src/paimon/errors.js';
import type { FileIO } from '../../src/paimon/fs/file-io.js';
import { binaryFieldTypeFromSql, BinaryRow } from '../../src/paimon/spec/binary-row.js';
import { branchPath } from '../../src/paimon/table/branch.js';
import { FileStorePathFactory } from '../../src/paimon/table/file-store-path-factory.js';
import { findEarliest, findLatest, listOriginalVersionedFiles, listVersionedFileStatus } from '../../src/paimon/table/hint-file.js';
import { parseJson, type JsonObject, type JsonValue } from '../../src/paimon/spec/json.js';
import { ManifestFile, mapIter } from '../../src/paimon/table/manifest-file.js';
import type { ManifestEntry } from '../../src/paimon/spec/manifest-entry.js';
import { manifestFileMetaFromRecord } from '../../src/paimon/spec/manifest-file-meta.js';
import { readObjectsFile } from '../../src/paimon/spec/objects-file.js';
import type { PartitionField } from '../../src/paimon/spec/partition-path.js';
import { join, name as baseName, parent } from '../../src/paimon/fs/path.js';
import { SnapshotManager } from '../../src/paimon/table/snapshot-manager.js';
import type {
  FileLocator,
  IndexFileRef,
  MaintenanceFileEntry,
  ManifestFileNames,
  MaintenanceReader,
  ManifestFileRef,
  SnapshotLike,
} from '../../src/paimon/maintenance/types.js';
import { parseSnapshotLike } from '../../src/paimon/maintenance/orphan-files.js';
import type { ResolvedTable } from './target.js';

export interface TableSchemaInfo {
  id: number;
  partitionKeys: string[];
  partitionFields: PartitionField[];
  options: Record<string, string>;
}

export interface TagInfo {
  name: string;
  path: string;
  snapshot: SnapshotLike;
  /** The tag file's bytes, to restore a snapshot file from it (rollback to an expired tag). */
  raw: Buffer;
}

function asObject(v: JsonValue, what: string): JsonObject {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new PaimonError('CORRUPT_METADATA', `${what} is not a JSON object`);
  }
  return v as JsonObject;
}

/** The latest schema file of a branch (`SchemaManager.latest`): partition fields and options. */
export async function readLatestSchema(fileIO: FileIO, root: string, what: string): Promise<TableSchemaInfo> {
  const dir = join(root, 'schema');
  let latest: number | null = null;
  for await (const { version } of listVersionedFileStatus(fileIO, dir, 'schema-')) {
    if (latest === null || version > latest) latest = version;
  }
  if (latest === null) throw new PaimonError('SCHEMA_NOT_FOUND', `${what} has no schema file in ${dir}`);
  const path = join(dir, `schema-${latest}`);
  const o = asObject(parseJson((await fileIO.readFile(path)).toString('utf8'), path), path);
  const fields = Array.isArray(o.fields) ? o.fields : [];
  const partitionKeys = Array.isArray(o.partitionKeys) ? o.partitionKeys.filter((k): k is string => typeof k === 'string') : [];
  const partitionFields: PartitionField[] = partitionKeys.map((k) => {
    const f = fields.find((x) => x !== null && typeof x === 'object' && !Array.isArray(x) && (x as JsonObject).name === k);
    const t = f ? (f as JsonObject).type : undefined;
    if (typeof t !== 'string') throw new PaimonError('CORRUPT_METADATA', `${path}: partition key ${k} has no atomic type`);
    return { name: k, type: binaryFieldTypeFromSql(t) };
  });
  const options: Record<string, string> = {};
  const opts = o.options;
  if (opts !== null && typeof opts === 'object' && !Array.isArray(opts)) {
    for (const [k, v] of Object.entries(opts as JsonObject)) if (typeof v === 'string') options[k] = v;
  }
  return { id: latest, partitionKeys, partitionFields, options };
}

/** One branch of a table, opened for maintenance. */
export class MaintenanceTable implements MaintenanceReader, FileLocator {
  readonly fileIO: FileIO;
  readonly location: string;
  readonly branch: string;
  readonly branchRoot: string;
  readonly snapshots: SnapshotManager;
  readonly pathFactory: FileStorePathFactory;
  readonly manifestFile: ManifestFile;
  private readonly partitionByKey = new Map<string, BinaryRow>();

  private constructor(
    readonly resolved: ResolvedTable,
    readonly schema: TableSchemaInfo,
  ) {
    this.fileIO = resolved.fileIO;
    this.location = resolved.location;
    this.branch = resolved.branch ?? 'main';
    this.branchRoot = branchPath(this.location, this.branch);
    this.snapshots = new SnapshotManager(this.fileIO, this.location, this.branch);
    this.pathFactory = new FileStorePathFactory(this.location, schema.partitionFields, {
      defaultName: schema.options['partition.default-name'],
      legacyName: schema.options['partition.legacy-name'] !== 'false',
      dataFilePathDirectory: schema.options['data-file.path-directory'] ?? null,
    });
    this.manifestFile = new ManifestFile(
      this.fileIO,
      this.pathFactory,
      schema.partitionFields.map((f) => f.type),
      { compression: schema.options['manifest.compression'] },
    );
  }

  static async open(resolved: ResolvedTable): Promise<MaintenanceTable> {
    const root = branchPath(resolved.location, resolved.branch ?? 'main');
    return new MaintenanceTable(resolved, await readLatestSchema(resolved.fileIO, root, resolved.identifier));
  }

  get identifier(): string {
    return this.resolved.identifier;
  }

  option(key: string): string | undefined {
    return this.schema.options[key];
  }

  // --- MaintenanceReader ---------------------------------------------------------------------

  async readManifestList(name: string): Promise<ManifestFileRef[]> {
    const path = this.pathFactory.toManifestFilePath(name);
    const buf = await this.fileIO.readFile(path);
    const out: ManifestFileRef[] = [];
    for (const r of readObjectsFile(buf, `manifest list ${path}`)) {
      const m = manifestFileMetaFromRecord(r, `manifest list ${path}`);
      out.push({ fileName: m.fileName, fileSize: Number(m.fileSize) });
    }
    return out;
  }

  async readManifestEntries(name: string): Promise<ManifestEntry[]> {
    return this.manifestFile.read(name);
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
    const buf = await this.fileIO.readFile(path);
    const out: IndexFileRef[] = [];
    for (const r of readObjectsFile(buf, `index manifest ${path}`)) {
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

  // --- snapshots, tags, consumers, changelogs --------------------------------------------------

  async latestSnapshotId(): Promise<number | null> {
    return this.snapshots.latestSnapshotId();
  }
  async earliestSnapshotId(): Promise<number | null> {
    return this.snapshots.earliestSnapshotId();
  }

  /** A snapshot of this branch in the planners' shape, or null if its file is gone. */
  async trySnapshot(id: number): Promise<SnapshotLike | null> {
    try {
      const buf = await this.fileIO.readFile(this.snapshots.snapshotPath(id));
      return parseSnapshotLike(buf.toString('utf8'), this.snapshots.snapshotPath(id));
    } catch (e) {
      if (isPaimonError(e, 'FILE_NOT_FOUND')) return null;
      throw e;
    }
  }

  tagDirectory(): string {
    return join(this.branchRoot, 'tag');
  }

  /** Every tag of this branch, sorted by snapshot id then name. */
  async tags(): Promise<TagInfo[]> {
    const out: TagInfo[] = [];
    for await (const { status, suffix } of listOriginalVersionedFiles(this.fileIO, this.tagDirectory(), 'tag-')) {
      let raw: Buffer;
      try {
        raw = await this.fileIO.readFile(status.path);
      } catch (e) {
        if (isPaimonError(e, 'FILE_NOT_FOUND')) continue; // deleted meanwhile
        throw e;
      }
      out.push({ name: suffix, path: status.path, snapshot: parseSnapshotLike(raw.toString('utf8'), status.path), raw });
    }
    out.sort((a, b) => a.snapshot.id - b.snapshot.id || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return out;
  }

  consumerDirectory(): string {
    return join(this.branchRoot, 'consumer');
  }

  /** `ConsumerManager.consumers()`: id -> nextSnapshot. */
  async consumers(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for await (const { status, suffix } of listOriginalVersionedFiles(this.fileIO, this.consumerDirectory(), 'consumer-')) {
      let text: string;
      try {
        text = (await this.fileIO.readFile(status.path)).toString('utf8');
      } catch (e) {
        if (isPaimonError(e, 'FILE_NOT_FOUND')) continue;
        throw e;
      }
      const o = asObject(parseJson(text, status.path), status.path);
      const n = o.nextSnapshot;
      const v = typeof n === 'number' ? n : typeof n === 'bigint' ? Number(n) : null;
      if (v === null) throw new PaimonError('CORRUPT_METADATA', `${status.path} has no nextSnapshot`);
      out.set(suffix, v);
    }
    return out;
  }

  changelogDirectory(): string {
    return join(this.branchRoot, 'changelog');
  }
  changelogPath(id: number): string {
    return join(this.changelogDirectory(), `changelog-${id}`);
  }

  /** Ids of the long-lived changelog files present. */
  async changelogIds(): Promise<number[]> {
    const ids: number[] = [];
    for await (const { version } of listVersionedFileStatus(this.fileIO, this.changelogDirectory(), 'changelog-')) ids.push(version);
    return ids.sort((a, b) => a - b);
  }

  async latestChangelogId(): Promise<number | null> {
    return findLatest(this.fileIO, this.changelogDirectory(), 'changelog-', (id) => this.changelogPath(id));
  }
  async earliestChangelogId(): Promise<number | null> {
    return findEarliest(this.fileIO, this.changelogDirectory(), 'changelog-', (id) => this.changelogPath(id));
  }
}

/** File name of a path (for results and logs). */
export function fileNameOf(p: string): string {
  return baseName(p);
}
