/**
 * A Hive Metastore client over Thrift (plain socket, buffered transport, binary protocol: the
 * metastore's defaults, no SASL), for the methods the Hive catalog calls. The Thrift code is
 * generated from hive_metastore_subset.thrift (gen/, see generate.sh) and run by the npm `thrift`
 * runtime; this module gives it typed, promise-returning methods.
 *
 * One connection per client, opened at the first call and again after it breaks. The metastore is
 * asked by request-object methods (`get_table_req`, `get_table_objects_by_name_req`), which every
 * 3.x and 4.x server answers; `get_table` is gone from 4.0.1 on. A call that gets no answer (refused
 * connection, closed socket, timeout) is STORAGE_ERROR naming host:port and what to check.
 */
import { createRequire } from 'node:module';
import { PaimonError } from '../../errors.js';

const require = createRequire(import.meta.url);

/** The generated service and types, seen through the few shapes this module uses. */
interface ThriftRuntime {
  createConnection(host: string, port: number, options: Record<string, unknown>): ThriftConnection;
  createClient(service: unknown, connection: ThriftConnection): GeneratedClient;
  TBufferedTransport: unknown;
  TBinaryProtocol: unknown;
}
interface ThriftConnection {
  on(event: 'connect' | 'close' | 'timeout', listener: () => void): void;
  on(event: 'error', listener: (e: Error) => void): void;
  removeListener(event: string, listener: (...a: never[]) => void): void;
  end(): void;
  connected: boolean;
}
type Callback<T> = (err: unknown, result: T) => void;
/** node-int64's Int64 as the runtime hands it out (what an i64 field reads as). */
interface Int64Value {
  toString(): string;
}
interface GeneratedClient {
  get_all_databases(cb: Callback<string[]>): void;
  get_database(name: string, cb: Callback<HmsDatabase>): void;
  get_all_tables(db: string, cb: Callback<string[]>): void;
  get_table_req(req: unknown, cb: Callback<{ table: HmsTable }>): void;
  get_table_objects_by_name_req(req: unknown, cb: Callback<{ tables: HmsTable[] }>): void;
  lock(req: unknown, cb: Callback<RawLockResponse>): void;
  check_lock(req: unknown, cb: Callback<RawLockResponse>): void;
  unlock(req: unknown, cb: Callback<void>): void;
  add_partitions_req(req: unknown, cb: Callback<unknown>): void;
  drop_partition(db: string, table: string, values: string[], deleteData: boolean, cb: Callback<boolean>): void;
  get_partition_names(db: string, table: string, max: number, cb: Callback<string[]>): void;
  markPartitionForEvent(db: string, table: string, spec: Record<string, string>, type: number, cb: Callback<void>): void;
  isPartitionMarkedForEvent(db: string, table: string, spec: Record<string, string>, type: number, cb: Callback<boolean>): void;
}
interface RawLockResponse {
  lockid: Int64Value;
  state: number;
  errorMessage?: string | null;
}
type Ctor = new (args: Record<string, unknown>) => unknown;
interface GeneratedTypes {
  GetTableRequest: Ctor;
  GetTablesRequest: Ctor;
  LockComponent: Ctor;
  LockRequest: Ctor;
  CheckLockRequest: Ctor;
  UnlockRequest: Ctor;
  Partition: Ctor;
  AddPartitionsRequest: Ctor;
  NoSuchObjectException: new () => object;
  UnknownDBException: new () => object;
  UnknownTableException: new () => object;
  UnknownPartitionException: new () => object;
  PartitionEventType: Record<'LOAD_DONE', number>;
  LockType: Record<'EXCLUSIVE', number>;
  LockLevel: Record<'TABLE', number>;
  LockState: Record<'ACQUIRED' | 'WAITING' | 'ABORT' | 'NOT_ACQUIRED', number>;
}

interface Generated {
  thrift: ThriftRuntime;
  service: unknown;
  types: GeneratedTypes;
}
let generated: Generated | null = null;

/**
 * The runtime and the generated code, loaded at the first Hive catalog rather than at import, so
 * that a process without one (and a build that left gen/ behind) never loads them.
 */
function load(): Generated {
  if (generated === null) {
    try {
      generated = {
        thrift: require('thrift') as ThriftRuntime,
        service: require('./gen/ThriftHiveMetastore.cjs'),
        types: require('./gen/hive_metastore_subset_types.cjs') as GeneratedTypes,
      };
    } catch (e) {
      throw new PaimonError(
        'STORAGE_ERROR',
        `the Hive Metastore client cannot be loaded (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); a build must ship src/paimon/catalog/hms/gen/*.cjs beside hms-client.js`,
        { cause: e },
      );
    }
  }
  return generated;
}

