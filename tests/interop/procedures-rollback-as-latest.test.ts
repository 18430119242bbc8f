/**
 * rollback_to_as_latest: against Paimon 2.0's TableCommitImpl.rollbackToAsLatest on copies of
 * the same Java-written history (same new latest snapshot id, kind, counts, live data files,
 * rows, nothing deleted), and on a Paimon 1.4.2 table (which has no such API) checked by
 * Java reading the new latest snapshot equal to the target. On every table kind of KIND_TABLES,
 * Java and pypaimon 2.0.0 read the same rows from our result and from Java's (or, on 1.4.2, from
 * the target snapshot).
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { rollbackToAsLatest } from '../../procedures/snapshots/rollback-to-as-latest.js';
import { expireSnapshots } from '../../procedures/snapshots/expire-snapshots.js';
import { parseJson, type JsonObject } from '../../src/paimon/spec/json.js';
import {
  HISTORY_TABLE as TABLE,
  PAIMON_VERSIONS,
  callNamed,
  differentialKinds,
  executorFor,
  firstRow,
  historyWarehouse,
  javaAndOurCopies,
  javaCheckPasses,
  listTree,
  liveDataFiles,
  ourCopy,
  paimon,
  readRows,
} from './procedures-support.js';

function snapshotJson(wh: string, id: number): JsonObject {
  return parseJson(readFileSync(join(wh, TABLE, `snapshot/snapshot-${id}`), 'utf8')) as JsonObject;
}

for (const v of PAIMON_VERSIONS) {
  describe(`rollback_to_as_latest on a Paimon ${v} table`, () => {
    let origin: string;
    let latest: number;
    before(async () => {
      origin = await historyWarehouse(v, 'ral');
      latest = Number(readFileSync(join(origin, TABLE, 'snapshot/LATEST'), 'utf8'));
    });

    test('the new latest snapshot reads exactly like the target; nothing is deleted; expiry keeps the target', async () => {
      const b = ourCopy(origin, `ral-${v}-ours`);
      const before = listTree(join(b, TABLE));
      const ex = executorFor(b, [rollbackToAsLatest, expireSnapshots]);
      const row = firstRow(await callNamed(ex, 'rollback_to_as_latest', { table: 'interop.t', snapshot_id: 4 }));
      assert.equal(row.previous_snapshot_id, latest);
      assert.equal(row.rolled_back_snapshot_id, 4);
      assert.equal(row.current_snapshot_id, latest + 1);
      const after = listTree(join(b, TABLE));
      for (const f of before) assert.ok(after.includes(f), `${f} was deleted`);
      assert.deepEqual(await readRows(v, b, 'interop', 't'), await readRows(v, origin, 'interop', 't', '4'));
      const s = snapshotJson(b, latest + 1);
      assert.equal(s.commitKind, 'OVERWRITE');
      assert.equal(String(s.totalRecordCount), String(snapshotJson(origin, 4).totalRecordCount));
      assert.equal(await javaCheckPasses(v, b), true);
      // the protective tag keeps snapshot 4's files through an aggressive expiry
      firstRow(await callNamed(ex, 'expire_snapshots', { table: 'interop.t', retain_min: 1, retain_max: 1, older_than: String(Date.now()) }));
      assert.ok(String(row.protective_tag).startsWith('rollback-to-as-latest-4-'));
      assert.deepEqual(await readRows(v, b, 'interop', 't', `tag:${String(row.protective_tag)}`), await readRows(v, origin, 'interop', 't', '4'));
      assert.equal(await javaCheckPasses(v, b), true);
    });

    test('to a tag; dry_run commits nothing; errors name the target', async () => {
      const b = ourCopy(origin, `ral-${v}-tag`);
      const before = listTree(join(b, TABLE));
      const ex = executorFor(b, [rollbackToAsLatest]);
      const dry = firstRow(await callNamed(ex, 'rollback_to_as_latest', { table: 'interop.t', tag: 'tag3', dry_run: true }));
      assert.equal(dry.changed, false);
      assert.deepEqual(listTree(join(b, TABLE)), before);
      const bad = await callNamed(ex, 'rollback_to_as_latest', { table: 'interop.t', snapshot_id: 999 });
      assert.equal(!bad.ok && bad.error.code, 'SNAPSHOT_NOT_FOUND');
      const both = await callNamed(ex, 'rollback_to_as_latest', { table: 'interop.t', snapshot_id: 3, tag: 'tag3' });
      assert.equal(!both.ok && both.error.code, 'INVALID_ARGUMENT');
      const row = firstRow(await callNamed(ex, 'rollback_to_as_latest', { table: 'interop.t', tag: 'tag3' }));
      assert.equal(row.protective_tag, null);
      assert.deepEqual(await readRows(v, b, 'interop', 't'), await readRows(v, origin, 'interop', 't', 'tag:tag3'));
    });

    test('every table kind: Java and pypaimon read the target snapshot as the new latest, on both sides', async () => {
      await differentialKinds(v, {
        name: 'ral',
        ...(v !== '1.4.2' ? { javaStep: (wh: string, t: string) => ['rollback-as-latest', wh, 'interop', t, '6'] } : { expectedTarget: '6' }),
        ours: async (wh, t) => {
          const row = firstRow(await callNamed(executorFor(wh, [rollbackToAsLatest]), 'rollback_to_as_latest', { table: `interop.${t}`, snapshot_id: 6 }));
          assert.equal(Number(row.rolled_back_snapshot_id), 6, t);
        },
        sameFiles: false,
        alsoRead: ['tag:tag2'],
      });
    });

    if (v !== '1.4.2') {
      test(`same result as Paimon ${v}'s own rollbackToAsLatest`, async () => {
        const { a, b } = await javaAndOurCopies(origin, `ral-${v}-diff`);
        const java = (await paimon(v, 'rollback-as-latest', a, 'interop', 't', '6')) as { latestSnapshotId: number };
        const row = firstRow(await callNamed(executorFor(b, [rollbackToAsLatest]), 'rollback_to_as_latest', { table: 'interop.t', snapshot_id: 6 }));
        assert.equal(Number(row.current_snapshot_id), Number(java.latestSnapshotId));
        const ja = snapshotJson(a, Number(java.latestSnapshotId));
        const ob = snapshotJson(b, Number(row.current_snapshot_id));
        for (const k of ['commitKind', 'schemaId', 'totalRecordCount', 'deltaRecordCount', 'indexManifest', 'watermark', 'statistics']) {
          assert.equal(String(ob[k]), String(ja[k]), k);
        }
        assert.deepEqual(await liveDataFiles(b, 'interop', 't'), await liveDataFiles(a, 'interop', 't'));
        assert.deepEqual(await readRows(v, b, 'interop', 't'), await readRows(v, a, 'interop', 't'));
        const strip = (fs: string[]) => fs.filter((f) => !f.startsWith('manifest/') && !f.startsWith('tag/') && f !== `snapshot/snapshot-${java.latestSnapshotId}`);
        assert.deepEqual(strip(listTree(join(b, TABLE))), strip(listTree(join(a, TABLE))), 'same data and snapshot files');
      });
    }
  });
}
