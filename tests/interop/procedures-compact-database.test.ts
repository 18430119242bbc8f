/**
 * compact_database on warehouses Paimon Java 1.4.2 / 2.0.0 wrote: the Java-regex filters pick the
 * tables Paimon's would, each selected table is compacted by our compact (a table we do not compact
 * fails alone), Java reads the same rows as after its own compaction of a copy and keeps writing;
 * a concurrent Java writer during compact_database loses no commit.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { java, copyWarehouse, tempWarehouse, type PaimonJavaVersion, type TableSpec } from './peers.js';
import { callNamed, executorFor } from './procedures-support.js';
import { canonRows } from './compact-support.js';
import { compactDatabase } from '../../procedures/compaction/compact-database.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';

after(async () => {
  await closeDataEngine();
});

const pk = (options: Record<string, string> = {}): TableSpec => ({
  fields: [{ name: 'id', type: 'INT NOT NULL' }, { name: 'v', type: 'STRING' }],
  primaryKeys: ['id'], partitionKeys: [], options: { bucket: '1', 'write-only': 'true', ...options },
});
const append: TableSpec = { fields: [{ name: 'id', type: 'INT' }, { name: 'v', type: 'STRING' }], primaryKeys: [], partitionKeys: [], options: { bucket: '-1', 'write-only': 'true' } };

const TABLES: Array<[string, string, TableSpec]> = [
  ['sales', 'orders', pk()],
  ['sales', 'orders_tmp', pk()],
  ['sales', 'lookup', pk({ 'changelog-producer': 'lookup' })],
  ['hr', 'people', append],
  ['archive', 'old', pk()],
];

async function build(v: PaimonJavaVersion): Promise<string> {
  const peer = java(v);
  const wh = tempWarehouse(`compact-db-${v}`);
  for (const [db, t, spec] of TABLES) {
    await peer.createTable(wh, db, t, spec);
    // Six commits: append compaction needs compaction.min.file-num (5) small files, in Java too.
    for (let c = 0; c < 6; c++) await peer.write(wh, db, t, Array.from({ length: 6 }, (_, k) => ({ id: (c * 4 + k) % 9, v: `${t}-${c}-${k}` })));
  }
  return wh;
}

for (const v of ['1.4', '2.0'] as const) {
  test(`Paimon ${v}: compact_database compacts the selected tables as Java's compaction does; one failure does not stop the rest`, async () => {
    const peer = java(v);
    const ours = await build(v);
    const theirs = copyWarehouse(ours, `compact-db-java-${v}`);
    await peer.runMain('RepairTool', ['compact-tables', theirs, 'sales', 'orders']);
    await peer.runMain('RepairTool', ['compact-tables', theirs, 'hr', 'people']);

    const o = await callNamed(executorFor(ours, [compactDatabase]), 'compact_database', { including_databases: 'sales|hr', excluding_tables: 'sales\\..*_tmp' });
    assert.ok(o.ok, o.ok ? '' : o.error.message);
    const byTable = new Map(o.result.rows.map((r) => [`${String(r.database)}.${String(r.table)}`, r]));
    assert.deepEqual([...byTable.keys()], ['hr.people', 'sales.lookup', 'sales.orders']);
    assert.equal(byTable.get('sales.orders')!.outcome, 'compacted', JSON.stringify(byTable.get('sales.orders'), (_k, x) => (typeof x === 'bigint' ? String(x) : x)));
    assert.equal(byTable.get('hr.people')!.outcome, 'compacted');
    assert.equal(byTable.get('sales.lookup')!.outcome, 'failed');
    assert.equal(byTable.get('sales.lookup')!.error_code, 'UNSUPPORTED_TABLE');
    assert.equal(o.result.info, 'Compact database finished. Success: 2, Failed: 1');

    for (const [db, t] of [['sales', 'orders'], ['hr', 'people']] as const) {
      assert.deepEqual(canonRows(await peer.read(ours, db, t)), canonRows(await peer.read(theirs, db, t)), `${db}.${t}`);
      const dump = await peer.json<{ snapshots: Array<{ commitKind: string }> }>(['dump', ours, db, t]);
      assert.equal(dump.snapshots[dump.snapshots.length - 1]!.commitKind, 'COMPACT');
      // Java keeps writing on top of our compaction.
      await peer.write(ours, db, t, [{ id: 100, v: 'after' }]);
      assert.ok(canonRows(await peer.read(ours, db, t)).some((r) => r.includes('"after"')));
      assert.equal((await peer.check(ours, db, t)).ok, true);
    }
    // Excluded and unselected tables are untouched (still six APPEND snapshots).
    for (const [db, t] of [['sales', 'orders_tmp'], ['archive', 'old']] as const) {
      const dump = await peer.json<{ snapshots: Array<{ commitKind: string }> }>(['dump', ours, db, t]);
      assert.deepEqual(dump.snapshots.map((s) => s.commitKind), Array<string>(6).fill('APPEND'), `${db}.${t}`);
    }
  });
}

test('Paimon 2.0: a concurrent Java writer during compact_database loses no commit', async () => {
  const peer = java('2.0');
  const wh = await build('2.0');
  const before = (await peer.read(wh, 'sales', 'orders')).length;
  const writer = peer.spawn(['write-loop', wh, 'sales', 'orders', '6', '50', '1000']);
  let out = '';
  writer.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const o = await callNamed(executorFor(wh, [compactDatabase]), 'compact_database', { including_databases: 'sales', including_tables: 'sales\\.orders' });
  const [code] = (await once(writer, 'exit')) as [number];
  assert.equal(code, 0, 'the Java writer failed');
  assert.ok(o.ok, o.ok ? '' : o.error.message);
  assert.equal(o.result.rows[0]!.outcome, 'compacted', String(o.result.rows[0]!.message));
  const commits = (JSON.parse(out.trim().split('\n').pop()!) as { commits: Array<{ i: number }> }).commits;
  assert.equal(commits.length, 6);
  const rows = await peer.read(wh, 'sales', 'orders');
  assert.equal(rows.length, before + 6);
  for (const c of commits) assert.ok(rows.some((r) => Number(r.id) === c.i), `row of write ${c.i} is missing`);
  assert.equal((await peer.check(wh, 'sales', 'orders')).ok, true);
});
