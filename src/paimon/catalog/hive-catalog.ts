/**
 * The Hive catalog (Paimon's `HiveCatalog`, paimon-hive-catalog): databases and tables are the
 * Hive Metastore's, reached over Thrift (hms/hms-client.ts); table files live on the warehouse's
 * storage and are read and written there, as Java does.
 *
 * * A table is a Paimon table when its storage descriptor names Paimon's input and output formats
 *   (`HiveCatalog.isPaimonTable`); other Hive tables are neither listed nor opened (Paimon also
 *   lists format tables; procedures cannot run on those anyway).
 * * Its location is the storage descriptor's `location` (`StorageLocationHelper`, Paimon's
 *   default; with `location-in-properties` it is the `path` table parameter
 *   (`TBPropertiesLocationHelper`)); a local `file:` location is used as a plain path.
 * * With `lock.enabled` (a catalog option in Paimon; its default is whether the warehouse is an
 *   object store) each snapshot commit runs under an EXCLUSIVE table lock of the metastore
 *   (`HiveCatalogLock`): `lock`, `check_lock` with doubling sleeps up to `lock-check-max-sleep`
 *   until `lock-acquire-timeout`, then the snapshot written only if absent, then `unlock` in
 *   finally. The catalog registers the tables it hands out (snapshot-commit.ts), so every
 *   FileStoreCommit of this process to such a table takes that lock, and Paimon Java writers
 *   holding it and our commits exclude each other.
 *
 * Not done: creating, altering or dropping tables and databases (Paimon's own engines do that);
 * `lock.type` other than the metastore's own lock.
 */
import { hostname, userInfo } from 'node:os';
import { PaimonError } from '../errors.js';
import type { FileIO } from '../fs/file-io.js';
import { createFileIO } from '../fs/file-io-factory.js';
import { isObjectStoreScheme, parseUri, schemeOf, stripTrailingSlash } from '../fs/path.js';
import { parseDuration } from '../spec/core-options.js';
import type { Snapshot } from '../spec/snapshot.js';
import { DEFAULT_MAIN_BRANCH, isMainBranch, branchPath } from '../table/branch.js';
import { FileStoreTable } from '../table/file-store-table.js';
import { SnapshotManager } from '../table/snapshot-manager.js';
import type { Catalog } from './catalog.js';
import { identifierToString, isSystemTable, parseIdentifier, SYSTEM_BRANCH_PREFIX, SYSTEM_TABLE_SPLITTER, type Identifier } from './identifier.js';
import { HmsClient, HmsException, parseMetastoreUris, type HmsLock, type HmsPartition, type HmsTable } from './hms/hms-client.js';
import { registerMetastorePartitions, unregisterAllMetastorePartitions, unregisterMetastorePartitions, type MetastorePartitions, type PartitionValues } from './metastore-partitions.js';
import { escapePathName } from '../spec/partition-path.js';
import { registerCatalogTable, unregisterCatalogTables, type SnapshotCommit } from './snapshot-commit.js';

/** `HiveCatalog.INPUT_FORMAT_CLASS_NAME` / `OUTPUT_FORMAT_CLASS_NAME`. */
export const PAIMON_INPUT_FORMAT = 'org.apache.paimon.hive.mapred.PaimonInputFormat';
export const PAIMON_OUTPUT_FORMAT = 'org.apache.paimon.hive.mapred.PaimonOutputFormat';

/** `CatalogOptions` defaults: LOCK_CHECK_MAX_SLEEP 8 s, LOCK_ACQUIRE_TIMEOUT 8 min. */
const DEFAULT_LOCK_CHECK_MAX_SLEEP_MS = 8_000;
const DEFAULT_LOCK_ACQUIRE_TIMEOUT_MS = 8 * 60_000;

