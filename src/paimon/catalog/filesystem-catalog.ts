/**
 * The filesystem catalog (`FileSystemCatalog`, `AbstractCatalog`): warehouse layout
 * `<warehouse>/<db>.db/<table>/`. A directory is a table when it has a schema (schema-0 first,
 * else any `schema-N`), as `tableExistsInFileSystem`; other directories are skipped. Databases
 * are the `*.db` directories. System tables (`tbl$snapshots`) are not data tables: getTable
 * refuses them; listings never show them (they have no directory).
 */
import { BranchManager } from '../table/branch-manager.js';
import { DEFAULT_MAIN_BRANCH, branchPath, isMainBranch } from '../table/branch.js';
import { ChangelogManager } from '../table/changelog-manager.js';
import { ConsumerManager } from '../table/consumer-manager.js';
import { CoreOptions } from '../spec/core-options.js';
import { PaimonError } from '../errors.js';
import type { FileIO } from '../fs/file-io.js';
import { createFileIO } from '../fs/file-io-factory.js';
import { identifierToString, isSystemTable, parseIdentifier, type Identifier } from './identifier.js';
import { join, name as baseName, stripTrailingSlash } from '../fs/path.js';
import { SchemaManager } from '../table/schema-manager.js';
import { SnapshotManager } from '../table/snapshot-manager.js';
import type { NewSchema, TableSchema } from '../spec/table-schema.js';
import { TagManager } from '../table/tag-manager.js';

export const DB_SUFFIX = '.db';

/** One branch of one data table, with its latest schema. */
export class FileStoreTable {
  readonly options: CoreOptions;

  constructor(
    readonly identifier: Identifier,
    /** Table root (the main branch's directory; branches live below it). */
    readonly path: string,
    readonly branch: string,
    readonly fileIO: FileIO,
    readonly schema: TableSchema,
  ) {
    this.options = new CoreOptions(
      { ...schema.options, path, ...(isMainBranch(branch) ? {} : { branch }) },
      schema.primaryKeys.length > 0,
    );
  }

  /** `db.tbl` or `db.tbl$branch_b`. */
  get fullName(): string {
    return identifierToString({ ...this.identifier, systemTable: undefined });
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

  /** Directory holding this branch's snapshot/, schema/, tag/, consumer/, changelog/. */
  branchPath(): string {
    return branchPath(this.path, this.branch);
  }

  snapshotManager(): SnapshotManager {
    return new SnapshotManager(this.fileIO, this.path, this.branch);
  }
  schemaManager(): SchemaManager {
    return new SchemaManager(this.fileIO, this.path, this.branch);
  }
  tagManager(): TagManager {
    return new TagManager(this.fileIO, this.path, this.branch);
  }
  branchManager(): BranchManager {
    return new BranchManager(this.fileIO, this.path, this.branch);
  }
  consumerManager(): ConsumerManager {
    return new ConsumerManager(this.fileIO, this.path, this.branch);
  }
  changelogManager(): ChangelogManager {
    return new ChangelogManager(this.fileIO, this.path, this.branch);
  }

  /** The same table on another branch (its own latest schema). */
  async copyWithBranch(branch: string): Promise<FileStoreTable> {
    const schema = await new SchemaManager(this.fileIO, this.path, branch).latest();
    if (schema === null) {
      throw new PaimonError('BRANCH_NOT_FOUND', `Branch '${branch}' of table ${this.identifier.database}.${this.identifier.table} doesn't exist.`);
    }
    const id: Identifier = { database: this.identifier.database, table: this.identifier.table };
    if (!isMainBranch(branch)) id.branch = branch;
    return new FileStoreTable(id, this.path, branch, this.fileIO, schema);
  }

  /** Re-read the latest schema (after a concurrent schema change). */
  async reload(): Promise<FileStoreTable> {
    return this.copyWithBranch(this.branch);
  }
}

function validateName(kind: string, n: string): void {
  if (n.trim() === '') throw new PaimonError('INVALID_ARGUMENT', `${kind} name must not be blank`);
  if (n.includes('/') || n.includes('\\') || n === '.' || n === '..') {
    throw new PaimonError('INVALID_ARGUMENT', `${kind} name '${n}' must not contain a path separator`);
  }
}

export class FileSystemCatalog {
  readonly warehouse: string;

  constructor(
    warehouse: string,
    readonly fileIO: FileIO,
  ) {
    this.warehouse = stripTrailingSlash(warehouse);
  }

  /** Catalog over a warehouse URI, choosing local or S3 storage from it and the properties. */
  static open(warehouse: string, properties: Record<string, string> = {}): FileSystemCatalog {
    return new FileSystemCatalog(warehouse, createFileIO(warehouse, properties));
  }

  databasePath(database: string): string {
    return join(this.warehouse, database + DB_SUFFIX);
  }

  tablePath(id: Pick<Identifier, 'database' | 'table'>): string {
    return join(this.databasePath(id.database), id.table);
  }

