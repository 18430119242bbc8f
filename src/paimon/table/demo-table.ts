/**
 * The embedded default: when the proxy starts on its default configuration with an empty
 * warehouse, it creates `demo.orders` so that every procedure can be tried at once. The table
 * is written with this library only (schema, Parquet data files, manifests, snapshots), as a
 * Paimon Java writer would have: a primary-key table partitioned by `dt`, 2 fixed buckets
 * (Java's bucket function), level-0 files with per-bucket sequence numbers, and several
 * APPEND snapshots that insert, update and delete orders. Full compaction, expiry, tags,
 * rollback and orphan cleaning all have something to act on.
 *
 *   order_id BIGINT NOT NULL, dt STRING NOT NULL, customer STRING, amount DECIMAL(10, 2),
 *   status STRING, updated_at TIMESTAMP(3);  PRIMARY KEY (dt, order_id), PARTITIONED BY (dt)
 */
import type { FileIO } from '../fs/file-io.js';
import { FileSystemCatalog } from '../catalog/filesystem-catalog.js';
import { parseDataFields } from '../spec/data-types.js';
import { Decimal, Timestamp, defaultBucket, toBinaryRow, type BinaryFieldType, type BinaryRow } from '../spec/binary-row.js';
import { FileStoreCommit } from './file-store-commit.js';
import type { ManifestEntry } from '../spec/manifest-entry.js';
import { FileSource } from '../spec/data-file-meta.js';
import { KeyValueDataFileWriter } from '../data/parquet-writer.js';
import { compareRows, type InternalRow, type KeyValue, type RowKindByte } from '../data/internal-row.js';
import type { TableSchemaLike } from '../data/data-file-layout.js';

export const DEMO_DATABASE = 'demo';
export const DEMO_TABLE = 'orders';
const NUM_BUCKETS = 2;
const COMMIT_USER = 'paimon-procedure-proxy-demo';

export const DEMO_SCHEMA_JSON = [
  { id: 0, name: 'order_id', type: 'BIGINT NOT NULL' },
  { id: 1, name: 'dt', type: 'STRING NOT NULL' },
  { id: 2, name: 'customer', type: 'STRING' },
  { id: 3, name: 'amount', type: 'DECIMAL(10, 2)' },
  { id: 4, name: 'status', type: 'STRING' },
  { id: 5, name: 'updated_at', type: 'TIMESTAMP(3)' },
];

/** One order as the demo writes it (the value row of the table). */
export interface DemoOrder {
  orderId: bigint;
  dt: string;
  customer: string;
  /** Unscaled cents. */
  amountCents: bigint;
  status: string;
  updatedAtMillis: bigint;
}

/** A change of one commit: an upsert or a delete of an order. */
export type DemoChange = { kind: 'upsert'; order: DemoOrder } | { kind: 'delete'; order: DemoOrder };

const CUSTOMERS = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi'];
const DAYS = ['2024-06-01', '2024-06-02', '2024-06-03'];
const BASE_TIME = 1717200000000n; // 2024-06-01T00:00:00Z

function order(id: number, dt: string, status: string, minute: number): DemoOrder {
  return {
    orderId: BigInt(id),
    dt,
    customer: CUSTOMERS[id % CUSTOMERS.length],
    amountCents: BigInt(((id * 7919) % 50_000) + 199),
    status,
    updatedAtMillis: BASE_TIME + BigInt(minute) * 60_000n,
  };
}

/**
 * The demo's commits, deterministic: 1) 30 new orders over two days, 2) 10 of them shipped and
 * 10 new orders on a third day, 3) 4 orders cancelled (deleted) and 5 delivered, 4) 6 more new
 * orders and 3 corrected amounts.
 */
export function demoCommits(): DemoChange[][] {
  const commits: DemoChange[][] = [];
  const c1: DemoChange[] = [];
  for (let id = 1; id <= 30; id++) c1.push({ kind: 'upsert', order: order(id, DAYS[id % 2], 'NEW', id) });
  commits.push(c1);
  const c2: DemoChange[] = [];
  for (let id = 1; id <= 10; id++) c2.push({ kind: 'upsert', order: order(id, DAYS[id % 2], 'SHIPPED', 100 + id) });
  for (let id = 31; id <= 40; id++) c2.push({ kind: 'upsert', order: order(id, DAYS[2], 'NEW', 100 + id) });
  commits.push(c2);
  const c3: DemoChange[] = [];
  for (const id of [12, 17, 23, 35]) c3.push({ kind: 'delete', order: order(id, id >= 31 ? DAYS[2] : DAYS[id % 2], 'CANCELLED', 200 + id) });
  for (let id = 1; id <= 5; id++) c3.push({ kind: 'upsert', order: order(id, DAYS[id % 2], 'DELIVERED', 200 + id) });
  commits.push(c3);
  const c4: DemoChange[] = [];
  for (let id = 41; id <= 46; id++) c4.push({ kind: 'upsert', order: order(id, DAYS[id % 3], 'NEW', 300 + id) });
  for (const id of [6, 7, 8]) {
    const o = order(id, DAYS[id % 2], 'SHIPPED', 300 + id);
    c4.push({ kind: 'upsert', order: { ...o, amountCents: o.amountCents + 1000n } });
  }
  commits.push(c4);
  return commits;
}

