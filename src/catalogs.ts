/**
 * The Paimon catalogs a proxy serves, built from `ProxyConfig.catalogs`: each entry becomes a
 * library catalog (src/paimon/catalog/catalog.ts) under its configured name, the port through
 * which procedures and the standalone responder reach databases and tables.
 */
import { catalogProperty, hiveMetastoreUri, restProperties, type CatalogConfig, type ProxyConfig } from './config-schema.js';
import type { FileIO } from './paimon/fs/file-io.js';
import { createFileIO } from './paimon/fs/file-io-factory.js';
import { FileSystemCatalog } from './paimon/catalog/filesystem-catalog.js';
import { RestCatalog } from './paimon/catalog/rest-catalog.js';
import { HiveCatalog } from './paimon/catalog/hive-catalog.js';
import type { CatalogProvider, ProcedureCatalog } from '../procedures/framework/catalog.js';
import { isAbsolute, resolve } from 'node:path';
import { schemeOf, stripTrailingSlash } from './paimon/fs/path.js';

/** A filesystem catalog under its configured name (the argument order the proxy's callers use). */
export class FileSystemProcedureCatalog extends FileSystemCatalog {
  constructor(name: string, warehouse: string, fileIO: FileIO) {
    super(warehouse, fileIO, name);
  }
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
  if (cfg.type === 'rest') return buildRestCatalog(cfg);
  const warehouse = normalizeWarehouse(cfg.warehouse);
  if (cfg.type === 'hive' || cfg.type === 'hms') return buildHiveCatalog(cfg, warehouse);
  if (cfg.type !== 'filesystem') {
    throw new Error(`catalog '${cfg.name}': type '${cfg.type}' is not supported yet (filesystem, hive/hms and rest are)`);
  }
  try {
    // Local paths and file: use node:fs; s3://, s3a://, oss:// the S3 client, hdfs:// and webhdfs:// WebHDFS, with the catalog's properties.
    return new FileSystemCatalog(warehouse, createFileIO(warehouse, cfg.properties), cfg.name);
  } catch (e) {
    // The message of createFileIO never contains property values (credentials).
    throw new Error(`catalog '${cfg.name}': ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * A REST catalog (src/paimon/catalog/rest-catalog.ts). The schema has checked uri, token.provider
 * and token; the server is first asked at the first use, so a catalog server that is down does
 * not keep the proxy from starting. Its other properties (storage options, header.*) go along.
 */
function buildRestCatalog(cfg: CatalogConfig): ProcedureCatalog {
  const provider = catalogProperty(cfg, 'token.provider');
  const token = catalogProperty(cfg, 'token');
  if (cfg.uri === undefined || (provider === 'bear' && token === undefined) || (provider !== 'bear' && provider !== 'dlf')) {
    throw new Error(`catalog '${cfg.name}': a REST catalog needs uri and token.provider: bear with a token, or dlf with dlf.access-key-id and dlf.access-key-secret`);
  }
  const properties = Object.fromEntries(Object.entries(restProperties(cfg.properties)).filter(([k]) => k !== 'token' && k !== 'token.provider'));
  try {
    const auth = provider === 'bear' ? { tokenProvider: 'bear' as const, token: token as string } : { tokenProvider: 'dlf' as const };
    return new RestCatalog(cfg.name, { uri: cfg.uri, warehouse: cfg.warehouse, ...auth, properties });
  } catch (e) {
    // RestCatalog's messages name the uri's problem or the missing option, never a credential.
    throw new Error(`catalog '${cfg.name}': ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * A Hive Metastore catalog (src/paimon/catalog/hive-catalog.ts). The metastore is first asked at
 * the first use, so a metastore that is down does not keep the proxy from starting. The metastore
 * uri keys are not storage options and stay out of the FileIO's properties.
 */
function buildHiveCatalog(cfg: CatalogConfig, warehouse: string): ProcedureCatalog {
  const uri = hiveMetastoreUri(cfg);
  if (uri === undefined) throw new Error(`catalog '${cfg.name}': a Hive catalog needs uri: thrift://host:port of the metastore`);
  const properties = Object.fromEntries(Object.entries(cfg.properties).filter(([k]) => k !== 'hive.metastore.uris' && k !== 'uri'));
  try {
    return new HiveCatalog(cfg.name, { uri, warehouse, properties });
  } catch (e) {
    // HiveCatalog's and createFileIO's messages never contain property values (credentials).
    throw new Error(`catalog '${cfg.name}': ${e instanceof Error ? e.message : String(e)}`);
  }
}

export function buildCatalogs(config: Pick<ProxyConfig, 'catalogs'>): CatalogSet {
  return new CatalogSet(config.catalogs.map(buildCatalog));
}
