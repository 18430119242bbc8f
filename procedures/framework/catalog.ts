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
import { CoreOptions } from '../../src/paimon/spec/core-options.js';
import { DEFAULT_MAIN_BRANCH, isMainBranch } from '../../src/paimon/table/branch.js';

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

/**
 * The same table (identity, location, branch) opened again through its scoped view. Its
 * external roots are those every schema of the branch (and of main) named: a file written
 * while an earlier `data-file.external-paths` was set is still the table's, and Paimon deletes
 * it where its manifest entry says.
 */
async function scopeTable(t: FileStoreTable): Promise<FileStoreTable> {
  if (t.fileIO instanceof TableScopedFileIO) return t;
  const externalPaths = new Set<string>();
  try {
    for (const p of t.options.dataFileExternalPaths()) externalPaths.add(p);
    const managers = [t.schemaManager(), ...(isMainBranch(t.branch) ? [] : [t.schemaManager().copyWithBranch(DEFAULT_MAIN_BRANCH)])];
    for (const m of managers) {
      for (const s of await m.listAll()) for (const p of new CoreOptions(s.options).dataFileExternalPaths()) externalPaths.add(p);
    }
  } catch {
    // No readable schema: the table fails at its first use of the schema anyway; its root is still its scope.
  }
  const io = new TableScopedFileIO(t.fileIO, t.location, { externalPaths: [...externalPaths] });
  return FileStoreTable.open(io, t.location, { database: t.database, table: t.name, branch: t.branch });
}

/** The catalogs a proxy serves, by name (exact match, as Doris matches catalog names). */
export interface CatalogProvider {
  get(name: string): ProcedureCatalog | undefined;
  names(): string[];
}
