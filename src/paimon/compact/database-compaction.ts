/**
 * Which tables a database-wide compaction covers, as Paimon's `CompactDatabaseAction` (Flink) and
 * `CompactDatabaseProcedure` (Spark) pick them: every database whose name fully matches
 * `including_databases` (default `.*`), and in it every table whose `db.table` fully matches
 * `including_tables` (default `.*`) and does not fully match `excluding_tables` (Java
 * `Matcher.matches()`; the patterns are Java regexes, translated by java-regex.ts). Databases and
 * tables come in the catalog's listing order (sorted), so a run is reproducible.
 */
import type { Catalog } from '../catalog/catalog.js';
import { compileJavaRegex } from './java-regex.js';

export interface DatabaseCompactionFilter {
  databases: RegExp;
  including: RegExp;
  excluding: RegExp | null;
}

export interface TableRef {
  database: string;
  table: string;
}

const blank = (s: string | null | undefined): boolean => s === null || s === undefined || s.trim() === '';

/** The three filters; a blank pattern is the default (`.*`, or no exclusion). */
export function databaseCompactionFilter(p: { includingDatabases: string | null; includingTables: string | null; excludingTables: string | null }): DatabaseCompactionFilter {
  return {
    databases: compileJavaRegex(blank(p.includingDatabases) ? '.*' : p.includingDatabases!, 'including_databases'),
    including: compileJavaRegex(blank(p.includingTables) ? '.*' : p.includingTables!, 'including_tables'),
    excluding: blank(p.excludingTables) ? null : compileJavaRegex(p.excludingTables!, 'excluding_tables'),
  };
}

/** Whether `db.table` is selected (Paimon's `shouldCompactionTable`). */
export function tableSelected(f: DatabaseCompactionFilter, ref: TableRef): boolean {
  const full = `${ref.database}.${ref.table}`;
  return f.including.test(full) && !(f.excluding?.test(full) ?? false);
}

/** The selected tables of the catalog, database by database. */
export async function selectTables(catalog: Pick<Catalog, 'listDatabases' | 'listTables'>, f: DatabaseCompactionFilter): Promise<TableRef[]> {
  const out: TableRef[] = [];
  for (const database of await catalog.listDatabases()) {
    if (!f.databases.test(database)) continue;
    for (const table of await catalog.listTables(database)) {
      if (tableSelected(f, { database, table })) out.push({ database, table });
    }
  }
  return out;
}
