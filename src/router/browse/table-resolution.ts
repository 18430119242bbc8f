/**
 * Which configured catalog, database and table a standalone browsing statement names: a
 * catalog written in the statement or the session's current one, a database written or the
 * session's current one. Every miss is its own error (CATALOG_NOT_FOUND naming the configured
 * catalogs, DATABASE_NOT_FOUND, or the catalog's TABLE_NOT_FOUND), never a fallback.
 */
import { ProcedureError } from '../../../procedures/framework/errors.js';
import type { CatalogProvider, ProcedureCatalog } from '../../../procedures/framework/catalog.js';

/** What a browsing statement resolves names against. */
export interface BrowseContext {
  catalogs: CatalogProvider;
  /** The session's current catalog (null: Doris's `internal`, which standalone mode does not have). */
  currentCatalog: string | null;
  currentDatabase: string | null;
}

/**
 * CATALOG_NOT_FOUND for a catalog that is not a configured Paimon catalog (null: Doris's
 * default `internal`, which standalone mode does not have), naming the configured ones.
 */
export function unknownCatalog(name: string | null, catalogs: CatalogProvider): ProcedureError {
  return new ProcedureError('CATALOG_NOT_FOUND', `Unknown catalog '${name ?? 'internal'}' (configured: ${catalogs.names().join(', ') || 'none'})`);
}

export function resolveCatalog(ctx: BrowseContext, name: string | null): ProcedureCatalog {
  const catName = name ?? ctx.currentCatalog;
  const catalog = catName === null ? undefined : ctx.catalogs.get(catName);
  if (catalog === undefined) throw unknownCatalog(catName, ctx.catalogs);
  return catalog;
}

/** The database written, or the session's current one (only when the catalog is the current one). */
export function resolveDatabase(ctx: BrowseContext, catalog: ProcedureCatalog, db: string | null): string {
  const name = db ?? (catalog.name === ctx.currentCatalog ? ctx.currentDatabase : null);
  if (name === null) throw new ProcedureError('DATABASE_NOT_FOUND', 'No database selected: USE <database> first, or name the table as <database>.<table>');
  return name;
}

export async function requireDatabase(catalog: ProcedureCatalog, db: string): Promise<void> {
  if (!(await catalog.databaseExists(db))) throw new ProcedureError('DATABASE_NOT_FOUND', `Unknown database '${db}' in catalog '${catalog.name}'`);
}