  async listDatabases(): Promise<string[]> {
    const out: string[] = [];
    for await (const st of this.fileIO.list(this.warehouse)) {
      const n = baseName(st.path);
      if (st.isDir && n.endsWith(DB_SUFFIX) && n.length > DB_SUFFIX.length) out.push(n.slice(0, -DB_SUFFIX.length));
    }
    return out.sort();
  }

  async databaseExists(database: string): Promise<boolean> {
    return (await this.fileIO.getStatus(this.databasePath(database)))?.isDir === true;
  }

  async createDatabase(database: string, ignoreIfExists = false): Promise<void> {
    validateName('Database', database);
    if (database === 'sys') throw new PaimonError('INVALID_ARGUMENT', "'sys' is the system database and cannot be created");
    if (await this.databaseExists(database)) {
      if (ignoreIfExists) return;
      throw new PaimonError('INVALID_ARGUMENT', `Database ${database} already exists.`);
    }
    await this.fileIO.mkdirs(this.databasePath(database));
  }

  private async isTableDirectory(tablePath: string, branch = DEFAULT_MAIN_BRANCH): Promise<boolean> {
    const sm = new SchemaManager(this.fileIO, tablePath, branch);
    if (await sm.schemaExists(0)) return true;
    return (await sm.listAllIds()).length > 0;
  }

  /** Tables of a database (directories with a schema), sorted. DATABASE_NOT_FOUND if it does not exist. */
  async listTables(database: string): Promise<string[]> {
    if (!(await this.databaseExists(database))) {
      throw new PaimonError('DATABASE_NOT_FOUND', `Database ${database} does not exist in ${this.warehouse}.`);
    }
    const out: string[] = [];
    for await (const st of this.fileIO.list(this.databasePath(database))) {
      if (!st.isDir) continue;
      if (await this.isTableDirectory(st.path)) out.push(baseName(st.path));
    }
    return out.sort();
  }

  async tableExists(id: Identifier | string): Promise<boolean> {
    const ident = typeof id === 'string' ? parseIdentifier(id) : id;
    if (isSystemTable(ident)) return false;
    return this.isTableDirectory(this.tablePath(ident), ident.branch ?? DEFAULT_MAIN_BRANCH);
  }

  /**
   * The data table (on its branch when the name says `$branch_x`). System tables are refused
   * with UNSUPPORTED_TABLE; a missing database, table or branch has its own error code.
   */
  async getTable(id: Identifier | string): Promise<FileStoreTable> {
    const ident = typeof id === 'string' ? parseIdentifier(id) : id;
    if (isSystemTable(ident)) {
      throw new PaimonError(
        'UNSUPPORTED_TABLE',
        `${identifierToString(ident)} is a system table; procedures need a data table (${ident.database}.${ident.table})`,
      );
    }
    validateName('Table', ident.table);
    validateName('Database', ident.database);
    const path = this.tablePath(ident);
    const mainSchema = await new SchemaManager(this.fileIO, path).latest();
    if (mainSchema === null) {
      if (!(await this.databaseExists(ident.database))) {
        throw new PaimonError('DATABASE_NOT_FOUND', `Database ${ident.database} does not exist in ${this.warehouse}.`);
      }
      throw new PaimonError('TABLE_NOT_FOUND', `Table ${ident.database}.${ident.table} does not exist.`);
    }
    const branch = ident.branch ?? DEFAULT_MAIN_BRANCH;
    if (isMainBranch(branch)) return new FileStoreTable({ database: ident.database, table: ident.table }, path, branch, this.fileIO, mainSchema);
    const table = new FileStoreTable({ database: ident.database, table: ident.table }, path, DEFAULT_MAIN_BRANCH, this.fileIO, mainSchema);
    return table.copyWithBranch(branch);
  }

  /** Create a table (schema-0) — for our own demo table and tests. */
  async createTable(id: Identifier | string, schema: NewSchema, ignoreIfExists = false): Promise<FileStoreTable> {
    const ident = typeof id === 'string' ? parseIdentifier(id) : id;
    if (isSystemTable(ident) || ident.branch !== undefined) {
      throw new PaimonError('INVALID_ARGUMENT', `cannot create ${identifierToString(ident)}: not a plain data table name`);
    }
    validateName('Table', ident.table);
    if (!(await this.databaseExists(ident.database))) {
      throw new PaimonError('DATABASE_NOT_FOUND', `Database ${ident.database} does not exist in ${this.warehouse}.`);
    }
    if (await this.tableExists(ident)) {
      if (ignoreIfExists) return this.getTable(ident);
      throw new PaimonError('INVALID_ARGUMENT', `Table ${ident.database}.${ident.table} already exists.`);
    }
    const path = this.tablePath(ident);
    await new SchemaManager(this.fileIO, path).createTable(schema);
    return this.getTable(ident);
  }

  async close(): Promise<void> {
    await this.fileIO.close();
  }
}
