/**
 * The REST catalog (Paimon's `RESTCatalog` over `RESTApi`, docs/static/rest-catalog-open-api.yaml
 * of 1.4.2 and 2.0.0): databases, tables and their locations come from the server; table files
 * are read and written directly on storage (as Java does without data tokens), and snapshots are
 * committed through the server's commit endpoint (`CatalogSnapshotCommit`): every table this
 * catalog hands out is registered for that (snapshot-commit.ts), so FileStoreCommit publishes
 * through the catalog whoever built it.
 *
 * The first request fetches `GET /v1/config?warehouse=<warehouse>` and merges the server's
 * defaults and overrides with the catalog's own options (`prefix`, `header.*`, storage options);
 * a failure there is reported and retried at the next use, so a catalog server that is down when
 * the proxy starts does not keep the proxy (or its other catalogs) from starting.
 *
 * The catalog owns versioning (`supportsVersionManagement`): besides commits, `rollbackTo`,
 * `createBranch`, `dropBranch` and `fastForward` go through its endpoints (what Paimon's
 * CatalogBranchManager calls); the branch list comes from it too. Tags stay files, as Java's
 * table keeps them (TagManager), also under a REST catalog.
 *
 * Data tokens (`data-token.enabled=true` in the merged catalog options, the server's overrides
 * usually; a table's own option does not decide, as in Java's `RESTCatalog.dataTokenEnabled`):
 * the table's files are reached with the temporary credentials of `GET .../token`
 * (rest/data-token.ts, Java's RESTTokenFileIO), through one FileIO per table that the table is
 * opened with, that the catalog-wide view routes the table's paths to, and that closes with the
 * catalog.
 * Not implemented: the `dlf` token provider.
 */
import { PaimonError } from '../errors.js';
import type { FileIO } from '../fs/file-io.js';
import { DEFAULT_MAIN_BRANCH, isMainBranch } from '../table/branch.js';
import { FileStoreTable } from '../table/file-store-table.js';
import { isJsonObject, type JsonObject } from '../spec/json.js';
import type { Catalog, RollbackInstant } from './catalog.js';
import { identifierToString, isSystemTable, parseIdentifier, type Identifier } from './identifier.js';
import { registerCatalogTable, unregisterCatalogTables } from './snapshot-commit.js';
import { RestClient, isRestFailure } from './rest/rest-client.js';
import { CONFIG_PATH, ResourcePaths } from './rest/resource-paths.js';
import { checkRestOptions, CREDENTIAL_OPTIONS, headersFrom, mergeConfig, PREFIX, restAuthOf, type ConfigResponse, type RestCatalogOptions } from './rest/rest-options.js';
import { RestSnapshotCommit } from './rest/rest-snapshot-commit.js';
import { SchemeFileIO } from './rest/scheme-file-io.js';
import { DATA_TOKEN_ENABLED, DataTokenFileIO, parseTableToken, type DataToken } from './rest/data-token.js';
import { createFileIO } from '../fs/file-io-factory.js';

interface Connected {
  client: RestClient;
  paths: ResourcePaths;
  options: Record<string, string>;
}

/** What `getTable` learns from the server (`GetTableResponse`). */
export interface RestTableInfo {
  uuid: string;
  location: string;
  schemaId: number | null;
  isExternal: boolean;
  /** Storage credentials come from the server (`data-token.enabled=true`). */
  dataToken: boolean;
}

