/**
 * What browsing needs to know about the tables of one catalog: their latest schema and latest
 * snapshot, read through the catalog (src/paimon/catalog) for the databases and tables a query
 * names, or all of them. A table whose metadata cannot be read stays in the listing with the
 * reason, so one damaged table does not hide the others from a browsing tool.
 */
import { toProcedureError } from '../../../procedures/framework/errors.js';
import type { ProcedureCatalog } from '../../../procedures/framework/catalog.js';
import type { Snapshot } from '../../paimon/spec/snapshot.js';
import type { TableSchema } from '../../paimon/spec/table-schema.js';

export interface TableMetadata {
  catalog: string;
  database: string;
  table: string;
  /** The latest schema, or null when it could not be read (see `error`). */
  schema: TableSchema | null;
  latestSnapshot: Snapshot | null;
  error: string | null;
}

export interface TableSelection {
  /** Only these databases (as written; a name that does not exist selects nothing). */
  databases?: string[] | null;
  tables?: string[] | null;
  /** Read the latest snapshot too (TABLES' row count and update time). */
  snapshots?: boolean;
}

/** The databases of a catalog that a selection names (all when it names none), sorted. */
export async function selectedDatabases(catalog: ProcedureCatalog, databases: string[] | null | undefined): Promise<string[]> {
  const all = await catalog.listDatabases();
  return databases == null ? all : all.filter((d) => databases.includes(d));
}

export async function loadTables(catalog: ProcedureCatalog, sel: TableSelection = {}): Promise<TableMetadata[]> {
  const out: TableMetadata[] = [];
  for (const database of await selectedDatabases(catalog, sel.databases)) {
    const names = (await catalog.listTables(database)).filter((t) => sel.tables == null || sel.tables.includes(t));
    const loaded = await Promise.all(names.map((table) => loadTable(catalog, database, table, sel.snapshots === true)));
    out.push(...loaded);
  }
  return out;
}

export async function loadTable(catalog: ProcedureCatalog, database: string, table: string, withSnapshot: boolean): Promise<TableMetadata> {
  const base = { catalog: catalog.name, database, table };
  try {
    const t = await catalog.getTable({ database, table });
    const schema = t.schema;
    const latestSnapshot = withSnapshot ? await t.snapshotManager().latestSnapshot() : null;
    return { ...base, schema, latestSnapshot, error: null };
  } catch (e) {
    return { ...base, schema: null, latestSnapshot: null, error: toProcedureError(e).message };
  }
}

/** One table for a SHOW that describes it: its errors (no such table, unreadable schema) are the statement's. */
export async function describeTable(catalog: ProcedureCatalog, database: string, table: string): Promise<{ meta: TableMetadata; location: string }> {
  const t = await catalog.getTable({ database, table });
  return { meta: { catalog: catalog.name, database, table, schema: t.schema, latestSnapshot: null, error: null }, location: t.location };
}
