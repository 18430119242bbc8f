/**
 * What the procedure framework needs from a configured Paimon catalog: the library's catalog
 * interface (src/paimon/catalog/catalog.ts). The proxy builds one per `catalogs:` entry
 * (src/catalogs.ts); procedures reach tables through it and never construct storage access
 * themselves, so the same procedure runs against a filesystem, Hive or REST catalog.
 */
import type { Catalog } from '../../src/paimon/catalog/catalog.js';

export type ProcedureCatalog = Catalog;

/** The catalogs a proxy serves, by name (exact match, as Doris matches catalog names). */
export interface CatalogProvider {
  get(name: string): ProcedureCatalog | undefined;
  names(): string[];
}
