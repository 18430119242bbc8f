/**
 * The catalog interface (Paimon's `Catalog`): databases, their tables, and the table handle
 * (FileStoreTable) of a table branch. The filesystem catalog (filesystem-catalog.ts) is the first
 * implementation; a Hive Metastore or REST catalog implements the same interface, so procedures
 * and the proxy never depend on where the metadata of a table lives.
 *
 * Existence answers are exact and never fall back: a name that cannot be a database or table
 * (empty, `.`, `..`, a path separator or NUL) does not exist.
 */
import type { FileIO } from '../fs/file-io.js';
import type { FileStoreTable } from '../table/file-store-table.js';
import type { Identifier } from './identifier.js';

export type CatalogType = 'filesystem' | 'hive' | 'rest';

export interface Catalog {
  /** The configured name (`CALL <name>.sys...`); it names the catalog in messages. */
  readonly name: string;
  readonly type: CatalogType;
  /** Warehouse root as configured (credentials are never part of it). */
  readonly warehouse: string;
  /** Storage of the warehouse's files. */
  readonly fileIO: FileIO;
  listDatabases(): Promise<string[]>;
  databaseExists(database: string): Promise<boolean>;
  /** Tables of a database, sorted; DATABASE_NOT_FOUND (PaimonError) when the database is absent. */
  listTables(database: string): Promise<string[]>;
  /** Whether the data table exists (system tables never do; a branch must exist too). */
  tableExists(identifier: Identifier | string): Promise<boolean>;
  /** Root path of a table (the main branch's directory), or null when it does not exist. */
  tableLocation(database: string, table: string): Promise<string | null>;
  /** Whether a branch of an existing table exists (`BranchManager.branchExists`); main always does. */
  branchExists(database: string, table: string, branch: string): Promise<boolean>;
  /**
   * The data table (on its branch when the identifier names one), with its latest schema. System
   * tables are UNSUPPORTED_TABLE; a missing database, table or branch has its own error code.
   */
  getTable(identifier: Identifier | string): Promise<FileStoreTable>;
}
