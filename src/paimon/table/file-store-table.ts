/**
 * One branch of one data table (`FileStoreTable`): the handle a catalog hands out and every
 * procedure works through. It carries the table's identity and storage, its latest schema and
 * options, the per-branch metadata managers (snapshots, schemas, tags, branches, consumers,
 * long-lived changelogs), the path factory, the manifest readers, a scan, a commit factory
 * (FileStoreCommit, the one path by which snapshots are written) and the maintenance reader the
 * planners of src/paimon/maintenance read the table through.
 *
 * The latest schema is read when the table is opened. Opening checks nothing else: whether a
 * database, table or branch exists is the catalog's question. A branch without a schema file,
 * or a schema that cannot be parsed, fails at the first use of what depends on the schema (the
 * schema itself, options, partition fields, path factory, manifests, scan, commit), so that a
 * table can be resolved and named before anything reads its metadata.
 */
import { PaimonError } from '../errors.js';
import type { FileIO } from '../fs/file-io.js';
import { join } from '../fs/path.js';
import { binaryFieldTypeOf, type BinaryFieldType } from '../spec/binary-row.js';
import { CoreOptions } from '../spec/core-options.js';
import type { PartitionField } from '../spec/partition-path.js';
import { trimmedPrimaryKeys, type TableSchema } from '../spec/table-schema.js';
import type { DataField } from '../spec/data-types.js';
import { BranchManager } from './branch-manager.js';
import { branchPath, isMainBranch, normalizeBranch } from './branch.js';
import { ChangelogManager } from './changelog-manager.js';
import { ConsumerManager } from './consumer-manager.js';
import { FileStoreCommit, type FileStoreCommitOptions } from './file-store-commit.js';
import { FileStorePathFactory } from './file-store-path-factory.js';
import { FileStoreScan } from './file-store-scan.js';
import { IndexManifestFile, type BucketMode } from './index-manifest.js';
import { ManifestFile, metadataFileOptions, type MetadataFileOptions } from './manifest-file.js';
import { ManifestList } from './manifest-list.js';
import { TableMaintenanceReader } from './maintenance-reader.js';
import { SchemaManager } from './schema-manager.js';
import { SnapshotManager } from './snapshot-manager.js';
import { TagManager } from './tag-manager.js';

const BRANCH_SUFFIX = '$branch_';

/** Which table a handle names: database, table and branch (main when absent). */
export interface TableIdentity {
  database: string;
  table: string;
  branch?: string | null;
}

/** What the commit factory takes beyond what the table knows. */
export type NewCommitOptions = Pick<FileStoreCommitOptions, 'writerStyle' | 'now' | 'sleep' | 'latestSchemaId'>;

type SchemaRead = { schema: TableSchema } | { error: unknown };

export class FileStoreTable {
  readonly database: string;
  /** The table name, without any `$branch_` suffix (Paimon's `Table.name()`). */
  readonly name: string;
  readonly branch: string;
  /** `db.tbl`, or `db.tbl$branch_b` for another branch: the name procedures report and print. */
  readonly identifier: string;
  private readonly cache = new Map<string, unknown>();

  private constructor(
    identity: TableIdentity,
    /** Table root: the main branch's directory; other branches live below it. */
    readonly location: string,
    readonly fileIO: FileIO,
    private readonly read: SchemaRead,
  ) {
    this.database = identity.database;
    this.name = identity.table;
    this.branch = normalizeBranch(identity.branch);
    this.identifier = identifierOf(identity);
  }

  /** The table at `location` on the identity's branch, with that branch's latest schema. */
  static async open(fileIO: FileIO, location: string, identity: TableIdentity): Promise<FileStoreTable> {
    const branch = normalizeBranch(identity.branch);
    let read: SchemaRead;
    try {
      const schema = await new SchemaManager(fileIO, location, branch).latest();
      read =
        schema !== null
          ? { schema }
          : { error: new PaimonError('SCHEMA_NOT_FOUND', `${identifierOf(identity)} has no schema file in ${join(branchPath(location, branch), 'schema')}`) };
    } catch (e) {
      read = { error: e };
    }
    return new FileStoreTable(identity, location, fileIO, read);
  }

  /** `CoreOptions.path`: the table root (the same as `location`). */
  get path(): string {
    return this.location;
  }

  /** `FileStoreTable.fullName()`. */
  get fullName(): string {
    return this.identifier;
  }

  /** Directory holding this branch's snapshot/, schema/, tag/, consumer/, changelog/. */
  branchPath(): string {
    return branchPath(this.location, this.branch);
  }

  private memo<T>(key: string, make: () => T): T {
    if (!this.cache.has(key)) this.cache.set(key, make());
    return this.cache.get(key) as T;
  }

  // --- the latest schema and what depends on it ----------------------------------------------

  /** The latest schema of this branch; throws what reading it failed with. */
  get schema(): TableSchema {
    if ('error' in this.read) throw this.read.error;
    return this.read.schema;
  }

  get options(): CoreOptions {
    return this.memo('options', () => {
      const s = this.schema;
      return new CoreOptions({ ...s.options, path: this.location, ...(isMainBranch(this.branch) ? {} : { branch: this.branch }) }, s.primaryKeys.length > 0);
    });
  }

  /** The schema's options map, as written. */
  option(key: string): string | undefined {
    return this.schema.options[key];
  }

  get primaryKeys(): string[] {
    return this.schema.primaryKeys;
  }

  get partitionKeys(): string[] {
    return this.schema.partitionKeys;
  }

