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

/** What a rollback returns to (Paimon's `Instant`): a snapshot id or a tag. */
export type RollbackInstant = { kind: 'snapshot'; snapshotId: number } | { kind: 'tag'; tagName: string };

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
  /**
   * Paimon's `Catalog.supportsVersionManagement`: true when the catalog owns the table's versions
   * (REST). Snapshots are then committed through it (FileStoreCommit does so by itself), and a
   * rollback, a branch created, dropped or fast-forwarded must call the catalog instead of changing
   * files, or the catalog's view of the latest snapshot goes stale. Absent: false.
   */
  readonly supportsVersionManagement?: boolean;
  /**
   * `Catalog.rollbackTo` (catalogs with version management): the catalog rolls the table (or
   * branch) back to the instant; with `fromSnapshot`, only while the latest snapshot is still that
   * one (a pinned plan). The catalog removes the later snapshots itself.
   */
  rollbackTo?(identifier: Identifier, instant: RollbackInstant, fromSnapshot?: number | null): Promise<void>;
  /**
   * `Catalog.createBranch` / `dropBranch` / `fastForward` (catalogs with version management, as
   * Paimon's CatalogBranchManager calls them): the catalog creates the branch (from the latest
   * snapshot, or from a tag), drops it, or fast-forwards main to it, and keeps its own view of
   * each branch's latest snapshot in step. Renaming and merging branches are refused there, as
   * Paimon refuses them (`renameBranch` unsupported, "Branch merge is not supported via catalog").
   */
  createBranch?(database: string, table: string, branch: string, fromTag?: string | null): Promise<void>;
  dropBranch?(database: string, table: string, branch: string): Promise<void>;
  fastForward?(database: string, table: string, branch: string): Promise<void>;
  /** Releases what the catalog holds open (metastore connections, storage clients). */
  close?(): Promise<void>;
}
