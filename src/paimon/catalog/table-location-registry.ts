/**
 * What a catalog attaches to the tables it hands out, found again by table location. Paimon
 * carries such things in each table's `CatalogEnvironment`; our table handles are rebuilt from a
 * FileIO and a path in many places (compaction, table-scoped FileIO views), so the catalog files
 * them under the location instead, which is one table's for the life of the process.
 */
import { stripTrailingSlash } from '../fs/path.js';

export class TableLocationRegistry<T> {
  private readonly entries = new Map<string, { owner: object; value: T }>();

  set(owner: object, location: string, value: T): void {
    this.entries.set(stripTrailingSlash(location), { owner, value });
  }

  delete(location: string): void {
    this.entries.delete(stripTrailingSlash(location));
  }

  /** Forget everything `owner` filed (its catalog is closed). */
  deleteOwner(owner: object): void {
    for (const [k, v] of this.entries) if (v.owner === owner) this.entries.delete(k);
  }

  get(location: string): T | null {
    return this.entries.get(stripTrailingSlash(location))?.value ?? null;
  }
}