export interface HiveCatalogOptions {
  /** `thrift://host:port`, or several separated by commas (`hive.metastore.uris`). */
  uri: string;
  warehouse: string;
  /** Storage options (s3.*) and Paimon's catalog options (lock.enabled, lock-check-max-sleep, ...). */
  properties?: Record<string, string>;
  /** Per metastore call; default 60 s. */
  timeoutMs?: number;
}

export function isPaimonHmsTable(t: HmsTable): boolean {
  return t.sd?.inputFormat === PAIMON_INPUT_FORMAT && t.sd?.outputFormat === PAIMON_OUTPUT_FORMAT;
}

function booleanOption(props: Record<string, string>, key: string): boolean | undefined {
  const v = props[key];
  if (v === undefined) return undefined;
  if (/^true$/i.test(v.trim())) return true;
  if (/^false$/i.test(v.trim())) return false;
  throw new PaimonError('INVALID_ARGUMENT', `catalog option ${key} must be true or false, got '${v}'`);
}

export class HiveCatalog implements Catalog {
  readonly type = 'hive' as const;
  readonly warehouse: string;
  readonly fileIO: FileIO;
  readonly lockEnabled: boolean;
  private readonly lockCheckMaxSleepMs: number;
  private readonly lockAcquireTimeoutMs: number;
  private readonly locationInProperties: boolean;
  private readonly client: HmsClient;

