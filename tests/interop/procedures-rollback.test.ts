/**
 * rollback_to / rollback / rollback_to_timestamp against Paimon Java's Table.rollbackTo on
 * copies of the same Java-written history: same files left on disk (snapshots, tags, hints),
 * the restored snapshot file of an expired tag equal to Java's, Java's `check` passes, rows equal.
 * The same on every table kind of KIND_TABLES, where pypaimon 2.0.0 must also read those rows
 * from both copies (interop.t has legacy DATE partition names, which pypaimon cannot read).
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { rollback, rollbackTo } from '../../procedures/snapshots/rollback-to.js';
import { rollbackToTimestamp } from '../../procedures/snapshots/rollback-to-timestamp.js';
import { parseJson } from '../../src/paimon/spec/json.js';
import {
  HISTORY_TABLE as TABLE,
  PAIMON_VERSIONS,
  assertBranchSameAsJava,
  assertSameAsJava,
  branchCopies,
  callNamed,
  differentialKinds,
  executorFor,
  firstRow,
  historyWarehouse,
  javaAndOurCopies,
  listTree,
  ourCopy,
  paimon,
} from './procedures-support.js';

const PROCS = [rollbackTo, rollback, rollbackToTimestamp];

for (const v of PAIMON_VERSIONS) {
  describe(`rollback vs Paimon ${v} Table.rollbackTo`, () => {
    let origin: string;
    before(async () => {
      origin = await historyWarehouse(v, 'rollback');
    });

    async function differential(
      name: string,
      javaTarget: string,
      procedure: string,
      args: Record<string, string | number | boolean>,
      prepare?: (wh: string) => Promise<void>,
    ): Promise<{ row: Record<string, unknown>; a: string; b: string }> {
      const { a, b } = await javaAndOurCopies(origin, `rollback-${v}-${name}`, prepare);
      await paimon(v, 'rollback', a, 'interop', 't', javaTarget);
      const row = firstRow(await callNamed(executorFor(b, PROCS), procedure, { table: 'interop.t', ...args }));
      await assertSameAsJava(v, a, b);
      return { row, a, b };
    }

    test('rollback_to a snapshot removes later snapshots and later tags, keeps data files', async () => {
      const { row, b } = await differential('snap', '8', 'rollback_to', { snapshot_id: 8 });
      assert.equal(row.current_snapshot_id, 8);
      assert.equal(row.changed, true);
      assert.ok(String(row.removed_tags).includes('tag_mid'));
      assert.ok(!String(row.removed_tags).includes('tag3'));
      assert.ok(existsSync(join(b, TABLE, 'tag/tag-tag3')));
    });

    test("Spark's rollback(version => tag) rolls back to the tag", async () => {
      const { row } = await differential('tag', 'tag:tag3', 'rollback', { version: 'tag3' });
      assert.equal(row.current_snapshot_id, 3);
      assert.equal(row.target_tag, 'tag3');
    });

    test('a tag whose snapshot expired: the snapshot file is restored from the tag, as Java writes it', async () => {
      const { row, a, b } = await differential('expired-tag', 'tag:tag3', 'rollback_to', { tag: 'tag3' }, async (wh) => {
        await paimon(v, 'expire', wh, 'interop', 't', '1', '1', String(Date.now()), '2147483647');
      });
      assert.equal(row.restored_snapshot, true);
      const ours = parseJson(readFileSync(join(b, TABLE, 'snapshot/snapshot-3'), 'utf8'));
      const java = parseJson(readFileSync(join(a, TABLE, 'snapshot/snapshot-3'), 'utf8'));
      assert.deepEqual(ours, java, 'restored snapshot-3 has the same content as Java writes');
    });

    test('rollback_to_timestamp picks the latest snapshot at or before the timestamp', async () => {
      const s6 = parseJson(readFileSync(join(origin, TABLE, 'snapshot/snapshot-6'), 'utf8')) as { timeMillis: number };
      const { row } = await differential('ts', '6', 'rollback_to_timestamp', { timestamp: s6.timeMillis });
      assert.equal(row.current_snapshot_id, 6);
    });

    test('every table kind: same files as Java; Java and pypaimon read the same rows from both copies', async () => {
      await differentialKinds(v, {
        name: 'rollback',
        javaStep: (wh, t) => ['rollback', wh, 'interop', t, '6'],
        ours: async (wh, t) => {
          const row = firstRow(await callNamed(executorFor(wh, PROCS), 'rollback_to', { table: `interop.${t}`, snapshot_id: 6 }));
          assert.equal(Number(row.current_snapshot_id), 6, t);
        },
        alsoRead: ['tag:tag2'],
      });
    });

    test('on a branch (interop.t$branch_b1): rolls the branch back as Java does; main is untouched', async () => {
      const { a, b, mainBefore } = await branchCopies(v, origin, `rollback-${v}-branch`);
      await paimon(v, 'rollback', a, 'interop', 't$branch_b1', '5');
      const row = firstRow(await callNamed(executorFor(b, PROCS), 'rollback_to', { table: 'interop.t$branch_b1', snapshot_id: 5 }));
      assert.equal(Number(row.current_snapshot_id), 5);
      await assertBranchSameAsJava(v, a, b, mainBefore);
      const missing = await callNamed(executorFor(b, PROCS), 'rollback_to', { table: 'interop.t$branch_nope', snapshot_id: 1 });
      assert.equal(!missing.ok && missing.error.code, 'BRANCH_NOT_FOUND');
    });

    test('dry_run says what would be removed and changes nothing', async () => {
      const b = ourCopy(origin, `rollback-${v}-dry`);
      const before = listTree(join(b, TABLE));
      const latest = readFileSync(join(b, TABLE, 'snapshot/LATEST'), 'utf8');
      const row = firstRow(await callNamed(executorFor(b, PROCS), 'rollback_to', { table: 'interop.t', snapshot_id: 4, dry_run: true }));
      assert.deepEqual(listTree(join(b, TABLE)), before);
      assert.equal(readFileSync(join(b, TABLE, 'snapshot/LATEST'), 'utf8'), latest);
      assert.equal(row.changed, false);
      assert.equal(row.dry_run, true);
      assert.ok(String(row.removed_snapshot_ids).length > 0);
    });

    test('missing targets and ambiguous arguments are errors that change nothing', async () => {
      const b = ourCopy(origin, `rollback-${v}-bad`);
      const before = listTree(join(b, TABLE));
      const ex = executorFor(b, PROCS);
      const cases: Array<[string, Record<string, string | number>, string]> = [
        ['rollback_to', { snapshot_id: 999 }, 'SNAPSHOT_NOT_FOUND'],
        ['rollback_to', { tag: 'nope' }, 'TAG_NOT_FOUND'],
        ['rollback_to', { tag: 'tag3', snapshot_id: 4 }, 'INVALID_ARGUMENT'],
        ['rollback', { version: '3', tag: 'tag3' }, 'INVALID_ARGUMENT'],
        ['rollback_to', {}, 'INVALID_ARGUMENT'],
        ['rollback_to_timestamp', { timestamp: 1 }, 'SNAPSHOT_NOT_FOUND'],
      ];
      for (const [proc, args, code] of cases) {
        const o = await callNamed(ex, proc, { table: 'interop.t', ...args });
        assert.equal(o.ok, false, `${proc} ${JSON.stringify(args)}`);
        if (!o.ok) assert.equal(o.error.code, code, `${proc} ${JSON.stringify(args)}: ${o.error.message}`);
      }
      const missing = await callNamed(ex, 'rollback_to', { table: 'interop.nope', snapshot_id: 1 });
      assert.equal(!missing.ok && missing.error.code, 'TABLE_NOT_FOUND');
      assert.deepEqual(listTree(join(b, TABLE)), before);
    });
  });
}
