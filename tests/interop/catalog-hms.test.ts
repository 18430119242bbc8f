/**
 * The Hive catalog against a real Hive Metastore 4.0.0 (embedded Derby, schema from Hive's own
 * schema tool; tests/setup/hive-metastore.sh), through the proxy over the MySQL protocol with a
 * `type: hms` catalog. Paimon Java 1.4.2's HiveCatalog (with the Hive 2.3.10 metastore client)
 * creates, registers and writes the table through the metastore, with `lock.enabled`.
 *
 * Before each procedure the table directory is copied into a filesystem warehouse where Paimon
 * Java runs its own procedure; afterwards Paimon Java, through the metastore, reads the same rows
 * from ours as from its copy and keeps writing. The commit lock is checked both ways against the
 * metastore's own lock table: a lock held on the table keeps our commit (and Java's) waiting, and
 * a Java writer committing with the lock while we compact loses no commit.
 *
 * Bad input: a metastore that is not there is a clear error naming host:port, and changes nothing;
 * one that dies between the plan and the commit fails the compaction before its snapshot, and the
 * files it wrote are removed.
 * Tables whose partitions or tags the metastore keeps as well (`metastore.partitioned-table`,
 * `metastore.tag-to-partition`): on twin tables, Paimon Java's HiveCatalog and our procedures
 * leave the same metastore partitions (a commit adds lost ones back, mark_partition_done adds
 * `.done` and marks LOAD_DONE, expire_partitions drops partitions and `.done`, tags come and go).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCatalogTable, errorOf, firstRowOf, sweepProcedures } from './catalog-support.js';
import mysql from 'mysql2/promise';
import { configSchema } from '../../src/config-schema.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { HiveCatalog } from '../../src/paimon/catalog/hive-catalog.js';
import { compactTable } from '../../src/paimon/compact/compact-table.js';
import { HmsClient, parseMetastoreUris } from '../../src/paimon/catalog/hms/hms-client.js';
import { PaimonJava, parseJson, tempWarehouse, toComparable, type Row } from './peers.js';
import { listTree } from './procedures-support.js';
import { freePort } from '../integration/wire-helpers.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
const DB = 'interop';
const T = 't';
/** Two days old (seconds, utimes): older than remove_orphan_files' default floor of one day. */
const TWO_DAYS_AGO = (Date.now() - 2 * 86_400_000) / 1000;

/** Runs a function of the setup scripts (paimon-java.sh and hive-metastore.sh sourced) in bash. */
function setupScript(fn: string, ...args: string[]): Promise<void> {
  const script = `set -euo pipefail; source tests/setup/paimon-java.sh; paimon_java_start; source tests/setup/hive-metastore.sh; hive_metastore_start; ${fn} "$@"`;
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', script, 'setup', ...args], { cwd: ROOT, timeout: 180_000 }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`${fn} failed: ${stderr.slice(-2000)}`));
      else resolve();
    });
  });
}

/** The Hive client jars beside the Paimon 1.4.2 class path (what the setup script resolved). */
function hiveJavaClassPath(): string {
  const base = process.env.PAIMON_JAVA_CP_1_4 ?? `${join(ROOT, 'tests/interop/java/lib-classes-1.4.2')}:${join(ROOT, 'tests/interop/java/lib-1.4.2', '*')}`;
  const hive = process.env.HIVE_CLIENT_CP ?? join(ROOT, 'tests/interop/java/lib-hive-client-2.3.10', '*');
  return `${base}:${hive}`;
}

