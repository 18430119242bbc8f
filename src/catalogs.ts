/**
 * The Paimon catalogs a proxy serves, built from `ProxyConfig.catalogs`. Each becomes a
 * ProcedureCatalog (procedures/framework/catalog.ts), the port through which procedures reach tables.
 *
 * Filesystem catalogs follow Paimon's `FileSystemCatalog` layout: a database is the directory
 * `<warehouse>/<db>.db`, a table is a directory below it that has at least one schema file
 * (`<table>/schema/schema-<id>`), as `FileSystemCatalog.tableExists` decides.
 */
import type { CatalogConfig, ProxyConfig } from './config-schema.js';
import type { FileIO } from './paimon/fs/file-io.js';
import { createFileIO } from './paimon/fs/file-io-factory.js';
import { PaimonError } from './paimon/errors.js';
import type { CatalogProvider, ProcedureCatalog } from '../procedures/framework/catalog.js';
import { isAbsolute, resolve } from 'node:path';
import { schemeOf, stripTrailingSlash } from './paimon/fs/path.js';

const DB_SUFFIX = '.db';

function baseName(p: string): string {
  const s = stripTrailingSlash(p);
  return s.slice(s.lastIndexOf('/') + 1);
}

export class FileSystemProcedureCatalog implements ProcedureCatalog {
  readonly type = 'filesystem' as const;
  constructor(
    readonly name: string,
    readonly warehouse: string,
    readonly fileIO: FileIO,
  ) {}

  private databasePath(database: string): string {
    return `${this.warehouse}/${database}${DB_SUFFIX}`;
  }

  async listDatabases(): Promise<string[]> {
    const out: string[] = [];
    for await (const st of this.fileIO.list(this.warehouse)) {
      const n = baseName(st.path);
      if (st.isDir && n.endsWith(DB_SUFFIX) && n.length > DB_SUFFIX.length) out.push(n.slice(0, -DB_SUFFIX.length));
    }
    return out.sort();
  }

  async databaseExists(database: string): Promise<boolean> {
    if (!validName(database)) return false;
    const st = await this.fileIO.getStatus(this.databasePath(database));
    return st !== null && st.isDir;
  }

  async listTables(database: string): Promise<string[]> {
    if (!(await this.databaseExists(database))) {
      throw new PaimonError('DATABASE_NOT_FOUND', `Database '${database}' does not exist in catalog '${this.name}'`);
    }
    const out: string[] = [];
    for await (const st of this.fileIO.list(this.databasePath(database))) {
      if (!st.isDir) continue;
      const t = baseName(st.path);
      if (await this.hasSchema(`${this.databasePath(database)}/${t}`)) out.push(t);
    }
    return out.sort();
  }

  async tableLocation(database: string, table: string): Promise<string | null> {
    if (!validName(database) || !validName(table)) return null;
    const loc = `${this.databasePath(database)}/${table}`;
    return (await this.hasSchema(loc)) ? loc : null;
  }

  private async hasSchema(tableLocation: string): Promise<boolean> {
    for await (const st of this.fileIO.list(`${tableLocation}/schema`)) {
      if (!st.isDir && /^schema-\d+$/.test(baseName(st.path))) return true;
    }
    return false;
  }
}

/** A name that cannot step outside its directory (no separators, not `.`/`..`). */
function validName(n: string): boolean {
  return n !== '' && n !== '.' && n !== '..' && !n.includes('/') && !n.includes('\\') && !n.includes('\0');
}

export class CatalogSet implements CatalogProvider {
  private readonly byName = new Map<string, ProcedureCatalog>();
  constructor(catalogs: readonly ProcedureCatalog[]) {
    for (const c of catalogs) {
      if (this.byName.has(c.name)) throw new Error(`catalog '${c.name}' is configured twice`);
      this.byName.set(c.name, c);
    }
  }
  get(name: string): ProcedureCatalog | undefined {
    return this.byName.get(name);
  }
  names(): string[] {
    return [...this.byName.keys()];
  }
  /** The first configured catalog: the current catalog of a standalone session and of `call`. */
  defaultName(): string | null {
    return this.byName.keys().next().value ?? null;
  }
}

/** Absolute warehouse path (relative local paths are taken from the working directory). */
export function normalizeWarehouse(warehouse: string): string {
  const scheme = schemeOf(warehouse);
  if (scheme === '' && !isAbsolute(warehouse)) return stripTrailingSlash(resolve(warehouse));
  return stripTrailingSlash(warehouse);
}

export function buildCatalog(cfg: CatalogConfig): ProcedureCatalog {
  const warehouse = normalizeWarehouse(cfg.warehouse);
  if (cfg.type !== 'filesystem') {
    throw new Error(`catalog '${cfg.name}': type '${cfg.type}' is not supported yet (only filesystem)`);
  }
  try {
    // Local paths and file: use node:fs; s3://, s3a://, oss:// use the S3 client with the catalog's properties.
    return new FileSystemProcedureCatalog(cfg.name, warehouse, createFileIO(warehouse, cfg.properties));
  } catch (e) {
    // The message of createFileIO never contains property values (credentials).
    throw new Error(`catalog '${cfg.name}': ${e instanceof Error ? e.message : String(e)}`);
  }
}

export function buildCatalogs(config: Pick<ProxyConfig, 'catalogs'>): CatalogSet {
  return new CatalogSet(config.catalogs.map(buildCatalog));
}