export interface HmsDatabase {
  name: string;
  locationUri?: string | null;
  parameters?: Record<string, string> | null;
}

/**
 * A storage descriptor as the metastore answers it. Besides the fields read by name, it carries
 * what the IDL subset decodes (columns, serde, buckets, sort columns, parameters), which a new
 * partition copies from its table.
 */
export interface HmsStorageDescriptor {
  location?: string | null;
  inputFormat?: string | null;
  outputFormat?: string | null;
  [field: string]: unknown;
}

export interface HmsTable {
  tableName: string;
  dbName: string;
  createTime?: number | null;
  sd?: HmsStorageDescriptor | null;
  partitionKeys?: { name: string; type: string }[] | null;
  parameters?: Record<string, string> | null;
  tableType?: string | null;
}

/** A partition to add: its values in partition-key order, its storage descriptor, its parameters. */
export interface HmsPartition {
  values: string[];
  sd: HmsStorageDescriptor;
  parameters: Record<string, string>;
  /** Epoch seconds (create and last access time, as Java sets both). */
  createTime: number;
}

export type HmsLockState = 'ACQUIRED' | 'WAITING' | 'ABORT' | 'NOT_ACQUIRED';

/** A lock the metastore knows (its id stays the runtime's own 64-bit value, sent back as is). */
export interface HmsLock {
  readonly id: Int64Value;
  readonly state: HmsLockState;
  readonly errorMessage: string | null;
}

export interface HmsEndpoint {
  host: string;
  port: number;
}

/** `thrift://host:port[,thrift://...]` (Hive's `hive.metastore.uris`): every endpoint, in order. */
export function parseMetastoreUris(uris: string): HmsEndpoint[] {
  const out: HmsEndpoint[] = [];
  for (const raw of uris.split(',')) {
    const u = raw.trim();
    const m = /^thrift:\/\/([^/:@\s]+|\[[0-9a-fA-F:]+\]):(\d{1,5})\/?$/.exec(u);
    if (m === null) throw new PaimonError('INVALID_ARGUMENT', `metastore uri must be thrift://host:port, got '${u}'`);
    const port = Number(m[2]);
    if (port < 1 || port > 65535) throw new PaimonError('INVALID_ARGUMENT', `metastore uri '${u}' has no valid port`);
    out.push({ host: m[1].replace(/^\[|\]$/g, ''), port });
  }
  if (out.length === 0) throw new PaimonError('INVALID_ARGUMENT', 'metastore uri is empty');
  return out;
}

/** A metastore answer that is one of the IDL's exceptions (message as the server wrote it). */
export class HmsException extends PaimonError {
  constructor(
    message: string,
    /** NoSuchObjectException / UnknownDBException: the object does not exist. */
    readonly notFound: boolean,
  ) {
    super('STORAGE_ERROR', message);
    this.name = 'HmsException';
  }
}

export interface HmsClientOptions {
  /** The catalog name, for messages. */
  catalogName: string;
  endpoints: readonly HmsEndpoint[];
  /** Per call and per connection attempt; default 60 s (Hive's client socket timeout is 600 s). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;

export class HmsClient {
  private connection: ThriftConnection | null = null;
  private client: GeneratedClient | null = null;
  private opening: Promise<GeneratedClient> | null = null;
  private readonly timeoutMs: number;

  private readonly gen: Generated;

  constructor(private readonly opts: HmsClientOptions) {
    this.gen = load();
    if (opts.endpoints.length === 0) throw new PaimonError('INVALID_ARGUMENT', `Hive catalog '${opts.catalogName}' needs a metastore uri`);
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** `host:port` of the metastore in use, for messages. */
  where(): string {
    return `Hive Metastore of catalog '${this.opts.catalogName}' at ${this.opts.endpoints.map((e) => `${e.host}:${e.port}`).join(',')}`;
  }

  private unreachable(what: string, why: string): PaimonError {
    return new PaimonError(
      'STORAGE_ERROR',
      `${this.where()} is unreachable while ${what} (${why}); check that the metastore runs, that uri (hive.metastore.uris) names its thrift host:port, and that this host may connect to it`,
    );
  }

  /** Connects to the first endpoint that accepts (as Hive's client tries its uris in order). */
  private connect(what: string): Promise<GeneratedClient> {
    if (this.client !== null && this.connection?.connected === true) return Promise.resolve(this.client);
    if (this.opening === null) {
      this.opening = (async () => {
        let last = '';
        for (const ep of this.opts.endpoints) {
          try {
            return await this.open(ep);
          } catch (e) {
            last = `${ep.host}:${ep.port}: ${e instanceof Error ? e.message : String(e)}`;
          }
        }
        throw this.unreachable(what, last);
      })().finally(() => {
        this.opening = null;
      });
    }
    return this.opening;
  }