describe('Hive catalog: Paimon 1.4.2 HiveCatalog and HMS 4.0.0 through the proxy', () => {
  let hmsDir: string;
  let uri: string;
  let warehouse: string;
  let jhive: PaimonJava;
  let jfs: PaimonJava;
  let proxy: RunningProxy;
  let conn: mysql.Connection;
  let tableDir: string;

  const call = (sql: string): Promise<Record<string, unknown>> => firstRowOf(conn, sql);
  const callError = (sql: string): Promise<{ message: string; errno: number }> => errorOf(conn, sql);
  const fileLatest = (): number => Number(readFileSync(join(tableDir, 'snapshot', 'LATEST'), 'utf8').trim());
  const snapshotIds = (dir: string): number[] =>
    readdirSync(join(dir, 'snapshot'))
      .filter((f) => f.startsWith('snapshot-'))
      .map((f) => Number(f.slice('snapshot-'.length)))
      .sort((a, b) => a - b);
  const copyTable = (label: string): string => {
    const wh = tempWarehouse(`hms-${label}`);
    mkdirSync(join(wh, `${DB}.db`), { recursive: true });
    cpSync(tableDir, join(wh, `${DB}.db`, T), { recursive: true, preserveTimestamps: true });
    return wh;
  };
  const readHive = (target?: string | number): Promise<Row[]> => jhive.read(warehouse, DB, T, target);
  const same = (a: Row[], b: Row[], msg: string): void => assert.deepEqual(toComparable(a), toComparable(b), msg);
  /** Paimon Java keeps writing through the metastore catalog, on top of our latest snapshot. */
  const javaKeepsWriting = async (start: number): Promise<void> => {
    const before = fileLatest();
    const { commits } = await jhive.writeLoop(warehouse, DB, T, 1, 0, start);
    assert.equal(Number(commits[0]!.snapshotId), before + 1, 'Java commits on top of our snapshot');
  };

  before(async () => {
    hmsDir = tempWarehouse('hms-server');
    const port = await freePort();
    uri = `thrift://127.0.0.1:${port}`;
    await setupScript('hive_metastore_launch', hmsDir, String(port), String(process.pid));
    warehouse = tempWarehouse('hms-wh');
    process.env.PAIMON_JAVA_CP_1_4 = hiveJavaClassPath();
    jhive = new PaimonJava('1.4').withCatalogOptions({ metastore: 'hive', uri, 'lock.enabled': 'true' });
    jfs = new PaimonJava('1.4');
    await createCatalogTable(jhive, warehouse, DB, T);
    tableDir = join(warehouse, `${DB}.db`, T);
    assert.ok(existsSync(join(tableDir, 'snapshot', 'snapshot-10')), 'Java wrote 10 snapshots through the metastore');
    const config = configSchema.parse({
      listen: { host: '127.0.0.1', port: 0 },
      catalogs: [
        { name: 'paimon', type: 'hms', uri, warehouse, properties: { 'lock.enabled': 'true' } },
        // Doris's spelling, and a short lock wait for the lock test.
        { name: 'doris', type: 'hms', warehouse, properties: { 'hive.metastore.uris': uri, 'lock.enabled': 'true', 'lock-acquire-timeout': '2s', 'lock-check-max-sleep': '200ms' } },
        { name: 'down', type: 'hms', uri: `thrift://127.0.0.1:${await freePort()}`, warehouse },
      ],
      logging: { level: 'silent' },
      security: { check_privileges: false },
      jobs: { dir: tempWarehouse('hms-jobs') },
    });
    proxy = await startProxy(config, { logger: silentLogger() });
    conn = await mysql.createConnection({ host: '127.0.0.1', port: proxy.address.port, user: 'root' });
  });

  after(async () => {
    await conn?.end();
    await proxy?.close();
    if (hmsDir !== undefined) await setupScript('hive_metastore_kill', hmsDir);
  });

  test('the catalog lists what the metastore registered and finds the table where its storage descriptor says', async () => {
    const catalog = new HiveCatalog('direct', { uri, warehouse });
    try {
      assert.ok((await catalog.listDatabases()).includes(DB));
      assert.deepEqual(await catalog.listTables(DB), [T]);
      assert.equal(await catalog.tableLocation(DB, T), tableDir);
      assert.equal(await catalog.tableExists(`${DB}.${T}`), true);
      assert.equal(await catalog.tableExists(`${DB}.nope`), false);
      assert.equal(await catalog.databaseExists('nope_db'), false);
      await assert.rejects(catalog.listTables('nope_db'), (e: { code?: string }) => e.code === 'DATABASE_NOT_FOUND');
      await assert.rejects(catalog.getTable(`${DB}.nope`), (e: { code?: string }) => e.code === 'TABLE_NOT_FOUND');
      const table = await catalog.getTable(`${DB}.${T}`);
      assert.equal(table.location, tableDir);
    } finally {
      await catalog.close();
    }
  });

  test('compact commits under the metastore lock; Java reads what its own compaction gives and writes on', async () => {
    const copy = copyTable('compact');
    await jfs.compact(copy, DB, T);
    const row = await call(`CALL paimon.sys.compact(\`table\` => '${DB}.${T}')`);
    assert.equal(Number(row.snapshot_id), 11);
    const ours = JSON.parse(readFileSync(join(tableDir, 'snapshot', 'snapshot-11'), 'utf8')) as { commitKind: string };
    assert.equal(ours.commitKind, 'COMPACT');
    same(await readHive(), await jfs.read(copy, DB, T), 'rows after our compact = rows after Java compact');
    await javaKeepsWriting(100);
  });

  test('expire_snapshots leaves the same snapshots as Java on its copy; Java reads and writes on', async () => {
    const copy = copyTable('expire');
    const olderThan = Date.now();
    await jfs.expire(copy, DB, T, { retainMin: 2, retainMax: 3, olderThanMillis: olderThan, maxDeletes: 2147483647 });
    const row = await call(`CALL paimon.sys.expire_snapshots(\`table\` => '${DB}.${T}', retain_min => 2, retain_max => 3, older_than => '${olderThan}')`);
    assert.ok(Number(row.deleted_snapshots_count) > 5, `expired ${String(row.deleted_snapshots_count)}`);
    assert.deepEqual(snapshotIds(tableDir), snapshotIds(join(copy, `${DB}.db`, T)), 'same snapshot files as Java');
    same(await readHive(), await jfs.read(copy, DB, T), 'rows');
    await javaKeepsWriting(300);
  });

  test('remove_orphan_files deletes what Java deletes on its copy; the table stays readable', async () => {
    const partition = readdirSync(tableDir).filter((d) => d.startsWith('dt=')).sort()[0]!;
    const bucket = readdirSync(join(tableDir, partition)).filter((d) => d.startsWith('bucket-')).sort()[0]!;
    const orphan = join(tableDir, partition, bucket, 'data-orphan-hms.parquet');
    writeFileSync(orphan, 'not referenced');
    utimesSync(orphan, TWO_DAYS_AGO, TWO_DAYS_AGO);
    const copy = copyTable('orphan');
    const javaOut = await jfs.orphanClean(copy, DB, T, Date.now() - 86_400_000, false);
    const row = await call(`CALL paimon.sys.remove_orphan_files(\`table\` => '${DB}.${T}')`);
    assert.ok(Number(javaOut.deletedFileCount) >= 1);
    assert.equal(Number(row.deletedFileCount), Number(javaOut.deletedFileCount));
    assert.equal(existsSync(orphan), false);
    assert.deepEqual(listTree(tableDir), listTree(join(copy, `${DB}.db`, T)), 'same files left as Java');
    same(await readHive(), await jfs.read(copy, DB, T), 'rows');
    await javaKeepsWriting(400);
  });

  test('rollback_to gives the rows Java rollback gives on its copy; Java writes on from there', async () => {
    const latest = fileLatest();
    const copy = copyTable('rollback');
    await jfs.rollback(copy, DB, T, latest - 1);
    const row = await call(`CALL paimon.sys.rollback_to(\`table\` => '${DB}.${T}', snapshot_id => ${latest - 1})`);
    assert.equal(Number(row.current_snapshot_id), latest - 1);
    assert.equal(fileLatest(), latest - 1);
    assert.deepEqual(snapshotIds(tableDir), snapshotIds(join(copy, `${DB}.db`, T)), 'same snapshot files as Java');
    same(await readHive(), await jfs.read(copy, DB, T), 'rows after the rollback = rows after Java rollback on its copy');
    await javaKeepsWriting(500);
  });

  test("a lock held on the table in the metastore keeps our commit and Java's waiting", async () => {
    await jhive.writeLoop(warehouse, DB, T, 3, 0, 600); // something for compaction to do
    const holder = new HmsClient({ catalogName: 'holder', endpoints: [{ host: '127.0.0.1', port: Number(uri.split(':')[2]) }] });
    const held = await holder.lockTable(DB, T, 'test', hostname());
    let released = false;
    try {
      assert.equal(held.state, 'ACQUIRED');
      const before = listTree(tableDir).filter((f) => f.startsWith('snapshot/'));
      const t0 = Date.now();
      const refused = await callError(`CALL doris.sys.compact(\`table\` => '${DB}.${T}')`);
      assert.ok(Date.now() - t0 >= 1_500, `our commit waited for the lock (${Date.now() - t0} ms)`);
      assert.match(refused.message, /the table lock on interop\.t was not acquired after \d+ ms \(state WAITING\)/);
      assert.deepEqual(listTree(tableDir).filter((f) => f.startsWith('snapshot/')), before, 'a refused commit publishes nothing');
      // Java's writer with lock.enabled waits as well, and commits once the lock is gone.
      const latest = fileLatest();
      const writer = jhive.writeLoop(warehouse, DB, T, 1, 0, 700);
      await new Promise((r) => setTimeout(r, 5_000));
      assert.equal(fileLatest(), latest, 'Java did not commit while the metastore lock was held');
      await holder.unlock(held, `${DB}.${T}`);
      released = true;
      const { commits } = await writer;
      assert.equal(Number(commits[0]!.snapshotId), latest + 1);
    } finally {
      // A failed assertion must not leave the table locked for the tests after this one.
      if (!released) await holder.unlock(held, `${DB}.${T}`).catch(() => undefined);
      holder.close();
    }
    const row = await call(`CALL doris.sys.compact(\`table\` => '${DB}.${T}')`);
    assert.equal(Number(row.snapshot_id), fileLatest(), 'with the lock free, the compaction commits');
  });

  test('a Java writer committing with the lock while we compact loses no commit', async () => {
    await jhive.writeLoop(warehouse, DB, T, 4, 0, 800);
    const first = fileLatest();
    const writer = jhive.writeLoop(warehouse, DB, T, 8, 150, 900);
    const row = await call(`CALL paimon.sys.compact(\`table\` => '${DB}.${T}')`);
    const { commits } = await writer;
    assert.equal(commits.length, 8);
    const ids = [...commits.map((c) => Number(c.snapshotId)), Number(row.snapshot_id)].sort((a, b) => a - b);
    assert.deepEqual(ids, Array.from({ length: 9 }, (_, i) => first + 1 + i), 'every commit got its own snapshot, none lost');
    assert.equal(fileLatest(), first + 9);
    const rows = await readHive();
    for (let i = 900; i < 908; i++) assert.ok(rows.some((r) => r.id === i), `row ${i} of the concurrent writer is there`);
    const check = await jhive.check(warehouse, DB, T);
    assert.equal(check.ok, true);
  });

  test('every other tag and P2 procedure through the metastore catalog: Java reads what it leaves and commits on top of it', async () => {
    const done = await sweepProcedures({
      catalog: 'paimon',
      table: `${DB}.${T}`,
      conn,
      latest: async () => fileLatest(),
      read: (target) => readHive(target),
      javaWrites: () => javaKeepsWriting(800),
    });
    assert.equal(done.length, 15);
  });

  test('an unreachable metastore is a clear error that changes nothing', async () => {
    const before = listTree(tableDir);
    const err = await callError(`CALL down.sys.compact(\`table\` => '${DB}.${T}')`);
    assert.match(err.message, /Hive Metastore of catalog 'down' at 127\.0\.0\.1:\d+ is unreachable while reading (database|table) interop\b/);
    assert.match(err.message, /check that the metastore runs/);
    const missing = await callError(`CALL paimon.sys.compact(\`table\` => '${DB}.nope')`);
    assert.equal(missing.errno, 1146, `a missing table is ER_NO_SUCH_TABLE: ${missing.message}`);
    assert.deepEqual(listTree(tableDir), before);
  });

  test('partitions and tags the metastore keeps: ours change the metastore as Paimon Java does on a twin table', async () => {
    const fields = [
      { name: 'id', type: 'INT NOT NULL' },
      { name: 'dt', type: 'STRING NOT NULL' },
      { name: 'v', type: 'STRING' },
    ];
    const partitioned = { bucket: '1', 'metastore.partitioned-table': 'true', 'partition.mark-done-action': 'done-partition,mark-event' };
    const tagged = { bucket: '1', 'metastore.tag-to-partition': 'tag' };
    // Twins: Paimon Java changes pj/tj through its HiveCatalog, we change po/to through the proxy.
    for (const t of ['pj', 'po']) await jhive.createTable(warehouse, DB, t, { fields, primaryKeys: ['dt', 'id'], partitionKeys: ['dt'], options: partitioned });
    for (const t of ['tj', 'to']) await jhive.createTable(warehouse, DB, t, { fields, primaryKeys: ['id'], options: tagged });
    const rows = (n: number): Row[] => ['2020-01-01', '2020-01-02', '2999-01-01'].map((dt, i) => ({ id: i + n, dt, v: `v${n}` }));
    for (const t of ['pj', 'po']) for (const n of [1, 2]) await jhive.write(warehouse, DB, t, rows(n));
    for (const t of ['tj', 'to']) for (const n of [1, 2]) await jhive.write(warehouse, DB, t, rows(n));
    const hms = new HmsClient({ catalogName: 'check', endpoints: parseMetastoreUris(uri) });
    const names = async (t: string): Promise<string[]> => (await hms.listPartitionNames(DB, t)).sort();
    const twins = async (j: string, o: string, expected: string[], what: string): Promise<void> => {
      assert.deepEqual(await names(j), expected, `Java: ${what}`);
      assert.deepEqual(await names(o), expected, `ours: ${what}`);
    };
    try {
      await twins('pj', 'po', ['dt=2020-01-01', 'dt=2020-01-02', 'dt=2999-01-01'], "Java's writes added their partitions");

      // A partition the metastore lost comes back with the next commit into it (AddPartitionCommitCallback).
      for (const t of ['pj', 'po']) assert.equal(await hms.dropPartition(DB, t, ['2020-01-02']), true);
      await jhive.batch([['compact', warehouse, DB, 'pj', 'full']]);
      const compacted = await call(`CALL paimon.sys.compact(\`table\` => '${DB}.po', compact_strategy => 'full')`);
      assert.ok(Number(compacted.snapshot_id) > 0, 'our compaction committed');
      await twins('pj', 'po', ['dt=2020-01-01', 'dt=2020-01-02', 'dt=2999-01-01'], 'the compaction added the lost partition back');

      // done-partition adds <value>.done; mark-event marks LOAD_DONE.
      await jhive.runMain('PartitionTool', ['mark-done', warehouse, DB, 'pj', 'dt=2020-01-01']);
      await call(`CALL paimon.sys.mark_partition_done(\`table\` => '${DB}.po', partitions => 'dt=2020-01-01')`);
      await twins('pj', 'po', ['dt=2020-01-01', 'dt=2020-01-01.done', 'dt=2020-01-02', 'dt=2999-01-01'], 'mark_partition_done added the .done partition');
      for (const t of ['pj', 'po']) assert.equal(await hms.isPartitionMarkedDone(DB, t, { dt: '2020-01-01' }), true, `${t}: LOAD_DONE marked`);

      // expire_partitions drops the expired partitions and their .done partitions there too.
      const java = parseJson((await jhive.runMain('PartitionTool', ['expire-partitions', warehouse, DB, 'pj', '1 d', 'yyyy-MM-dd', '-', '-', '-', '-'])).stdout.trim()) as { expired: string[] };
      const [ours] = await conn.query(`CALL paimon.sys.expire_partitions(\`table\` => '${DB}.po', expiration_time => '1 d', timestamp_formatter => 'yyyy-MM-dd')`);
      // A CALL answers its result set first, then the status of the call.
      const expiredRows = (Array.isArray((ours as unknown[])[0]) ? (ours as unknown[])[0] : ours) as { expired_partitions: string }[];
      assert.deepEqual(expiredRows.map((r) => r.expired_partitions).sort(), [...java.expired].sort());
      await twins('pj', 'po', ['dt=2999-01-01'], 'expire_partitions dropped the expired and .done partitions');
      same(await jhive.read(warehouse, DB, 'po'), await jhive.read(warehouse, DB, 'pj'), 'rows after expire_partitions');
      // A table whose partitions the metastore does not keep refuses the metastore actions, as Paimon does.
      await jhive.createTable(warehouse, DB, 'pn', { fields, primaryKeys: ['dt', 'id'], partitionKeys: ['dt'], options: { bucket: '1', 'partition.mark-done-action': 'mark-event' } });
      const refused = await callError(`CALL paimon.sys.mark_partition_done(\`table\` => '${DB}.pn', partitions => 'dt=2020-01-01')`);
      assert.match(refused.message, /Table should enable metastore\.partitioned-table/);

      // Tags as partitions: created and deleted tags add and drop <field>=<tag>.
      await jhive.batch([
        ['create-tag', warehouse, DB, 'tj', 't1'],
        ['create-tag', warehouse, DB, 'tj', 't2'],
      ]);
      await jhive.runMain('TagTool', ['delete-tags', warehouse, DB, 'tj', 't1']);
      await call(`CALL paimon.sys.create_tag(\`table\` => '${DB}.to', tag => 't1')`);
      await call(`CALL paimon.sys.create_tag(\`table\` => '${DB}.to', tag => 't2')`);
      await call(`CALL paimon.sys.delete_tag(\`table\` => '${DB}.to', tag => 't1')`);
      await twins('tj', 'to', ['tag=t2'], 'the tags are partitions');
      same(await jhive.read(warehouse, DB, 'to', 'tag:t2'), await jhive.read(warehouse, DB, 'tj', 'tag:t2'), 'the tag reads the same rows');
    } finally {
      hms.close();
    }
  });

  test('a metastore that goes down between the plan and the commit: the compaction fails clearly and commits nothing', async () => {
    // Java writes new overlapping files first, so the compaction has something to merge.
    await jhive.writeLoop(warehouse, DB, T, 3, 0, 0);
    const latest = fileLatest();
    const dataFiles = (): string[] => listTree(tableDir).filter((f) => /data-[^/]*\.parquet$/.test(f));
    const before = dataFiles();
    const rowsBefore = await readHive();
    const catalog = new HiveCatalog('direct', { uri, warehouse, properties: { 'lock.enabled': 'true' }, timeoutMs: 5_000 });
    const pid = Number(readFileSync(join(hmsDir, 'hms.pid'), 'utf8').trim());
    try {
      const t = await catalog.getTable(`${DB}.${T}`);
      await assert.rejects(
        compactTable({
          fileIO: t.fileIO, tablePath: t.location, table: `${DB}.${T}`, strategy: 'full', memoryBudgetBytes: 256 << 20, concurrency: 1,
          onPoint: async (point) => {
            if (point !== 'before-commit') return;
            // The files are written and the commit is next: stop the metastore, and wait for it to be gone.
            process.kill(pid, 'SIGKILL');
            for (let i = 0; i < 100 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
          },
        }),
        (e: Error & { code?: string }) => {
          assert.equal(e.code, 'STORAGE_ERROR', e.message);
          assert.match(e.message, /Hive Metastore of catalog 'direct' at 127\.0\.0\.1:\d+ is unreachable while locking table interop\.t/);
          return true;
        },
      );
      assert.equal(fileLatest(), latest, 'no snapshot was committed');
      assert.deepEqual(dataFiles(), before, 'the data files the compaction wrote were removed');
    } finally {
      await catalog.close();
      // The metastore comes back on the same port and Derby directory; Java reads and writes on.
      await setupScript('hive_metastore_launch', hmsDir, String(new URL(uri.replace('thrift:', 'http:')).port), String(process.pid));
    }
    same(await readHive(), rowsBefore, 'the rows are what they were');
    await javaKeepsWriting(300);
  });
});
