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
import { createHash } from 'node:crypto';
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
    // Doris spells Paimon's REST options with a paimon.rest. prefix (paimon.rest.uri,
    // paimon.rest.token.provider, paimon.rest.dlf.access-key-id, ...).
    const key = type === 'rest' && k.startsWith('paimon.rest.') ? k.slice('paimon.rest.'.length) : k;
    if (key === 'uri' && type === 'rest') given.uri ??= v;
    else properties[key] ??= v;
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
  /** How a round reaches the FE (default: a mysql2 connection with the options above). */
  connect?: () => Promise<FeConnection>;
}

/** What a discovery round needs of its FE connection. */
export interface FeConnection {
  query(sql: string): Promise<[unknown, ...unknown[]]>;
  end(): Promise<void>;
}

/**
 * The configured catalogs plus those discovered on the FE. A refresh that fails (FE down, or an FE
 * that is not Doris) keeps the last good discovered set and warns.
 */
export class FeCatalogDiscovery implements CatalogProvider {
  /** Each discovered catalog with the definition it was built from (a changed definition rebuilds it). */
  private discovered = new Map<string, { definition: string; catalog: ProcedureCatalog }>();
  private running: Promise<boolean> | null = null;
  private queued: Promise<boolean> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Catalogs the FE dropped or redefined, still open for the calls that hold them. */
  private readonly retired = new Set<ProcedureCatalog>();

  constructor(
    private readonly base: CatalogProvider,
    private readonly opts: FeCatalogOptions,
  ) {
    registerSecret(opts.password);
  }

  get(name: string): ProcedureCatalog | undefined {
    return this.base.get(name) ?? this.discovered.get(name)?.catalog;
  }

  names(): string[] {
    return [...this.base.names(), ...[...this.discovered.keys()].filter((n) => !this.opts.staticNames.has(n))];
  }

  /** Discovers now, then every `intervalMs` until close (the timer never keeps the process alive). */
  start(intervalMs: number): void {
    void this.refresh();
    if (this.timer === null && !this.closed) this.timer = setInterval(() => void this.refresh(), intervalMs).unref();
  }

  /**
   * One discovery round; resolves to false (and warns) when the FE could not answer. Rounds never
   * overlap: a call while one runs (a REFRESH CATALOG during the timer's round) waits for it and
   * runs once more after it, so what the FE said after that statement is read; further calls in
   * that time share the same next round.
   */
  refresh(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.running === null) {
      this.running = this.discover().finally(() => {
        this.running = null;
      });
      return this.running;
    }
    this.queued ??= this.running.then(() => {
      this.queued = null;
      return this.refresh();
    });
    return this.queued;
  }

  /** Stops the timer and closes the discovered catalogs (their metastore connections and stores). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => false);
    const all = [...[...this.discovered.values()].map((d) => d.catalog), ...this.retired];
    this.discovered = new Map();
    this.retired.clear();
    await Promise.all(all.map(closeQuietly));
  }

  private async discover(): Promise<boolean> {
    let conn: FeConnection | undefined;
    try {
      conn = this.opts.connect
        ? await this.opts.connect()
        : ((await mysql.createConnection({
            host: this.opts.host,
            port: this.opts.port,
            user: this.opts.user,
            password: this.opts.password,
            connectTimeout: this.opts.connectTimeoutMs ?? 10_000,
            ...(this.opts.tls ? { ssl: {} } : {}),
          })) as unknown as FeConnection);
      const [rows] = await conn.query('SHOW CATALOGS');
      const next = new Map<string, { definition: string; catalog: ProcedureCatalog }>();
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
        // An unchanged definition keeps its catalog (and its connections); a changed one is rebuilt.
        // Kept as a digest, so the secrets in it are not held in memory a second time.
        const definition = createHash('sha256').update(JSON.stringify(def.catalog)).digest('hex');
        const old = this.discovered.get(name);
        if (old !== undefined && old.definition === definition) {
          next.set(name, old);
          continue;
        }
        try {
          next.set(name, { definition, catalog: this.opts.build(def.catalog) });
        } catch (e) {
          this.opts.warn(maskText(`catalog '${name}' from the FE: ${e instanceof Error ? e.message : String(e)}`));
        }
      }
      if (this.closed) {
        await Promise.all([...next.values()].filter((d) => this.discovered.get(d.catalog.name) !== d).map((d) => closeQuietly(d.catalog)));
        return false;
      }
      const replaced = [...this.discovered].filter(([name, d]) => next.get(name) !== d).map(([, d]) => d.catalog);
      this.discovered = next;
      // Calls that hold a replaced catalog finish on it; it is closed once they had their time.
      for (const c of replaced) this.retired.add(c);
      if (replaced.length > 0) {
        setTimeout(() => {
          for (const c of replaced) if (this.retired.delete(c)) void closeQuietly(c);
        }, RETIRED_CATALOG_GRACE_MS).unref();
      }
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

/** How long a catalog the FE dropped or redefined stays open for the calls still using it. */
const RETIRED_CATALOG_GRACE_MS = 10 * 60_000;

async function closeQuietly(c: ProcedureCatalog): Promise<void> {
  await c.close?.().catch(() => undefined);
}

/** True for a statement that makes the FE reload a catalog, after which we rediscover. */
export function isRefreshCatalog(sql: string): boolean {
  return /^\s*REFRESH\s+CATALOG\b/i.test(sql);
}
