/**
 * What the procedure framework needs from a configured Paimon catalog. The proxy builds one
 * per `catalogs:` entry (src/catalogs.ts) on top of the Paimon library's catalog classes;
 * procedures reach tables through it and never construct storage access themselves, so the
 * same procedure runs against a filesystem, Hive or REST catalog.
 */
import type { FileIO } from '../../src/paimon/fs/file-io.js';

export type CatalogType = 'filesystem' | 'hive' | 'rest';

export interface ProcedureCatalog {
  /** The configured name (`CALL <name>.sys...`). */
  readonly name: string;
  readonly type: CatalogType;
  /** Warehouse root as configured (credentials are never part of it). */
  readonly warehouse: string;
  /** Storage of the warehouse's files. */
  readonly fileIO: FileIO;
  listDatabases(): Promise<string[]>;
  databaseExists(database: string): Promise<boolean>;
  /** Tables of a database; DATABASE_NOT_FOUND (PaimonError) when the database is absent. */
  listTables(database: string): Promise<string[]>;
  /** Root path of a table (`<warehouse>/<db>.db/<table>` for a filesystem catalog), or null when absent. */
  tableLocation(database: string, table: string): Promise<string | null>;
}

/** The catalogs a proxy serves, by name (exact match, as Doris matches catalog names). */
export interface CatalogProvider {
  get(name: string): ProcedureCatalog | undefined;
  names(): string[];
}