/** The rows a reader must see after all demo commits (merged view), sorted by (dt, order_id). */
export function demoExpectedOrders(): DemoOrder[] {
  const live = new Map<string, DemoOrder>();
  for (const c of demoCommits()) {
    for (const ch of c) {
      const k = `${ch.order.dt}/${ch.order.orderId}`;
      if (ch.kind === 'upsert') live.set(k, ch.order);
      else live.delete(k);
    }
  }
  return [...live.values()].sort((a, b) => (a.dt !== b.dt ? (a.dt < b.dt ? -1 : 1) : a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : 0));
}

function valueRow(o: DemoOrder): InternalRow {
  return [o.orderId, o.dt, o.customer, new Decimal(o.amountCents, 10, 2), o.status, new Timestamp(o.updatedAtMillis, 0)];
}

async function isEmptyWarehouse(catalog: FileSystemCatalog): Promise<boolean> {
  return (await catalog.listDatabases()).length === 0;
}

export interface DemoTableResult {
  created: boolean;
  table: string;
  snapshots: number;
  reason?: string;
}

/**
 * Creates `demo.orders` when the warehouse has no database yet (the embedded default);
 * otherwise does nothing and says why.
 */
export async function ensureDemoTable(warehouse: string, fileIO: FileIO, opts: { force?: boolean } = {}): Promise<DemoTableResult> {
  const catalog = new FileSystemCatalog(warehouse, fileIO);
  const table = `${DEMO_DATABASE}.${DEMO_TABLE}`;
  if (!opts.force && !(await isEmptyWarehouse(catalog))) {
    return { created: false, table, snapshots: 0, reason: 'the warehouse is not empty' };
  }
  await catalog.createDatabase(DEMO_DATABASE, true);
  const t = await catalog.createTable(
    { database: DEMO_DATABASE, table: DEMO_TABLE },
    {
      fields: parseDataFields(DEMO_SCHEMA_JSON),
      partitionKeys: ['dt'],
      primaryKeys: ['dt', 'order_id'],
      options: { bucket: String(NUM_BUCKETS), 'file.format': 'parquet' },
      comment: 'demo table created by paimon-procedure-proxy',
    },
  );
  const schema: TableSchemaLike = t.schema;
  const partitionTypes: BinaryFieldType[] = [{ root: 'VARCHAR' }];
  const keyTypes: BinaryFieldType[] = [{ root: 'BIGINT' }];
  const commit = new FileStoreCommit({
    fileIO,
    tablePath: t.path,
    commitUser: COMMIT_USER,
    partitionFields: [{ name: 'dt', type: { root: 'VARCHAR' } }],
    keyTypes,
    bucketMode: 'HASH_FIXED',
    tableOptions: t.schema.options,
  });
  const nextSeq = new Map<string, bigint>();
  let snapshots = 0;
  let identifier = 0n;
  for (const changes of demoCommits()) {
    // group by (partition, bucket); sort each group by key, as a memtable flush does
    const groups = new Map<string, { partition: BinaryRow; bucket: number; changes: DemoChange[] }>();
    for (const ch of changes) {
      const partition = toBinaryRow(partitionTypes, [ch.order.dt]);
      const bucket = defaultBucket(toBinaryRow(keyTypes, [ch.order.orderId]), NUM_BUCKETS);
      const k = `${partition.key()}#${bucket}`;
      const g = groups.get(k) ?? { partition, bucket, changes: [] };
      g.changes.push(ch);
      groups.set(k, g);
    }
    const delta: ManifestEntry[] = [];
    for (const [k, g] of [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
      let seq = nextSeq.get(k) ?? 0n;
      const kvs: KeyValue[] = g.changes.map((ch) => ({
        key: [ch.order.orderId],
        sequenceNumber: seq++,
        valueKind: (ch.kind === 'upsert' ? 0 : 3) as RowKindByte,
        value: valueRow(ch.order),
      }));
      nextSeq.set(k, seq);
      kvs.sort((a, b) => compareRows([{ root: 'BIGINT', nullable: false }], a.key, b.key));
      const w = new KeyValueDataFileWriter({
        fileIO,
        bucketDir: commit.pathFactory.bucketPath(g.partition, g.bucket),
        schema,
        level: 0,
        fileSource: FileSource.APPEND,
      });
      await w.write(kvs);
      for (const file of await w.close()) delta.push({ kind: 'ADD', partition: g.partition, bucket: g.bucket, totalBuckets: NUM_BUCKETS, file });
    }
    await commit.commit({ kind: 'APPEND', deltaEntries: delta, commitIdentifier: ++identifier });
    snapshots++;
  }
  return { created: true, table, snapshots };
}
