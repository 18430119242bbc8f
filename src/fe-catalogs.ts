/**
 * Paimon catalogs read from the Doris FE itself (`catalogs_from_fe`): the proxy asks the FE, on
 * its service account (`upstream.refresh_user`), `SHOW CATALOGS` and, for each catalog of type
 * paimon, `SHOW CREATE CATALOG <name>`, and turns the printed properties into the same catalog
 * definitions the config file gives. The parsers are pure; the discovery class is the I/O edge.
 *
 * Shapes (Doris docs, sql-manual SHOW-CREATE-CATALOG / SHOW-CATALOGS; the property printing and
 * the mask checked in apache/doris fe-core common/util/PrintableMap.java):
 *  - SHOW CATALOGS: columns CatalogId, CatalogName, Type, IsCurrent, CreateTime, LastUpdateTime,
 *    Comment; Type is `paimon` for a Paimon catalog.
 *  - SHOW CREATE CATALOG: columns Catalog, CreateCatalog; the second is
 *    `CREATE CATALOG `name` [COMMENT "..."] PROPERTIES (\n"k" = "v",\n...\n);` printed by
 *    PrintableMap with `"` around keys and values as they are (nothing is escaped), the keys of
 *    PrintableMap.SENSITIVE_KEY (password, the S3/OSS/OBS/COS/GCS/Glue/DLF secret keys, ...)
 *    printed as `*XXX` and its HIDDEN_KEY left out. The FE therefore never hands out secrets: they come from
 *    this proxy's own `catalogs_from_fe.overrides`, and a catalog still lacking one is skipped
 *    with a message naming the catalog and the key.
 */
import mysql from 'mysql2/promise';
import { catalogSchema, type CatalogConfig } from './config-schema.js';
import type { CatalogProvider, ProcedureCatalog } from '../procedures/framework/catalog.js';
import { isSecretKey, maskText, registerSecret } from './security/masking.js';
import { describeFeError, quoteIdent } from './fe-refresh.js';

/** The value PrintableMap prints in place of a sensitive property. */
export const DORIS_HIDDEN_VALUE = '*XXX';

export type FeRow = Record<string, unknown>;

/** The names of the paimon catalogs in a SHOW CATALOGS result (other types are not ours). */
export function paimonCatalogNames(rows: readonly FeRow[]): string[] {
  const out: string[] = [];
  for (const r of rows) {
    const name = r.CatalogName;
    const type = r.Type;
    if (typeof name === 'string' && typeof type === 'string' && type.toLowerCase() === 'paimon') out.push(name);
  }
  return out;
}

/**
 * The PROPERTIES of a `CREATE CATALOG` text as SHOW CREATE CATALOG prints it. Throws when the
 * text has no PROPERTIES list (then the FE is not the Doris we expect).
 */
export function parseCreateCatalog(text: string): Record<string, string> {
  const start = text.search(/PROPERTIES\s*\(/i);
  if (start < 0) throw new Error('SHOW CREATE CATALOG returned no PROPERTIES (...) list');
  const body = text.slice(text.indexOf('(', start) + 1);
  const props: Record<string, string> = {};
  // PrintableMap escapes nothing: a value runs to the quote before the next `,` or `)`.
  const pair = /\s*"([^"]*)"\s*=\s*"([\s\S]*?)"\s*(,(?=\s*")|\)\s*;?\s*$|\))/gy;
  let m: RegExpExecArray | null;
  while ((m = pair.exec(body)) !== null) {
    props[m[1]!] = m[2]!;
    if (m[3]!.startsWith(')')) return props;
  }
  if (/^\s*\)/.test(body)) return props;
  throw new Error('SHOW CREATE CATALOG: the PROPERTIES list is not "key" = "value" pairs');
}

export interface FromFeOverride {
  properties: Record<string, string>;
}

/** Doris's `paimon.catalog.type` (default filesystem) as the proxy's catalog type. */
const METASTORES: Record<string, CatalogConfig['type']> = { filesystem: 'filesystem', hms: 'hms', hive: 'hms', rest: 'rest' };

/**
 * A catalog definition from the FE's properties plus this proxy's override for it (whose values,
 * secrets above all, win). Returns an error naming what is missing instead of a definition that
 * would fail later; no message contains a property value.
 */
