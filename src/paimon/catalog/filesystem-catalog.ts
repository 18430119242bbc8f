/**
 * The filesystem catalog (`FileSystemCatalog`, `AbstractCatalog`): warehouse layout
 * `<warehouse>/<db>.db/<table>/`. A directory is a table when it has a schema (schema-0 first,
 * else any `schema-N`), as `tableExistsInFileSystem`; other directories are skipped. Databases
 * are the `*.db` directories. A branch exists when its directory does
 * (`FileSystemBranchManager.branchExists`). System tables (`tbl$snapshots`) are not data tables:
 * getTable refuses them; listings never show them (they have no directory).
 */
import { DEFAULT_MAIN_BRANCH, branchPath, isMainBranch } from '../table/branch.js';
import { PaimonError } from '../errors.js';
import type { FileIO } from '../fs/file-io.js';
import { createFileIO } from '../fs/file-io-factory.js';
import { identifierToString, isSystemTable, parseIdentifier, type Identifier } from './identifier.js';
import { join, name as baseName, stripTrailingSlash } from '../fs/path.js';
import { SchemaManager } from '../table/schema-manager.js';
import { FileStoreTable } from '../table/file-store-table.js';
import type { NewSchema } from '../spec/table-schema.js';
import type { Catalog } from './catalog.js';

export const DB_SUFFIX = '.db';

function validateName(kind: string, n: string): void {
  if (n.trim() === '') throw new PaimonError('INVALID_ARGUMENT', `${kind} name must not be blank`);
  if (n.includes('/') || n.includes('\\') || n === '.' || n === '..') {
    throw new PaimonError('INVALID_ARGUMENT', `${kind} name '${n}' must not contain a path separator`);
  }
}

/** A name that cannot step outside its directory (not empty, no separators, not `.`/`..`, no NUL). */
function isValidName(n: string): boolean {
  return n !== '' && n !== '.' && n !== '..' && !n.includes('/') && !n.includes('\\') && !n.includes('\0');
}

export class FileSystemCatalog implements Catalog {
  readonly type = 'filesystem' as const;
  readonly warehouse: string;
  readonly name: string;

  constructor(
    warehouse: string,
    readonly fileIO: FileIO,
    /** The configured catalog name; the warehouse when the catalog is used without one. */
    name?: string,
  ) {
    this.warehouse = stripTrailingSlash(warehouse);
    this.name = name ?? this.warehouse;
  }

  /** Catalog over a warehouse URI, choosing local or S3 storage from it and the properties. */
  static open(warehouse: string, properties: Record<string, string> = {}, name?: string): FileSystemCatalog {
    return new FileSystemCatalog(warehouse, createFileIO(warehouse, properties), name);
  }

  databasePath(database: string): string {
    return join(this.warehouse, database + DB_SUFFIX);
  }

  tablePath(id: Pick<Identifier, 'database' | 'table'>): string {
    return join(this.databasePath(id.database), id.table);
  }

  private databaseNotFound(database: string): PaimonError {
    return new PaimonError('DATABASE_NOT_FOUND', `Database '${database}' does not exist in catalog '${this.name}'`);
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
    if (!isValidName(database)) return false;
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
    if (!(await this.databaseExists(database))) throw this.databaseNotFound(database);
    const out: string[] = [];
    for await (const st of this.fileIO.list(this.databasePath(database))) {
      if (!st.isDir) continue;
      if (await this.isTableDirectory(st.path)) out.push(baseName(st.path));
    }
    return out.sort();
  }

  async tableExists(id: Identifier | string): Promise<boolean> {
    const ident = typeof id === 'string' ? parseIdentifier(id) : id;
    if (isSystemTable(ident) || !isValidName(ident.database) || !isValidName(ident.table)) return false;
    return this.isTableDirectory(this.tablePath(ident), ident.branch ?? DEFAULT_MAIN_BRANCH);
  }

  async tableLocation(database: string, table: string): Promise<string | null> {
    if (!isValidName(database) || !isValidName(table)) return null;
    const path = this.tablePath({ database, table });
    return (await this.isTableDirectory(path)) ? path : null;
  }

  async branchExists(database: string, table: string, branch: string): Promise<boolean> {
    if (isMainBranch(branch)) return true;
    return this.fileIO.exists(branchPath(this.tablePath({ database, table }), branch));
  }

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
    if (!(await this.isTableDirectory(path))) {
      if (!(await this.databaseExists(ident.database))) throw this.databaseNotFound(ident.database);
      throw new PaimonError('TABLE_NOT_FOUND', `Table ${ident.database}.${ident.table} does not exist.`);
    }
    const branch = ident.branch ?? DEFAULT_MAIN_BRANCH;
    if (!(await this.branchExists(ident.database, ident.table, branch))) {
      throw new PaimonError('BRANCH_NOT_FOUND', `Branch '${branch}' of table ${ident.database}.${ident.table} doesn't exist.`);
    }
    return FileStoreTable.open(this.fileIO, path, { database: ident.database, table: ident.table, branch });
  }

  /** Create a table (schema-0) — for our own demo table and tests. */
  async createTable(id: Identifier | string, schema: NewSchema, ignoreIfExists = false): Promise<FileStoreTable> {
    const ident = typeof id === 'string' ? parseIdentifier(id) : id;
    if (isSystemTable(ident) || ident.branch !== undefined) {
      throw new PaimonError('INVALID_ARGUMENT', `cannot create ${identifierToString(ident)}: not a plain data table name`);
    }
    validateName('Table', ident.table);
    if (!(await this.databaseExists(ident.database))) throw this.databaseNotFound(ident.database);
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