  private open(ep: HmsEndpoint): Promise<GeneratedClient> {
    return new Promise((resolve, reject) => {
      const { thrift } = this.gen;
      const conn = thrift.createConnection(ep.host, ep.port, {
        transport: thrift.TBufferedTransport,
        protocol: thrift.TBinaryProtocol,
        connect_timeout: this.timeoutMs,
      });
      const timer = setTimeout(() => {
        conn.end();
        reject(new Error(`no connection after ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      const fail = (e: Error): void => {
        clearTimeout(timer);
        this.dropConnection(conn);
        reject(new Error(errorText(e)));
      };
      conn.on('error', fail);
      conn.on('close', () => {
        clearTimeout(timer);
        this.dropConnection(conn);
        reject(new Error('connection closed'));
      });
      conn.on('connect', () => {
        clearTimeout(timer);
        this.connection = conn;
        this.client = thrift.createClient(this.gen.service, conn);
        resolve(this.client);
      });
    });
  }

  private dropConnection(conn: ThriftConnection): void {
    if (this.connection === conn) {
      this.connection = null;
      this.client = null;
    }
  }

  /**
   * One call: rejects with STORAGE_ERROR when the connection breaks or no answer comes in time
   * (the outcome of a lock call is then unknown: Hive times such a lock out by itself), with
   * HmsException when the server answers one of the method's exceptions.
   */
  private async call<T>(what: string, invoke: (c: GeneratedClient, cb: Callback<T>) => void): Promise<T> {
    const client = await this.connect(what);
    const conn = this.connection;
    return new Promise<T>((resolve, reject) => {
      let done = false;
      const finish = (f: () => void): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (conn !== null) {
          conn.removeListener('error', onError);
          conn.removeListener('close', onClose);
        }
        f();
      };
      const onError = (e: Error): void => finish(() => reject(this.unreachable(what, errorText(e))));
      const onClose = (): void => finish(() => reject(this.unreachable(what, 'connection closed before the answer')));
      const timer = setTimeout(() => {
        // A late answer would land on a connection nobody waits on: start afresh.
        if (conn !== null) {
          this.dropConnection(conn);
          conn.end();
        }
        finish(() => reject(this.unreachable(what, `no answer in ${this.timeoutMs} ms`)));
      }, this.timeoutMs);
      conn?.on('error', onError);
      conn?.on('close', onClose);
      invoke(client, (err, result) =>
        finish(() => {
          if (err === null || err === undefined) resolve(result);
          else reject(this.answerError(what, err));
        }),
      );
    });
  }

  private answerError(what: string, err: unknown): PaimonError {
    const { types } = this.gen;
    const notFound =
      err instanceof types.NoSuchObjectException ||
      err instanceof types.UnknownDBException ||
      err instanceof types.UnknownTableException ||
      err instanceof types.UnknownPartitionException;
    const text = errorText(err);
    return new HmsException(`${this.where()}: ${what} failed: ${text}`, notFound);
  }

  getAllDatabases(): Promise<string[]> {
    return this.call('listing databases', (c, cb) => c.get_all_databases(cb));
  }

  /** The database, or null when the metastore says it does not exist. */
  async getDatabase(name: string): Promise<HmsDatabase | null> {
    try {
      return await this.call(`reading database ${name}`, (c, cb: Callback<HmsDatabase>) => c.get_database(name, cb));
    } catch (e) {
      if (e instanceof HmsException && e.notFound) return null;
      throw e;
    }
  }

  getAllTables(database: string): Promise<string[]> {
    return this.call(`listing tables of database ${database}`, (c, cb) => c.get_all_tables(database, cb));
  }

  /** The table, or null when the metastore says it (or its database) does not exist. */
  async getTable(database: string, table: string): Promise<HmsTable | null> {
    try {
      const { types } = this.gen;
      const r = await this.call(`reading table ${database}.${table}`, (c, cb: Callback<{ table: HmsTable }>) =>
        c.get_table_req(new types.GetTableRequest({ dbName: database, tblName: table }), cb),
      );
      return r.table;
    } catch (e) {
      if (e instanceof HmsException && e.notFound) return null;
      throw e;
    }
  }

  async getTableObjectsByName(database: string, tables: readonly string[]): Promise<HmsTable[]> {
    if (tables.length === 0) return [];
    const { types } = this.gen;
    const r = await this.call(`reading the tables of database ${database}`, (c, cb: Callback<{ tables: HmsTable[] }>) =>
      c.get_table_objects_by_name_req(new types.GetTablesRequest({ dbName: database, tblNames: [...tables] }), cb),
    );
    return r.tables ?? [];
  }

  /** `lock` of an EXCLUSIVE table-level lock, with no transaction (as HiveCatalogLock asks). */
  async lockTable(database: string, table: string, user: string, hostname: string): Promise<HmsLock> {
    const { types } = this.gen;
    const component = new types.LockComponent({ type: types.LockType.EXCLUSIVE, level: types.LockLevel.TABLE, dbname: database, tablename: table });
    const r = await this.call(`locking table ${database}.${table}`, (c, cb: Callback<RawLockResponse>) =>
      c.lock(new types.LockRequest({ component: [component], user, hostname }), cb),
    );
    return this.lockOf(r);
  }

  async checkLock(lock: HmsLock, what: string): Promise<HmsLock> {
    const { types } = this.gen;
    const r = await this.call(`checking the lock ${lock.id.toString()} on ${what}`, (c, cb: Callback<RawLockResponse>) =>
      c.check_lock(new types.CheckLockRequest({ lockid: lock.id }), cb),
    );
    return this.lockOf(r);
  }

  async unlock(lock: HmsLock, what: string): Promise<void> {
    const { types } = this.gen;
    await this.call(`releasing the lock ${lock.id.toString()} on ${what}`, (c, cb: Callback<void>) => c.unlock(new types.UnlockRequest({ lockid: lock.id }), cb));
  }

  /** `add_partitions(parts, ifNotExists = true, needResult = false)`, as HiveCatalog adds them. */
  async addPartitions(database: string, table: string, partitions: readonly HmsPartition[]): Promise<void> {
    if (partitions.length === 0) return;
    const { types } = this.gen;
    const parts = partitions.map(
      (p) =>
        new types.Partition({
          values: p.values,
          dbName: database,
          tableName: table,
          createTime: p.createTime,
          lastAccessTime: p.createTime,
          sd: p.sd,
          parameters: p.parameters,
        }),
    );
    await this.call(`adding ${partitions.length} partition(s) to ${database}.${table}`, (c, cb: Callback<unknown>) =>
      c.add_partitions_req(new types.AddPartitionsRequest({ dbName: database, tblName: table, parts, ifNotExists: true, needResult: false }), cb),
    );
  }

  /** `drop_partition(values, deleteData = false)`; false when the metastore has no such partition. */
  async dropPartition(database: string, table: string, values: readonly string[]): Promise<boolean> {
    try {
      return await this.call(`dropping partition [${values.join(', ')}] of ${database}.${table}`, (c, cb: Callback<boolean>) =>
        c.drop_partition(database, table, [...values], false, cb),
      );
    } catch (e) {
      if (e instanceof HmsException && e.notFound) return false;
      throw e;
    }
  }

  /** Partition names (`k=v/k2=v2`, escaped as Hive escapes them), in the metastore's order. */
  listPartitionNames(database: string, table: string): Promise<string[]> {
    return this.call(`listing the partitions of ${database}.${table}`, (c, cb: Callback<string[]>) => c.get_partition_names(database, table, -1, cb));
  }

  /** `markPartitionForEvent(spec, LOAD_DONE)`; HmsException (notFound) when the table or partition is unknown. */
  async markPartitionDone(database: string, table: string, spec: Record<string, string>): Promise<void> {
    const { types } = this.gen;
    await this.call(`marking partition ${partitionText(spec)} of ${database}.${table} done`, (c, cb: Callback<void>) =>
      c.markPartitionForEvent(database, table, spec, types.PartitionEventType.LOAD_DONE, cb),
    );
  }

  isPartitionMarkedDone(database: string, table: string, spec: Record<string, string>): Promise<boolean> {
    const { types } = this.gen;
    return this.call(`reading the done mark of partition ${partitionText(spec)} of ${database}.${table}`, (c, cb: Callback<boolean>) =>
      c.isPartitionMarkedForEvent(database, table, spec, types.PartitionEventType.LOAD_DONE, cb),
    );
  }

  private lockOf(r: RawLockResponse): HmsLock {
    const names = Object.entries(this.gen.types.LockState) as [HmsLockState, number][];
    const state = names.find(([, v]) => v === r.state)?.[0];
    if (state === undefined) throw new PaimonError('STORAGE_ERROR', `${this.where()} answered an unknown lock state ${r.state}`);
    return { id: r.lockid, state, errorMessage: r.errorMessage ?? null };
  }

  close(): void {
    const conn = this.connection;
    this.connection = null;
    this.client = null;
    conn?.end();
  }
}

function partitionText(spec: Record<string, string>): string {
  return Object.entries(spec)
    .map(([k, v]) => `${k}=${v}`)
    .join('/');
}

function errorText(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return typeof code === 'string' && code !== '' ? `${code}${e.message && !e.message.includes(code) ? `: ${e.message}` : ''}` : e.message;
  }
  if (typeof e === 'object' && e !== null && typeof (e as { message?: unknown }).message === 'string') return (e as { message: string }).message;
  return String(e);
}
