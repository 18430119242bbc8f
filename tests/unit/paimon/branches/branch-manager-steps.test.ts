/**
 * BranchManager's fast-forward and object-store rename stopped before each of their storage
 * steps (the FileIO throws at the N-th mutating call, and nothing runs after it, as after a
 * kill): at every stop the target is readable (its latest snapshot parses and its schema
 * exists), and a rerun leaves exactly the files of an uninterrupted run. The SIGKILL version on
 * Paimon Java tables is tests/reliability/crash-branches.test.ts.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { BranchManager } from '../../../../src/paimon/table/branch-manager.js';
import { SchemaManager } from '../../../../src/paimon/table/schema-manager.js';
import { SnapshotManager } from '../../../../src/paimon/table/snapshot-manager.js';
import { tempDir } from '../../../support/temp-dir.js';
import { buildTable, snap, Stop, stoppingIO, tree, writeSnap } from './branch-fixture.js';

/** The target is readable as Paimon reads it: latest snapshot (hint rules) parses and its schema exists. */
async function assertReadable(t: string, where: string): Promise<void> {
  const io = new LocalFileIO();
  const s = await new SnapshotManager(io, t).latestSnapshot();
  assert.ok(s !== null, `${where}: main has a latest snapshot`);
  await new SchemaManager(io, t).schema(s.schemaId);
}

let root: string;
before(() => {
  root = tempDir('branch-steps');
});

describe('fast-forward stopped at every storage step', () => {
  for (const mainStays of [true, false]) {
    test(mainStays ? 'main did not move after the fork' : 'main moved after the fork (forced replacement)', async () => {
      const origin = path.join(root, `ff-${mainStays}`, 'origin');
      const t0 = await buildTable(origin, mainStays);
      const refDir = path.join(root, `ff-${mainStays}`, 'ref');
      await cp(origin, refDir, { recursive: true });
      const ref = stoppingIO(-1);
      const refT = path.join(refDir, 'db.db', 't');
      const bmRef = new BranchManager(ref.io, refT);
      const out = await bmRef.executeFastForward(await bmRef.planFastForward('b'));
      assert.equal(out.conflictAt, null);
      const steps = ref.count();
      const expected = await tree(refT);
      assert.deepEqual(
        Object.keys(expected).filter((k) => k.startsWith('snapshot/snapshot-')).sort(),
        ['snapshot/snapshot-1', 'snapshot/snapshot-2', 'snapshot/snapshot-3', 'snapshot/snapshot-4', 'snapshot/snapshot-5'],
      );
      assert.equal(expected['snapshot/LATEST'], '5');
      assert.match(expected['snapshot/snapshot-5']!, /"commitUser" : "branch"/);
      assert.ok(expected['schema/schema-1'] && expected['tag/tag-bt4'] && expected['tag/tag-t2']);
      assert.ok(steps >= 5, `${steps} steps`);
      void t0;
      for (let stop = 1; stop <= steps; stop++) {
        const dir = path.join(root, `ff-${mainStays}`, `stop-${stop}`);
        await cp(origin, dir, { recursive: true });
        const t = path.join(dir, 'db.db', 't');
        const s = stoppingIO(stop);
        const bm = new BranchManager(s.io, t);
        await assert.rejects(bm.planFastForward('b').then((st) => bm.executeFastForward(st)), Stop);
        await assertReadable(t, `stopped at step ${stop}`);
        const again = new BranchManager(new LocalFileIO(), t);
        const rerun = await again.executeFastForward(await again.planFastForward('b'));
        assert.equal(rerun.conflictAt, null);
        assert.deepEqual(await tree(t), expected, `after a stop at step ${stop} and a rerun`);
      }
    });
  }

  test('a snapshot id taken by a concurrent commit stops the copy there and keeps that commit', async () => {
    const dir = path.join(root, 'ff-conflict');
    const t = await buildTable(dir, true);
    const bm = new BranchManager(new LocalFileIO(), t);
    const state = await bm.planFastForward('b');
    await writeSnap(t, 'main', snap(3, 0, { commitUser: 'concurrent' }));
    const out = await bm.executeFastForward(state);
    assert.equal(out.conflictAt, 3);
    assert.deepEqual(out.writtenSnapshots, []);
    assert.match(await readFile(new SnapshotManager(new LocalFileIO(), t).snapshotPath(3), 'utf8'), /concurrent/);
    await assertReadable(t, 'after the conflict');
  });
});

describe('object-store rename stopped at every storage step', () => {
  test('a rerun finishes it; a foreign existing branch is still refused', async () => {
    const origin = path.join(root, 'rn', 'origin');
    const t0 = await buildTable(origin, true);
    void t0;
    const refDir = path.join(root, 'rn', 'ref');
    await cp(origin, refDir, { recursive: true });
    const ref = stoppingIO(-1, true);
    const refT = path.join(refDir, 'db.db', 't');
    await new BranchManager(ref.io, refT).renameBranch('b', 'c');
    const steps = ref.count();
    const expected = await tree(refT);
    assert.ok(Object.keys(expected).some((k) => k.startsWith('branch/branch-c/schema/')));
    assert.ok(!Object.keys(expected).some((k) => k.startsWith('branch/branch-b/') || k.endsWith('.rename-from')));
    for (let stop = 1; stop <= steps; stop++) {
      const dir = path.join(root, 'rn', `stop-${stop}`);
      await cp(origin, dir, { recursive: true });
      const t = path.join(dir, 'db.db', 't');
      await assert.rejects(new BranchManager(stoppingIO(stop, true).io, t).renameBranch('b', 'c'), Stop);
      await new BranchManager(stoppingIO(-1, true).io, t).renameBranch('b', 'c');
      assert.deepEqual(await tree(t), expected, `after a stop at step ${stop} and a rerun`);
    }
    // A branch that exists without our marker is not taken over.
    const other = path.join(root, 'rn', 'other');
    await cp(origin, other, { recursive: true });
    const ot = path.join(other, 'db.db', 't');
    await new BranchManager(new LocalFileIO(), ot).createBranch('c');
    await assert.rejects(new BranchManager(stoppingIO(-1, true).io, ot).renameBranch('b', 'c'), /already exists/);
  });
});