export function catalogFromFe(name: string, feProps: Record<string, string>, override?: FromFeOverride): { ok: true; catalog: CatalogConfig } | { ok: false; error: string } {
  const props = { ...feProps, ...(override?.properties ?? {}) };
  const hidden = Object.keys(props).filter((k) => props[k] === DORIS_HIDDEN_VALUE).sort();
  if (hidden.length > 0) {
    return { ok: false, error: `catalog '${name}' from the FE: the FE hides ${hidden.join(', ')}; give ${hidden.length === 1 ? 'it' : 'them'} in catalogs_from_fe.overrides.${name}.properties` };
  }
  for (const [k, v] of Object.entries(props)) if (isSecretKey(k)) registerSecret(v);
  const metastore = props['paimon.catalog.type'] ?? 'filesystem';
  const type = METASTORES[metastore];
  if (type === undefined) return { ok: false, error: `catalog '${name}' from the FE: paimon.catalog.type '${metastore}' is not supported (filesystem, hms and rest are)` };
  const warehouse = props.warehouse;
  if (warehouse === undefined) return { ok: false, error: `catalog '${name}' from the FE: it has no warehouse property` };
  const properties: Record<string, string> = {};
  const given: Record<string, unknown> = { name, type, warehouse };
  for (const [k, v] of Object.entries(props)) {
    if (k === 'type' || k === 'paimon.catalog.type' || k === 'warehouse' || k === 'create_time') continue;
    if (k === 'uri' && type === 'rest') given.uri = v;
    else if (k === 'paimon.rest.token.provider' || k === 'token.provider') properties['token.provider'] = v;
    else if (k === 'paimon.rest.token' || k === 'token') properties.token = v;
    else properties[k] = v;
  }
  given.properties = properties;
  const parsed = catalogSchema.safeParse(given);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join('.') || '(catalog)'}: ${i.message}`).join('; ');
    return { ok: false, error: maskText(`catalog '${name}' from the FE: ${why}`) };
  }
  return { ok: true, catalog: parsed.data };
}

export interface FeCatalogOptions {
  host: string;
  port: number;
  user: string;
  password?: string;
  tls?: boolean;
  connectTimeoutMs?: number;
  /** Only these catalog names (all paimon catalogs when absent). */
  include?: readonly string[];
  overrides: Record<string, FromFeOverride>;
  /** Names configured in the file: they win over a discovered catalog of the same name. */
  staticNames: ReadonlySet<string>;
  build: (c: CatalogConfig) => ProcedureCatalog;
  warn: (message: string) => void;
}

/**
 * The configured catalogs plus those discovered on the FE. A refresh that fails (FE down, or an FE
 * that is not Doris) keeps the last good discovered set and warns.
 */
export class FeCatalogDiscovery implements CatalogProvider {
  private discovered = new Map<string, ProcedureCatalog>();

  constructor(
    private readonly base: CatalogProvider,
    private readonly opts: FeCatalogOptions,
  ) {
    registerSecret(opts.password);
  }

  get(name: string): ProcedureCatalog | undefined {
    return this.base.get(name) ?? this.discovered.get(name);
  }

  names(): string[] {
    return [...this.base.names(), ...[...this.discovered.keys()].filter((n) => !this.opts.staticNames.has(n))];
  }

  /** One discovery round; resolves to false (and warns) when the FE could not answer. */
  async refresh(): Promise<boolean> {
    let conn: mysql.Connection | undefined;
    try {
      conn = await mysql.createConnection({
        host: this.opts.host,
        port: this.opts.port,
        user: this.opts.user,
        password: this.opts.password,
        connectTimeout: this.opts.connectTimeoutMs ?? 10_000,
        ...(this.opts.tls ? { ssl: {} } : {}),
      });
      const [rows] = await conn.query('SHOW CATALOGS');
      const next = new Map<string, ProcedureCatalog>();
      for (const name of paimonCatalogNames(rows as FeRow[])) {
        if (this.opts.include && !this.opts.include.includes(name)) continue;
        if (this.opts.staticNames.has(name)) {
          this.opts.warn(`catalog '${name}' is both configured and on the FE; the configured one is used`);
          continue;
        }
        const [created] = await conn.query(`SHOW CREATE CATALOG ${quoteIdent(name)}`);
        const text = (created as FeRow[])[0]?.CreateCatalog;
        if (typeof text !== 'string') throw new Error(`SHOW CREATE CATALOG ${name} returned no CreateCatalog column`);
        const def = catalogFromFe(name, parseCreateCatalog(text), this.opts.overrides[name]);
        if (!def.ok) {
          this.opts.warn(def.error);
          continue;
        }
        try {
          next.set(name, this.opts.build(def.catalog));
        } catch (e) {
          this.opts.warn(maskText(`catalog '${name}' from the FE: ${e instanceof Error ? e.message : String(e)}`));
        }
      }
      this.discovered = next;
      return true;
    } catch (e) {
      const why = describeFeError(e);
      this.opts.warn(maskText(`catalogs_from_fe: the FE at ${this.opts.host}:${this.opts.port} did not answer SHOW CATALOGS / SHOW CREATE CATALOG (${why}); keeping the ${this.discovered.size} catalog(s) discovered before`));
      return false;
    } finally {
      await conn?.end().catch(() => undefined);
    }
  }
}

/** True for a statement that makes the FE reload a catalog, after which we rediscover. */
export function isRefreshCatalog(sql: string): boolean {
  return /^\s*REFRESH\s+CATALOG\b/i.test(sql);
}
