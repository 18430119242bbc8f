/**
 * What the procedure framework needs from a configured Paimon catalog: the library's catalog
 * interface (src/paimon/catalog/catalog.ts). The proxy builds one per `catalogs:` entry
 * (src/catalogs.ts); procedures reach tables through it and never construct storage access
 * themselves, so the same procedure runs against a filesystem, Hive or REST catalog.
 */
import type { Catalog } from '../../src/paimon/catalog/catalog.js';
import type { Identifier } from '../../src/paimon/catalog/identifier.js';
import { TableScopedFileIO } from '../../src/paimon/fs/table-scoped-file-io.js';
import { FileStoreTable } from '../../src/paimon/table/file-store-table.js';

export type ProcedureCatalog = Catalog;

/**
 * The catalog as a procedure sees it (the context hands out only this view): every table it
 * opens works through a TableScopedFileIO over the table's root (its branches included) and
 * the roots of its `data-file.external-paths`, so nothing a procedure deletes, renames or
 * writes can lie outside the table, whatever the table directory or its metadata holds; the
 * warehouse-wide `fileIO` reads only. Every other member is the catalog's own, so catalogs that
 * grow members keep them.
 */
export function tableScopedCatalog(catalog: ProcedureCatalog): ProcedureCatalog {
  const readOnly = new TableScopedFileIO(catalog.fileIO, null);
  const getTable = async (identifier: Identifier | string): Promise<FileStoreTable> => scopeTable(await catalog.getTable(identifier));
  return new Proxy(catalog, {
    get(target, prop) {
      if (prop === 'getTable') return getTable;
      if (prop === 'fileIO') return readOnly;
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** The same table (identity, location, branch) opened again through its scoped view. */
async function scopeTable(t: FileStoreTable): Promise<FileStoreTable> {
  if (t.fileIO instanceof TableScopedFileIO) return t;
  let externalPaths: string[] = [];
  try {
    externalPaths = t.options.dataFileExternalPaths();
  } catch {
    // No readable schema: the table fails at its first use of the schema anyway; its root is still its scope.
  }
  const io = new TableScopedFileIO(t.fileIO, t.location, { externalPaths });
  return FileStoreTable.open(io, t.location, { database: t.database, table: t.name, branch: t.branch });
}

/** The catalogs a proxy serves, by name (exact match, as Doris matches catalog names). */
export interface CatalogProvider {
  get(name: string): ProcedureCatalog | undefined;
  names(): string[];
}