  constructor(
    readonly name: string,
    opts: HiveCatalogOptions,
  ) {
    const props = opts.properties ?? {};
    const lockType = props['lock.type'];
    if (lockType !== undefined && lockType !== 'hive') {
      throw new PaimonError('INVALID_ARGUMENT', `Hive catalog '${name}': lock.type '${lockType}' is not supported; leave it unset (or 'hive') to use the metastore's own table lock`);
    }
    this.warehouse = stripTrailingSlash(opts.warehouse);
    this.fileIO = createFileIO(this.warehouse, props);
    this.lockEnabled = booleanOption(props, 'lock.enabled') ?? this.fileIO.isObjectStore;
    this.lockCheckMaxSleepMs = props['lock-check-max-sleep'] !== undefined ? parseDuration(props['lock-check-max-sleep'], 'lock-check-max-sleep') : DEFAULT_LOCK_CHECK_MAX_SLEEP_MS;
    this.lockAcquireTimeoutMs = props['lock-acquire-timeout'] !== undefined ? parseDuration(props['lock-acquire-timeout'], 'lock-acquire-timeout') : DEFAULT_LOCK_ACQUIRE_TIMEOUT_MS;
    this.locationInProperties = booleanOption(props, 'location-in-properties') ?? false;
    this.client = new HmsClient({ catalogName: name, endpoints: parseMetastoreUris(opts.uri), ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}) });
  }

  async listDatabases(): Promise<string[]> {
    return (await this.client.getAllDatabases()).sort();
  }

  async databaseExists(database: string): Promise<boolean> {
    if (database.trim() === '') return false;
    return (await this.client.getDatabase(database)) !== null;
  }

  /** `listTablesImpl`: the database's tables whose metastore entry is a Paimon table, sorted. */
  async listTables(database: string): Promise<string[]> {
    if (!(await this.databaseExists(database))) throw this.databaseNotFound(database);
    const names = await this.client.getAllTables(database);
    const out: string[] = [];
    // Batches as Paimon's (`DEFAULT_TABLE_BATCH_SIZE`), so one answer stays bounded.
    for (let i = 0; i < names.length; i += 300) {
      for (const t of await this.client.getTableObjectsByName(database, names.slice(i, i + 300))) {
        if (isPaimonHmsTable(t)) out.push(t.tableName);
      }
    }
    return out.sort();
  }

  /** The metastore entry of a Paimon table, or null (absent, or a Hive table of another format). */
  private async paimonTable(database: string, table: string): Promise<HmsTable | null> {
    if (database.trim() === '' || table.trim() === '') return null;
    const t = await this.client.getTable(database, table);
    return t !== null && isPaimonHmsTable(t) ? t : null;
  }

  private locationOf(t: HmsTable): string {
    const raw = this.locationInProperties ? t.parameters?.path : t.sd?.location;
    if (raw === undefined || raw === null || raw === '') {
      throw new PaimonError('CORRUPT_METADATA', `${this.client.where()}: Paimon table ${t.dbName}.${t.tableName} has no location in the metastore`);
    }
    const scheme = schemeOf(raw);
    const warehouseScheme = schemeOf(this.warehouse);
    const local = (s: string): boolean => s === '' || s === 'file';
    if (local(scheme) && local(warehouseScheme)) return stripTrailingSlash(scheme === '' ? raw : parseUri(raw).path);
    const family = (s: string): string => (s === 's3a' || s === 's3n' ? 's3' : s);
    if (!(isObjectStoreScheme(scheme) && isObjectStoreScheme(warehouseScheme) && family(scheme) === family(warehouseScheme))) {
      throw new PaimonError(
        'UNSUPPORTED_TABLE',
        `table ${t.dbName}.${t.tableName} lives at ${raw}, outside the storage of catalog '${this.name}' (warehouse ${this.warehouse}); configure a catalog whose warehouse is on that storage`,
      );
    }
    return stripTrailingSlash(raw);
  }

  async tableExists(id: Identifier | string): Promise<boolean> {
    const ident = typeof id === 'string' ? parseIdentifier(id) : id;
    if (isSystemTable(ident)) return false;
    const t = await this.paimonTable(ident.database, ident.table);
    if (t === null) return false;
    return this.branchExistsAt(this.locationOf(t), ident.branch ?? DEFAULT_MAIN_BRANCH);
  }

  async tableLocation(database: string, table: string): Promise<string | null> {
    const t = await this.paimonTable(database, table);
    return t === null ? null : this.locationOf(t);
  }

  private async branchExistsAt(location: string, branch: string): Promise<boolean> {
    return isMainBranch(branch) || this.fileIO.exists(branchPath(location, branch));
  }

  async branchExists(database: string, table: string, branch: string): Promise<boolean> {
    if (isMainBranch(branch)) return true;
    const location = await this.tableLocation(database, table);
    return location !== null && (await this.branchExistsAt(location, branch));
  }

  async getTable(id: Identifier | string): Promise<FileStoreTable> {
    const ident = typeof id === 'string' ? parseIdentifier(id) : id;
    if (isSystemTable(ident)) {
      throw new PaimonError('UNSUPPORTED_TABLE', `${identifierToString(ident)} is a system table; procedures need a data table (${ident.database}.${ident.table})`);
    }
    const t = await this.paimonTable(ident.database, ident.table);
    if (t === null) {
      if (!(await this.databaseExists(ident.database))) throw this.databaseNotFound(ident.database);
      throw new PaimonError('TABLE_NOT_FOUND', `Table ${ident.database}.${ident.table} does not exist.`);
    }
    const location = this.locationOf(t);
    const branch = ident.branch ?? DEFAULT_MAIN_BRANCH;
    if (!(await this.branchExistsAt(location, branch))) {
      throw new PaimonError('BRANCH_NOT_FOUND', `Branch '${branch}' of table ${ident.database}.${ident.table} doesn't exist.`);
    }
    if (this.lockEnabled) {
      registerCatalogTable(this, location, (b) => new HiveLockedSnapshotCommit(this, this.fileIO, location, ident.database, lockObjectName(ident.table, b), b));
    }
    const table = await FileStoreTable.open(this.fileIO, location, { database: ident.database, table: ident.table, branch });
    this.fileMetastorePartitions(t, location, table);
    return table;
  }

  /**
   * `HiveCatalog.metastorePartitioned`: the metastore keeps the partitions of a partitioned table
   * with `metastore.partitioned-table`, and the tags of a table with `metastore.tag-to-partition`.
   * Such a table's location is filed with its metastore partitions (metastore-partitions.ts);
   * another table's is forgotten, so a table whose options changed stops being treated as one.
   */
  private fileMetastorePartitions(hms: HmsTable, location: string, table: FileStoreTable): void {
    const options = table.schema.options;
    const keepsDataPartitions = table.partitionKeys.length > 0 && (options['metastore.partitioned-table'] ?? 'false').trim().toLowerCase() === 'true';
    const field = options['metastore.tag-to-partition']?.trim();
    const tagPartitionField = field === undefined || field === '' ? null : field;
    if (!keepsDataPartitions && tagPartitionField === null) {
      unregisterMetastorePartitions(location);
      return;
    }
    const onlyValue = (options['format-table.partition-path-only-value'] ?? 'false').trim().toLowerCase() === 'true';
    registerMetastorePartitions(this, location, new HivePartitions(this.client, hms, { keepsDataPartitions, tagPartitionField, onlyValue, locationInProperties: this.locationInProperties }));
  }

  private databaseNotFound(database: string): PaimonError {
    return new PaimonError('DATABASE_NOT_FOUND', `Database '${database}' does not exist in catalog '${this.name}'`);
  }

  /**
   * `HiveCatalogLock.runWithLock`: an EXCLUSIVE table lock, waited for with `check_lock` (sleeps
   * doubling from 50 ms up to lock-check-max-sleep) until lock-acquire-timeout; a lock not
   * acquired is released and the commit refused (COMMIT_CONFLICT: nothing was written). The lock
   * is released in finally, whatever `body` does; a failing unlock is not the commit's failure
   * (Hive times abandoned locks out), as Java only logs it.
   */
  async runWithLock<T>(database: string, object: string, body: () => Promise<T>): Promise<T> {
    const what = `${database}.${object}`;
    const start = Date.now();
    let lock: HmsLock = await this.client.lockTable(database, object, lockUser(), hostname());
    let sleep = 50;
    try {
      while (lock.state === 'WAITING' && Date.now() - start < this.lockAcquireTimeoutMs) {
        sleep = Math.min(sleep * 2, this.lockCheckMaxSleepMs);
        await new Promise((r) => setTimeout(r, sleep));
        lock = await this.client.checkLock(lock, what);
      }
    } catch (e) {
      await this.releaseQuietly(lock, what);
      throw e;
    }
    if (lock.state !== 'ACQUIRED') {
      await this.releaseQuietly(lock, what);
      throw new PaimonError(
        'COMMIT_CONFLICT',
        `${this.client.where()}: the table lock on ${what} was not acquired after ${Date.now() - start} ms (state ${lock.state}${lock.errorMessage ? `: ${lock.errorMessage}` : ''}); another writer holds it: retry, or raise lock-acquire-timeout`,
      );
    }
    try {
      return await body();
    } finally {
      await this.releaseQuietly(lock, what);
    }
  }

  private async releaseQuietly(lock: HmsLock, what: string): Promise<void> {
    try {
      await this.client.unlock(lock, what);
    } catch {
      // Java's HiveCatalogLock.unlock only warns: the metastore expires the lock by itself.
    }
  }

  async close(): Promise<void> {
    unregisterCatalogTables(this);
    unregisterAllMetastorePartitions(this);
    this.client.close();
    await this.fileIO.close();
  }
}