  get isPrimaryKeyTable(): boolean {
    return this.schema.primaryKeys.length > 0;
  }

  /** Partition keys with their BinaryRow types (what manifests' `_PARTITION` rows hold). */
  get partitionFields(): PartitionField[] {
    return this.memo('partitionFields', () => this.schema.partitionKeys.map((k) => ({ name: k, type: this.binaryTypeOf(k, 'partition key') })));
  }

  /** The trimmed primary keys' BinaryRow types (the level >= 1 key-range check of a commit). */
  get keyTypes(): BinaryFieldType[] {
    return this.memo('keyTypes', () => (this.isPrimaryKeyTable ? trimmedPrimaryKeys(this.schema).map((k) => this.binaryTypeOf(k, 'primary key')) : []));
  }

  /** `BucketMode` as `FileStoreTable.bucketMode()` derives it from `bucket` and the keys. */
  get bucketMode(): BucketMode {
    const s = this.schema;
    const bucket = Number(s.options['bucket'] ?? '-1');
    if (s.primaryKeys.length === 0) return bucket === -1 ? 'BUCKET_UNAWARE' : 'HASH_FIXED';
    if (bucket !== -1) return 'HASH_FIXED';
    return s.partitionKeys.every((p) => s.primaryKeys.includes(p)) ? 'HASH_DYNAMIC' : 'KEY_DYNAMIC';
  }

  private binaryTypeOf(key: string, what: string): BinaryFieldType {
    const f: DataField | undefined = this.schema.fields.find((x) => x.name === key);
    if (f === undefined) throw new PaimonError('CORRUPT_METADATA', `${this.identifier}: ${what} ${key} is not a field of schema ${this.schema.id}`);
    const t = binaryFieldTypeOf(f.type);
    if (t === null) throw new PaimonError('UNSUPPORTED_FORMAT', `${this.identifier}: ${what} ${key} has type ${f.type.root}, which cannot be stored in a BinaryRow by this library`);
    return t;
  }

  get pathFactory(): FileStorePathFactory {
    return this.memo('pathFactory', () => {
      const o = this.schema.options;
      return new FileStorePathFactory(this.location, this.partitionFields, {
        defaultName: o['partition.default-name'],
        legacyName: o['partition.legacy-name'] !== 'false',
        dataFilePathDirectory: o['data-file.path-directory'] ?? null,
      });
    });
  }

  /** Compression, level and target size of manifests, manifest lists and index manifests. */
  get metadataFileOptions(): MetadataFileOptions {
    return this.memo('metadataFileOptions', () => metadataFileOptions(this.schema.options));
  }

  get manifestFile(): ManifestFile {
    return this.memo('manifestFile', () => new ManifestFile(this.fileIO, this.pathFactory, this.partitionFields.map((f) => f.type), this.metadataFileOptions));
  }

  get manifestList(): ManifestList {
    return this.memo('manifestList', () => new ManifestList(this.fileIO, this.pathFactory, this.metadataFileOptions));
  }

  get indexManifestFile(): IndexManifestFile {
    return this.memo('indexManifestFile', () => new IndexManifestFile(this.fileIO, this.pathFactory, this.metadataFileOptions));
  }

  newScan(): FileStoreScan {
    return new FileStoreScan(this.manifestList, this.manifestFile);
  }

  /** `FileStoreTable.newCommit(commitUser)`: the commit path of this branch. */
  newCommit(commitUser: string, opts: NewCommitOptions = {}): FileStoreCommit {
    return new FileStoreCommit({
      fileIO: this.fileIO,
      tablePath: this.location,
      branch: this.branch,
      commitUser,
      partitionFields: this.partitionFields,
      keyTypes: this.keyTypes,
      bucketMode: this.bucketMode,
      tableOptions: this.schema.options,
      ...opts,
    });
  }

  /**
   * The reader the maintenance planners use (MaintenanceReader, FileLocator) plus the snapshot,
   * tag, consumer and changelog views they are fed. A new one per call: it remembers the
   * partitions it has read, to locate their data files.
   */
  maintenanceReader(): TableMaintenanceReader {
    return new TableMaintenanceReader(this);
  }

  // --- per-branch metadata -------------------------------------------------------------------

  snapshotManager(): SnapshotManager {
    return this.memo('snapshotManager', () => new SnapshotManager(this.fileIO, this.location, this.branch));
  }
  schemaManager(): SchemaManager {
    return this.memo('schemaManager', () => new SchemaManager(this.fileIO, this.location, this.branch));
  }
  tagManager(): TagManager {
    return this.memo('tagManager', () => new TagManager(this.fileIO, this.location, this.branch));
  }
  branchManager(): BranchManager {
    return this.memo('branchManager', () => new BranchManager(this.fileIO, this.location, this.branch));
  }
  consumerManager(): ConsumerManager {
    return this.memo('consumerManager', () => new ConsumerManager(this.fileIO, this.location, this.branch));
  }
  changelogManager(): ChangelogManager {
    return this.memo('changelogManager', () => new ChangelogManager(this.fileIO, this.location, this.branch));
  }

  /** Re-read the latest schema (after a concurrent schema change). */
  async reload(): Promise<FileStoreTable> {
    return FileStoreTable.open(this.fileIO, this.location, { database: this.database, table: this.name, branch: this.branch });
  }
}

function identifierOf(id: TableIdentity): string {
  const branch = normalizeBranch(id.branch);
  return `${id.database}.${id.table}${isMainBranch(branch) ? '' : BRANCH_SUFFIX + branch}`;
}