function stringMap(v: JsonObject[string]): Record<string, string> {
  const out: Record<string, string> = {};
  if (isJsonObject(v)) for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

export class RestCatalog implements Catalog {
  readonly type = 'rest' as const;
  readonly supportsVersionManagement = true;
  readonly fileIO: SchemeFileIO;
  private connecting: Promise<Connected> | null = null;
  private merged: Record<string, string> = {};
  /** One FileIO per data-token table, by `db.table` and location. */
  private readonly tokenIOs = new Map<string, DataTokenFileIO>();

  constructor(
    readonly name: string,
    private readonly opts: RestCatalogOptions,
  ) {
    checkRestOptions(opts, name);
    this.fileIO = new SchemeFileIO(() => ({ ...(opts.properties ?? {}), ...this.merged }));
  }

  /** The warehouse name the catalog was configured with (a name on the server, not a path). */
  get warehouse(): string {
    return this.opts.warehouse;
  }

  /** The merged options after `GET /v1/config` (for tests and diagnostics; no token in them). */
  async options(): Promise<Readonly<Record<string, string>>> {
    return (await this.connect()).options;
  }

  private connect(): Promise<Connected> {
    if (this.connecting === null) {
      this.connecting = this.fetchConfig().catch((e: unknown) => {
        this.connecting = null;
        throw e;
      });
    }
    return this.connecting;
  }

  private clientWith(headers: Readonly<Record<string, string>>): RestClient {
    return new RestClient({ uri: this.opts.uri, auth: restAuthOf(this.opts, this.name), catalogName: this.name, headers, ...(this.opts.timeoutMs !== undefined ? { timeoutMs: this.opts.timeoutMs } : {}) });
  }

  private async fetchConfig(): Promise<Connected> {
    const own: Record<string, string> = { ...(this.opts.properties ?? {}), uri: this.opts.uri, warehouse: this.opts.warehouse, 'token.provider': this.opts.tokenProvider };
    for (const k of CREDENTIAL_OPTIONS) delete own[k];
    const first = this.clientWith(headersFrom(own));
    const answer = await first.get(CONFIG_PATH, { query: { warehouse: this.opts.warehouse }, what: `reading the configuration of warehouse '${this.opts.warehouse}'` });
    const config: ConfigResponse = { defaults: stringMap(answer.defaults), overrides: stringMap(answer.overrides) };
    const options = mergeConfig(config, own);
    delete options.token;
    this.merged = options;
    return { client: this.clientWith(headersFrom(options)), paths: new ResourcePaths(options[PREFIX] ?? ''), options };
  }

  async listDatabases(): Promise<string[]> {
    const { client, paths } = await this.connect();
    const items = await client.listAll(paths.databases(), 'databases', { what: 'listing databases' });
    return items.filter((x): x is string => typeof x === 'string').sort();
  }

  async databaseExists(database: string): Promise<boolean> {
    if (database.trim() === '') return false;
    const { client, paths } = await this.connect();
    try {
      await client.get(paths.database(database), { what: `reading database ${database}`, notFound: 'DATABASE_NOT_FOUND' });
      return true;
    } catch (e) {
      if (isRestFailure(e, 'not-found')) return false;
      throw e;
    }
  }

  async listTables(database: string): Promise<string[]> {
    const { client, paths } = await this.connect();
    const items = await client.listAll(paths.tables(database), 'tables', { what: `listing tables of database ${database}`, notFound: 'DATABASE_NOT_FOUND' });
    return items.filter((x): x is string => typeof x === 'string').sort();
  }

  /** `RESTApi.getTable` of the main branch; null when the server says it does not exist. */
  async tableInfo(database: string, table: string): Promise<RestTableInfo | null> {
    if (database.trim() === '' || table.trim() === '') return null;
    const { client, paths, options } = await this.connect();
    let t: JsonObject;
    try {
      t = await client.get(paths.table({ database, table }), { what: `reading table ${database}.${table}`, notFound: 'TABLE_NOT_FOUND' });
    } catch (e) {
      if (isRestFailure(e, 'not-found')) return null;
      throw e;
    }
    if (typeof t.path !== 'string' || t.path === '' || typeof t.id !== 'string') {
      throw new PaimonError('STORAGE_ERROR', `REST catalog '${this.name}' answered table ${database}.${table} without its path or id`);
    }
    const dataToken = options[DATA_TOKEN_ENABLED]?.trim().toLowerCase() === 'true';
    return { uuid: t.id, location: t.path, schemaId: typeof t.schemaId === 'number' ? t.schemaId : null, isExternal: t.isExternal === true, dataToken };
  }

  async tableExists(id: Identifier | string): Promise<boolean> {
    const ident = typeof id === 'string' ? parseIdentifier(id) : id;
    if (isSystemTable(ident)) return false;
    if ((await this.tableInfo(ident.database, ident.table)) === null) return false;
    return this.branchExists(ident.database, ident.table, ident.branch ?? DEFAULT_MAIN_BRANCH);
  }

  async tableLocation(database: string, table: string): Promise<string | null> {
    return (await this.tableInfo(database, table))?.location ?? null;
  }

  /** `CatalogBranchManager.branches()` (`GET .../branches`); main always exists. */
  async branchExists(database: string, table: string, branch: string): Promise<boolean> {
    if (isMainBranch(branch)) return true;
    return (await this.listBranches(database, table)).includes(branch);
  }

  async listBranches(database: string, table: string): Promise<string[]> {
    const { client, paths } = await this.connect();
    const answer = await client.get(paths.branches({ database, table }), { what: `listing branches of ${database}.${table}`, notFound: 'TABLE_NOT_FOUND' });
    const list = answer.branches;
    return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string').sort() : [];
  }

  async getTable(id: Identifier | string): Promise<FileStoreTable> {
    const ident = typeof id === 'string' ? parseIdentifier(id) : id;
    if (isSystemTable(ident)) {
      throw new PaimonError('UNSUPPORTED_TABLE', `${identifierToString(ident)} is a system table; procedures need a data table (${ident.database}.${ident.table})`);
    }
    const info = await this.tableInfo(ident.database, ident.table);
    if (info === null) {
      if (!(await this.databaseExists(ident.database))) {
        throw new PaimonError('DATABASE_NOT_FOUND', `Database '${ident.database}' does not exist in catalog '${this.name}'`);
      }
      throw new PaimonError('TABLE_NOT_FOUND', `Table ${ident.database}.${ident.table} does not exist.`);
    }
    const branch = ident.branch ?? DEFAULT_MAIN_BRANCH;
    if (!(await this.branchExists(ident.database, ident.table, branch))) {
      throw new PaimonError('BRANCH_NOT_FOUND', `Branch '${branch}' of table ${ident.database}.${ident.table} doesn't exist.`);
    }
    const { client, paths } = await this.connect();
    registerCatalogTable(this, info.location, (b) =>
      new RestSnapshotCommit(client, paths, { database: ident.database, table: ident.table, ...(isMainBranch(b) ? {} : { branch: b }), uuid: info.uuid }),
    );
    const storage: FileIO = info.dataToken ? await this.tokenFileIO(ident.database, ident.table, info.location) : this.fileIO.storeFor(info.location);
    return FileStoreTable.open(storage, info.location, { database: ident.database, table: ident.table, branch });
  }

  /**
   * The FileIO of a data-token table, made once per table and location. Its first token is
   * fetched here, so a table whose token the server refuses fails before anything is read.
   */
  private async tokenFileIO(database: string, table: string, location: string): Promise<DataTokenFileIO> {
    const { client, paths } = await this.connect();
    const key = `${database}.${table}\u0000${location}`;
    let io = this.tokenIOs.get(key);
    if (io === undefined) {
      const name = `${database}.${table}`;
      // Branches share the table's location, so the main table's token serves them all.
      const fetchToken = async (): Promise<DataToken> => {
        const what = `reading the data token of table ${name}`;
        let body: JsonObject;
        try {
          body = await client.get(paths.tableToken({ database, table }), { what, notFound: 'TABLE_NOT_FOUND' });
        } catch (e) {
          if (e instanceof PaimonError) {
            throw new PaimonError(e.code, `${e.message}; table ${name} has data tokens enabled (option ${DATA_TOKEN_ENABLED}), so its files are reached only with the credentials the catalog server hands out for it at GET .../tables/${table}/token`, { cause: e });
          }
          throw e;
        }
        const token = parseTableToken(body);
        if (token === null) {
          throw new PaimonError('STORAGE_ERROR', `REST catalog '${this.name}' answered ${what} without a token map and expiresAtMillis; check the catalog server's data token support`);
        }
        return token;
      };
      const created = new DataTokenFileIO({
        table: name,
        catalogName: this.name,
        location,
        fetchToken,
        catalogOptions: () => {
          const o: Record<string, string> = { ...(this.opts.properties ?? {}), ...this.merged };
          delete o.token; // the catalog's bearer token is no storage option
          return o;
        },
        createStore: (loc, options) => createFileIO(loc, options),
      });
      io = created;
      this.tokenIOs.set(key, created);
      this.fileIO.route(location, created);
    }
    await io.store();
    return io;
  }

  /**
   * `RESTCatalog.rollbackTo` (`POST .../rollback` with `RollbackTableRequest`): the server rolls
   * back and removes the later snapshots. A missing snapshot or tag answers 404 with its resource
   * type (SNAPSHOT_NOT_FOUND, TAG_NOT_FOUND).
   */
  async rollbackTo(id: Identifier, instant: RollbackInstant, fromSnapshot?: number | null): Promise<void> {
    const { client, paths } = await this.connect();
    const body = {
      instant: instant.kind === 'snapshot' ? { type: 'snapshot', snapshotId: instant.snapshotId } : { type: 'tag', tagName: instant.tagName },
      ...(fromSnapshot !== undefined && fromSnapshot !== null ? { fromSnapshot } : {}),
    };
    const target = instant.kind === 'snapshot' ? `snapshot ${instant.snapshotId}` : `tag ${instant.tagName}`;
    await client.post(paths.rollbackTable(id), body, { what: `rolling ${identifierToString(id)} back to ${target}`, notFound: 'TABLE_NOT_FOUND' });
  }

  /** `RESTCatalog.createBranch` (`POST .../branches` with CreateBranchRequest {branch, fromTag}). */
  async createBranch(database: string, table: string, branch: string, fromTag?: string | null): Promise<void> {
    const { client, paths } = await this.connect();
    const from = fromTag !== undefined && fromTag !== null ? ` from tag ${fromTag}` : '';
    await client.post(paths.branches({ database, table }), { branch, ...(from !== '' ? { fromTag } : {}) }, {
      what: `creating branch ${branch} of ${database}.${table}${from}`,
      notFound: 'TABLE_NOT_FOUND',
    });
  }

  /** `RESTCatalog.dropBranch` (`DELETE .../branches/{branch}`). */
  async dropBranch(database: string, table: string, branch: string): Promise<void> {
    const { client, paths } = await this.connect();
    await client.delete(paths.branch({ database, table }, branch), { what: `dropping branch ${branch} of ${database}.${table}`, notFound: 'BRANCH_NOT_FOUND' });
  }

  /** `RESTCatalog.fastForward` (`POST .../branches/{branch}/forward`): main becomes the branch. */
  async fastForward(database: string, table: string, branch: string): Promise<void> {
    const { client, paths } = await this.connect();
    await client.post(paths.forwardBranch({ database, table }, branch), {}, { what: `fast-forwarding ${database}.${table} to branch ${branch}`, notFound: 'BRANCH_NOT_FOUND' });
  }

  async close(): Promise<void> {
    unregisterCatalogTables(this);
    const tokenIOs = [...this.tokenIOs.values()];
    this.tokenIOs.clear();
    await this.fileIO.close();
    await Promise.all(tokenIOs.map((io) => io.close()));
  }
}