/** `Identifier.getObjectName` of the table on a branch (what Java's lock names). */
function lockObjectName(table: string, branch: string): string {
  return isMainBranch(branch) ? table : `${table}${SYSTEM_TABLE_SPLITTER}${SYSTEM_BRANCH_PREFIX}${branch}`;
}

function lockUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'paimon-procedure-proxy';
  }
}

/**
 * `RenamingSnapshotCommit` under the catalog lock: inside the lock, `snapshot-N` is written only
 * when absent (create-if-absent as well, for stores without a real rename), then the LATEST hint.
 * False when another commit holds the id; the commit layer retries from the new latest.
 */
class HiveLockedSnapshotCommit implements SnapshotCommit {
  readonly wantsStatistics = false;
  private readonly snapshots: SnapshotManager;

  constructor(
    private readonly catalog: HiveCatalog,
    fileIO: FileIO,
    location: string,
    private readonly database: string,
    private readonly object: string,
    branch: string,
  ) {
    this.snapshots = new SnapshotManager(fileIO, location, branch);
  }

  commit(snapshot: Snapshot): Promise<boolean> {
    return this.catalog.runWithLock(this.database, this.object, async () => {
      if (await this.snapshots.snapshotExists(snapshot.id)) return false;
      return this.snapshots.commitSnapshot(snapshot);
    });
  }
}

