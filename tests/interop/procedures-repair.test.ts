/**
 * remove_unexisting_files on copies of a Paimon Java table whose data file was deleted by hand:
 * Java cannot read the table before; our procedure and Java's own repair (paimon-core's
 * ListUnexistingFiles and the commit SparkRemoveUnexistingFiles makes, in RepairTool.java) list the
 * same file and leave the same live files; Java reads the table again afterwards and keeps writing.
 * repair_earliest_snapshot after a partial expiration: the same checks and EARLIEST hint as Java 2.0's.
 * purge_files: a dry run by default; then the same kinds of files left as Java's purgeFiles.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { java, copyWarehouse, tempWarehouse, type PaimonJavaVersion, type JsonObj } from './peers.js';
import { callNamed, executorFor, listTree } from './procedures-support.js';
import { canonRows, liveFiles } from './compact-support.js';
import { removeUnexistingFiles } from '../../procedures/repair/remove-unexisting-files.js';
import { repairEarliestSnapshot } from '../../procedures/repair/repair-earliest-snapshot.js';
import { purgeFiles } from '../../procedures/repair/purge-files.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';

after(async () => {
  await closeDataEngine();
});

async function damaged(v: PaimonJavaVersion): Promise<{ wh: string; gone: string }> {
  const peer = java(v);
  const wh = tempWarehouse(`repair-${v}`);
  await peer.createTable(wh, 'db', 't', {
    fields: [{ name: 'dt', type: 'STRING NOT NULL' }, { name: 'id', type: 'INT NOT NULL' }, { name: 'v', type: 'STRING' }],
    primaryKeys: ['dt', 'id'], partitionKeys: ['dt'], options: { bucket: '2', 'write-only': 'true' },
  });
  for (let c = 0; c < 3; c++) await peer.write(wh, 'db', 't', Array.from({ length: 8 }, (_, k) => ({ dt: k % 2 === 0 ? 'a' : 'b', id: c * 10 + k, v: `v${c}-${k}` })));
  const dump = (await peer.json(['dump', wh, 'db', 't'])) as JsonObj;
  const victim = liveFiles(dump).find((f) => f.partition === '["a"]')!;
  const gone = join(wh, 'db.db/t', 'dt=a', `bucket-${victim.bucket}`, victim.fileName);
  rmSync(gone);
  return { wh, gone };
}

for (const v of ['1.4', '2.0'] as const) {
  test(`Paimon ${v}: remove_unexisting_files removes the entry of a deleted data file as Java's repair does`, async () => {
    const peer = java(v);
    const { wh: ours, gone } = await damaged(v);
    const theirs = copyWarehouse(ours, `repair-java-${v}`);
    await assert.rejects(peer.read(ours, 'db', 't'), 'Java cannot read the damaged table');

    const ex = executorFor(ours, [removeUnexistingFiles]);
    const dry = await callNamed(ex, 'remove_unexisting_files', { table: 'db.t', dry_run: true });
    assert.ok(dry.ok, dry.ok ? '' : dry.error.message);
    assert.deepEqual(dry.result.rows.map((r) => basename(String(r.fileName))), [basename(gone)]);

    const o = await callNamed(ex, 'remove_unexisting_files', { table: 'db.t' });
    assert.ok(o.ok, o.ok ? '' : o.error.message);
    assert.equal(o.result.rows.length, 1);
    assert.equal(o.result.rows[0]!.partition, 'dt=a');
    const r = await peer.runMain('RepairTool', ['remove-unexisting', theirs, 'db', 't', 'false']);
    assert.equal(r.code, 0, r.stderr);
    const javaFiles = (JSON.parse(r.stdout.trim().split('\n').pop()!) as { files: string[] }).files;
    assert.deepEqual(javaFiles.map((f) => basename(f)), [basename(gone)]);

    const live = async (wh: string): Promise<string[]> => liveFiles((await peer.json(['dump', wh, 'db', 't'])) as JsonObj).map((f) => `${f.partition}/${f.bucket}/${f.fileName}`).sort();
    assert.deepEqual(await live(ours), await live(theirs));
    assert.deepEqual(canonRows(await peer.read(ours, 'db', 't')), canonRows(await peer.read(theirs, 'db', 't')));
    // The same kind of commit as Java's (Java 1.4+ turns an APPEND with deletions into OVERWRITE).
    const lastKind = async (wh: string): Promise<string> => {
      const d = (await peer.json(['dump', wh, 'db', 't'])) as { snapshots: Array<{ commitKind: string }> };
      return d.snapshots[d.snapshots.length - 1]!.commitKind;
    };
    assert.equal(await lastKind(ours), await lastKind(theirs));
    // Java keeps writing (older snapshots still name the lost file, as Java's repair leaves them).
    await peer.write(ours, 'db', 't', [{ dt: 'a', id: 99, v: 'after' }]);
    assert.ok(canonRows(await peer.read(ours, 'db', 't')).some((r) => r.includes('"after"')));
    // Nothing left to remove.
    const again = await callNamed(ex, 'remove_unexisting_files', { table: 'db.t' });
    assert.ok(again.ok && again.result.rows.length === 0);
  });
}

test('Paimon 2.0: repair_earliest_snapshot sets the EARLIEST hint past a gap as Java does, with its checks', async () => {
  const peer = java('2.0');
  const wh = tempWarehouse('repair-earliest');
  await peer.createTable(wh, 'db', 't', { fields: [{ name: 'id', type: 'INT NOT NULL' }, { name: 'v', type: 'STRING' }], primaryKeys: ['id'], partitionKeys: [], options: { bucket: '1', 'write-only': 'true' } });
  for (let c = 0; c < 6; c++) await peer.write(wh, 'db', 't', [{ id: c, v: `v${c}` }]);
  // A partial expiration: snapshots 2 and 3 are gone, 1 and 4-6 remain.
  for (const id of [2, 3]) rmSync(join(wh, 'db.db/t/snapshot', `snapshot-${id}`));
  const theirs = copyWarehouse(wh, 'repair-earliest-java');
  const ex = executorFor(wh, [repairEarliestSnapshot]);
  const err = (o: Awaited<ReturnType<typeof callNamed>>): string => (o.ok ? 'OK' : `${o.error.code}: ${o.error.message}`);
  assert.match(err(await callNamed(ex, 'repair_earliest_snapshot', { table: 'db.t', snapshot_id: 5n })), /does not immediately follow a snapshot gap/);
  assert.match(err(await callNamed(ex, 'repair_earliest_snapshot', { table: 'db.t', snapshot_id: 9n })), /must not be later than latest snapshot 6/);
  assert.match(err(await callNamed(ex, 'repair_earliest_snapshot', { table: 'db.t', snapshot_id: 3n })), /Snapshot 3 does not exist/);
  const o = await callNamed(ex, 'repair_earliest_snapshot', { table: 'db.t', snapshot_id: 4n });
  assert.ok(o.ok, err(o));
  assert.equal(Number(o.result.rows[0]!.previous_earliest_snapshot_id), 1);
  const r = await peer.runMain('RepairTool', ['repair-earliest', theirs, 'db', 't', '4']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(Number((JSON.parse(r.stdout.trim().split('\n').pop()!) as { previous: number }).previous), 1);
  assert.equal(readFileSync(join(wh, 'db.db/t/snapshot/EARLIEST'), 'utf8'), readFileSync(join(theirs, 'db.db/t/snapshot/EARLIEST'), 'utf8'));
  assert.equal(readFileSync(join(wh, 'db.db/t/snapshot/EARLIEST'), 'utf8'), '4');
  // Java expires from the repaired earliest and keeps writing.
  await peer.write(wh, 'db', 't', [{ id: 9, v: 'after' }]);
  assert.equal((await peer.read(wh, 'db', 't')).length, 7);
});

test('Paimon 2.0: purge_files dry-runs by default, then leaves what Java\'s purgeFiles leaves', async () => {
  const peer = java('2.0');
  const wh = tempWarehouse('purge');
  await peer.createTable(wh, 'db', 't', { fields: [{ name: 'id', type: 'INT NOT NULL' }, { name: 'v', type: 'STRING' }], primaryKeys: ['id'], partitionKeys: [], options: { bucket: '1' } });
  for (let c = 0; c < 4; c++) await peer.write(wh, 'db', 't', [{ id: c, v: `v${c}` }, { id: c + 10, v: 'x' }]);
  await peer.createTag(wh, 'db', 't', 'tag2', 2);
  await peer.createBranch(wh, 'db', 't', 'b1', 'tag2');
  await peer.createConsumer(wh, 'db', 't', 'c1', 3);
  const theirs = copyWarehouse(wh, 'purge-java');
  const tableDir = join(wh, 'db.db/t');
  const before = listTree(tableDir);

  const ex = executorFor(wh, [purgeFiles]);
  const dry = await callNamed(ex, 'purge_files', { table: 'db.t' });
  assert.ok(dry.ok, dry.ok ? '' : dry.error.message);
  assert.deepEqual(listTree(tableDir), before, 'the default dry run changed files');
  assert.deepEqual(dry.result.rows.map((r) => `${String(r.step)}:${String(r.objects)}`).slice(0, 3), ['drop_branches:1', 'delete_tags:1', 'delete_consumers:1']);

  const o = await callNamed(ex, 'purge_files', { table: 'db.t', dry_run: false });
  assert.ok(o.ok, o.ok ? '' : o.error.message);
  assert.equal(o.result.info, 'Success');
  const r = await peer.runMain('RepairTool', ['purge', theirs, 'db', 't']);
  assert.equal(r.code, 0, r.stderr);

  // The same kinds of files remain: schema, one snapshot with its manifests, no data, tags, branches or consumers.
  const shape = (dir: string): string[] =>
    [...new Set(listTree(dir).map((f) => f.replace(/[0-9a-f]{8}-[0-9a-f-]{27}[^/]*$/, '<uuid>').replace(/snapshot-\d+$/, 'snapshot-N')))].sort();
  assert.deepEqual(shape(tableDir), shape(join(theirs, 'db.db/t')));
  const snapshotFiles = (dir: string): string[] => listTree(dir).filter((f) => /^snapshot\/snapshot-\d+$/.test(f));
  assert.deepEqual(snapshotFiles(tableDir), snapshotFiles(join(theirs, 'db.db/t')));
  assert.equal(snapshotFiles(tableDir).length, 1);
  assert.ok(!listTree(tableDir).some((f) => /^(bucket-|tag\/|branch\/|consumer\/)/.test(f)), listTree(tableDir).join(' '));
  assert.deepEqual(await peer.read(wh, 'db', 't'), []);
  await peer.write(wh, 'db', 't', [{ id: 1, v: 'after' }]);
  assert.equal((await peer.read(wh, 'db', 't')).length, 1);
  assert.equal((await peer.check(wh, 'db', 't')).ok, true);
});
