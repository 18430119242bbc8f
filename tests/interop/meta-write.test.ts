/**
 * What our library writes is read back by Paimon Java (1.4.2 and 2.0.0) and by pypaimon: tags
 * (with and without retention, renamed, deleted), branches (empty, from a tag, from a snapshot,
 * fast-forwarded into main) and consumers, on a private copy of the Java-made `history` table.
 * Java's own dump and reads must show exactly the objects and rows we meant.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import { FileSystemCatalog } from '../../src/paimon/catalog/filesystem-catalog.js';
import { localDateTimeOf, localDateTimeToString } from '../../src/paimon/spec/tag.js';
import { MATRIX_DB, PAIMON_JAVA_VERSIONS, canonicalSort, copyWarehouse, java, matrixWarehouse, parseJsonLines, pypaimon, toComparable, type Row, pypaimons } from './peers.js';

const T = 'history';

async function javaReads(version: '1.4' | '2.0', wh: string, targets: string[]): Promise<Map<string, Row[]>> {
  const results = await java(version).batch(targets.map((t) => (t === 'latest' ? ['read', wh, MATRIX_DB, T] : ['read', wh, MATRIX_DB, T, t])));
  const out = new Map<string, Row[]>();
  results.forEach((r, i) => {
    if (!r.ok) throw new Error(`Java read ${targets[i]} failed: ${r.error}`);
    out.set(targets[i], canonicalSort(parseJsonLines(r.stdout) as Row[]));
  });
  return out;
}

for (const version of PAIMON_JAVA_VERSIONS) {
  describe(`tags, branches and consumers we write are read by Paimon Java ${version} and pypaimon`, () => {
    test('tag create (with retention) / rename / delete, branches from tag, snapshot and empty, consumers', async () => {
      const wh = copyWarehouse(await matrixWarehouse(version), `meta-write-${version}`);
      const catalog = new FileSystemCatalog(wh, new LocalFileIO());
      const table = await catalog.getTable(`${MATRIX_DB}.${T}`);
      const sm = table.snapshotManager();
      const tm = table.tagManager();
      const bm = table.branchManager();
      const cm = table.consumerManager();
      const created = new Date(2026, 10, 29, 21, 5, 7, 250);

      assert.equal(await tm.createTag(await sm.snapshot(2), 'our_t2', { timeRetainedMs: 3_600_000, now: created }), true);
      assert.equal(await tm.createTag(await sm.snapshot(4), 'our_t4'), true);
      await assert.rejects(tm.createTag(await sm.snapshot(4), 'our_t4'), /already exists/);
      await tm.renameTag('t5', 't5_renamed');
      assert.ok((await tm.deleteTag('t1')) !== null);
      await bm.createBranchFromTag('our_b', 'our_t4');
      await bm.createBranch('our_empty');
      await bm.createBranchFromSnapshot('our_s2', 2);
      await cm.resetConsumer('our_c', { nextSnapshot: 3 });
      assert.equal(await cm.deleteConsumer('c2'), true);

      const dump = await java(version).dump(wh, MATRIX_DB, T);
      const tags = [...dump.tags].sort((a, b) => (a.name < b.name ? -1 : 1));
      assert.deepEqual(
        tags.map((t) => [t.name, Number(t.snapshotId)]),
        [
          ['our_t2', 2],
          ['our_t4', 4],
          ['t3', 3],
          ['t5_renamed', 5],
        ],
      );
      const ourT2 = tags[0];
      assert.equal(Number(ourT2.tagTimeRetainedMillis), 3_600_000);
      assert.equal(ourT2.tagCreateTime, localDateTimeToString(localDateTimeOf(created)));
      assert.equal(tags[1].tagCreateTime, null);
      assert.deepEqual([...dump.branches].sort(), ['b1', 'b_empty', 'our_b', 'our_empty', 'our_s2']);
      assert.deepEqual(toComparable(dump.consumers), { c1: { nextSnapshot: 4 }, our_c: { nextSnapshot: 3 } });

      const reads = await javaReads(version, wh, ['2', '4', '5', 'tag:our_t4', 'tag:t5_renamed', 'tag:our_t2', 'branch:our_b', 'branch:our_s2', 'branch:our_empty']);
      assert.ok((reads.get('4') ?? []).length > 0);
      assert.deepEqual(reads.get('tag:our_t4'), reads.get('4'));
      assert.deepEqual(reads.get('tag:our_t2'), reads.get('2'));
      assert.deepEqual(reads.get('tag:t5_renamed'), reads.get('5'));
      assert.deepEqual(reads.get('branch:our_b'), reads.get('4'));
      assert.deepEqual(reads.get('branch:our_s2'), reads.get('2'));
      assert.deepEqual(reads.get('branch:our_empty'), []);

      // The branch we made from a tag is a full branch for Java: its dump has the tag and snapshot.
      const ourB = await java(version).dump(wh, MATRIX_DB, T, 'our_b');
      assert.deepEqual(ourB.snapshots.map((s) => Number(s.id)), [4]);
      assert.deepEqual(ourB.tags.map((t) => t.name), ['our_t4']);

      // pypaimon sees the same tags, branches and consumers.
      const py = await pypaimon.dumpSnapshots(wh, MATRIX_DB, T);
      assert.deepEqual(
        py.tags.map((t) => [t.name, Number(t.snapshotId)]).sort(),
        [
          ['our_t2', 2],
          ['our_t4', 4],
          ['t3', 3],
          ['t5_renamed', 5],
        ],
      );
      assert.deepEqual([...py.branches].sort(), ['b1', 'b_empty', 'our_b', 'our_empty', 'our_s2']);
      assert.deepEqual(toComparable(py.consumers), { c1: { nextSnapshot: 4 }, our_c: { nextSnapshot: 3 } });
      assert.deepEqual(await pypaimons.read(wh, MATRIX_DB, T, 'tag:our_t4'), reads.get('4'));
    });

    test('fast-forward of main to a branch: Java and pypaimon read main as the branch', async () => {
      const wh = copyWarehouse(await matrixWarehouse(version), `meta-ff-${version}`);
      const before = await javaReads(version, wh, ['branch:b1', 'latest']);
      assert.notDeepEqual(before.get('branch:b1'), before.get('latest'));
      const catalog = new FileSystemCatalog(wh, new LocalFileIO());
      const table = await catalog.getTable(`${MATRIX_DB}.${T}`);
      const r = await table.branchManager().fastForward('b1');
      assert.equal(r.earliestSnapshotId, 3);
      const after = await javaReads(version, wh, ['latest']);
      assert.deepEqual(after.get('latest'), before.get('branch:b1'));
      const dump = await java(version).dump(wh, MATRIX_DB, T);
      assert.equal(String(dump.latestSnapshotId), dump.hints.LATEST, 'LATEST is exact after fast-forward');
      assert.deepEqual(dump.tags.map((t) => t.name).sort(), ['bt1', 't1', 't3']);
      assert.deepEqual(await pypaimons.read(wh, MATRIX_DB, T), before.get('branch:b1'));
    });
  });
}