/**
 * The metastore partitions of one Hive table (HiveCatalog's createPartitions, dropPartitions and
 * markDonePartitions). A new partition copies the table's storage descriptor with the partition's
 * location (`<table location>[/<data-file.path-directory>]/k=v/...`, the directory Paimon writes
 * it in), or puts that location into the `path` parameter with `location-in-properties`.
 */
class HivePartitions implements MetastorePartitions {
  readonly keepsDataPartitions: boolean;
  readonly tagPartitionField: string | null;
  private readonly onlyValue: boolean;
  private readonly locationInProperties: boolean;

  constructor(
    private readonly client: HmsClient,
    private readonly table: HmsTable,
    opts: { keepsDataPartitions: boolean; tagPartitionField: string | null; onlyValue: boolean; locationInProperties: boolean },
  ) {
    this.keepsDataPartitions = opts.keepsDataPartitions;
    this.tagPartitionField = opts.tagPartitionField;
    this.onlyValue = opts.onlyValue;
    this.locationInProperties = opts.locationInProperties;
  }

  get where(): string {
    return `${this.client.where()}, table ${this.table.dbName}.${this.table.tableName}`;
  }

  /** `getDataFilePath`: the table's location, under the table's `data-file.path-directory` parameter if set. */
  private dataFilePath(): string {
    const raw = (this.locationInProperties ? this.table.parameters?.path : this.table.sd?.location) ?? '';
    const base = stripTrailingSlash(raw);
    const dir = this.table.parameters?.['data-file.path-directory'];
    return dir === undefined || dir === '' ? base : `${base}/${dir}`;
  }

  /** `PartitionPathUtils.generatePartitionPathUtil`: escaped `k=v/` (or `v/` with only values) per field. */
  private partitionLocation(partition: PartitionValues): string {
    const path = partition.map(([k, v]) => (this.onlyValue ? escapePathName(v) : `${escapePathName(k)}=${escapePathName(v)}`)).join('/');
    return `${this.dataFilePath()}/${path}/`;
  }

  async add(partitions: readonly PartitionValues[]): Promise<void> {
    if (partitions.length === 0) return;
    const now = Math.floor(Date.now() / 1000);
    const parts: HmsPartition[] = partitions.map((p) => {
      const location = this.partitionLocation(p);
      const sd = { ...(this.table.sd ?? {}) };
      const parameters: Record<string, string> = {};
      if (this.locationInProperties) parameters.path = location;
      else sd.location = location;
      return { values: p.map(([, v]) => v), sd, parameters, createTime: now };
    });
    await this.client.addPartitions(this.table.dbName, this.table.tableName, parts);
  }

  async drop(partitions: readonly PartitionValues[]): Promise<number> {
    let dropped = 0;
    for (const p of partitions) {
      if (await this.client.dropPartition(this.table.dbName, this.table.tableName, p.map(([, v]) => v))) dropped++;
    }
    return dropped;
  }

  async markDone(partitions: readonly PartitionValues[]): Promise<void> {
    for (const p of partitions) {
      try {
        await this.client.markPartitionDone(this.table.dbName, this.table.tableName, Object.fromEntries(p));
      } catch (e) {
        // HiveCatalog.markDonePartitions: a partition the metastore does not have is skipped.
        if (!(e instanceof HmsException && e.notFound)) throw e;
      }
    }
  }
}
