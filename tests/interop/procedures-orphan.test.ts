/**
 * remove_orphan_files against Paimon Java's LocalOrphanFilesClean on copies of the same
 * Java-written table (with a rollback's leftovers, a branch, planted orphans and temp files):
 * the same files are deleted, Java's `check` passes afterwards, rows are equal; plus the
 * safety floor, dry_run and `db.*`. Directories the deletions leave empty (a planted bucket
 * directory, a planted partition) are removed as Java removes them. The same on every table kind of KIND_TABLES (after our
 * rollback left files behind, with planted orphans), where pypaimon 2.0.0 must also read the same
 * rows from both copies (interop.t has legacy DATE partition names, which pypaimon cannot read).
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { removeOrphanFiles } from '../../procedures/files/remove-orphan-files.js';
import { rollbackTo } from '../../procedures/snapshots/rollback-to.js';
import {
  HISTORY_TABLE as TABLE,
  PAIMON_VERSIONS,
  ageTree,
  callNamed,
  differentialKinds,
  executorFor,
  firstRow,
  historyWarehouse,
  javaAndOurCopies,
  javaCheckPasses,
  listTree,
  ourCopy,
  paimon,
  plant,
  readRows,
  writeSchema,
} from './procedures-support.js';
/** Every directory below `dir`, relative, sorted. */
function directories(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      out.push(r);
      walk(join(d, e.name), r);
    }
  };
  walk(dir, '');
  return out.sort();
}

for (const v of PAIMON_VERSIONS) {
  describe(`remove_orphan_files vs Paimon ${v} LocalOrphanFilesClean`, () => {
    let origin: string;
    let bucketDir: string;
    before(async () => {
      origin = await historyWarehouse(v, 'orphan');
      await paimon(v, 'create-branch', origin, 'interop', 't', 'b1', 'tag3');
      await paimon(v, 'rollback', origin, 'interop', 't', '12'); // later snapshots' files become orphans
      const t = join(origin, TABLE);
      const partition = readdirSync(t).find((n) => n.startsWith('dt='))!;
      bucketDir = `${partition}/bucket-0`;
      ageTree(origin);
      plant(origin, `${TABLE}/${bucketDir}/data-planted-0.parquet`);
      plant(origin, `${TABLE}/manifest/manifest-planted-0`);
      plant(origin, `${TABLE}/index/index-planted-0`);
      plant(origin, `${TABLE}/snapshot/.snapshot-99.f00.tmp`);
      plant(origin, `${TABLE}/${bucketDir}/data-young.parquet`, false);
      // Orphans alone in their directories: a bucket of an existing partition, a whole partition.
      plant(origin, `${TABLE}/${partition}/bucket-7/data-planted-1.parquet`);
      plant(origin, `${TABLE}/dt=2099-01-01/bucket-0/data-planted-2.parquet`);
    });

    test('deletes the same files as Paimon Java, and the table stays complete', async () => {
      const { a, b } = await javaAndOurCopies(origin, `orphan-${v}-diff`);
      const java = (await paimon(v, 'orphan-clean', a, 'interop', 't', String(Date.now() - 86_400_000), 'false')) as {
        deletedFileCount: number;
        deletedFileTotalLenInBytes: number;
        deletedFiles: string[];
      };
      const row = firstRow(await callNamed(executorFor(b, [removeOrphanFiles]), 'remove_orphan_files', { table: 'interop.t' }));
      assert.ok(java.deletedFileCount >= 5, `Java deleted ${java.deletedFileCount}`);
      assert.equal(Number(row.deletedFileCount), Number(java.deletedFileCount));
      assert.equal(Number(row.deletedFileTotalLenInBytes), Number(java.deletedFileTotalLenInBytes));
      const ours = (JSON.parse(String(row.deleted_paths)) as string[]).map((p) => basename(p)).sort();
      assert.deepEqual(ours, java.deletedFiles.map((p) => basename(p)).sort());
      assert.deepEqual(listTree(join(b, TABLE)), listTree(join(a, TABLE)), 'same files left on disk');
      assert.ok(listTree(join(b, TABLE)).some((f) => f.endsWith('data-young.parquet')), 'a young file is never deleted');
      const javaDirs = directories(join(a, TABLE));
      assert.ok(!javaDirs.includes('dt=2099-01-01') && !javaDirs.some((d) => d.endsWith('/bucket-7')), 'Java removed the directories it emptied');
      assert.deepEqual(directories(join(b, TABLE)), javaDirs, 'the same directories left as Java');
      assert.equal(await javaCheckPasses(v, b), true);
      assert.deepEqual(await readRows(v, b, 'interop', 't'), await readRows(v, a, 'interop', 't'));
      assert.ok((await readRows(v, b, 'interop', 't', 'branch:b1')).length > 0, 'the branch is still readable');
    });

    test('every table kind: same files as Java; Java and pypaimon read the same rows from both copies', async () => {
      const cutoff = String(Date.now() - 86_400_000);
      const planted = (t: string): string[] => [`interop.db/${t}/bucket-0/data-planted-k.parquet`, `interop.db/${t}/manifest/manifest-planted-k`];
      let leftovers = 0;
      const { b } = await differentialKinds(v, {
        name: 'orphan',
        prepare: async (wh, tables) => {
          for (const k of tables) {
            const row = firstRow(await callNamed(executorFor(wh, [rollbackTo]), 'rollback_to', { table: `interop.${k.name}`, snapshot_id: 6 }));
            assert.equal(row.changed, true, k.name);
          }
          ageTree(wh);
          for (const k of tables) {
            for (const rel of planted(k.name)) plant(wh, rel);
            plant(wh, `interop.db/${k.name}/bucket-0/data-young-k.parquet`, false);
          }
        },
        javaStep: (wh, t) => ['orphan-clean', wh, 'interop', t, cutoff, 'false'],
        ours: async (wh, t) => {
          const row = firstRow(await callNamed(executorFor(wh, [removeOrphanFiles]), 'remove_orphan_files', { table: `interop.${t}`, older_than: cutoff }));
          leftovers += Number(row.deletedFileCount) - planted(t).length;
        },
        alsoRead: ['tag:tag2'],
      });
      assert.ok(leftovers > 0, 'the rollback left files behind that were cleaned');
      const left = listTree(b);
      for (const t of ['k_append', 'k_dv', 'k_changelog']) {
        for (const rel of planted(t)) assert.ok(!left.includes(rel), `${rel} deleted`);
        assert.ok(left.includes(`interop.db/${t}/bucket-0/data-young-k.parquet`), 'a young file is never deleted');
      }
    });

    test('dry_run lists what Java would delete and deletes nothing', async () => {
      const { a, b } = await javaAndOurCopies(origin, `orphan-${v}-dry`);
      const before = listTree(join(b, TABLE));
      const java = (await paimon(v, 'orphan-clean', a, 'interop', 't', String(Date.now() - 86_400_000), 'true')) as { deletedFileCount: number };
      const row = firstRow(await callNamed(executorFor(b, [removeOrphanFiles]), 'remove_orphan_files', { table: 'interop.t', dry_run: true }));
      assert.equal(Number(row.deletedFileCount), Number(java.deletedFileCount));
      assert.equal(row.changed, false);
      assert.deepEqual(listTree(join(b, TABLE)), before);
    });

    test('an older_than younger than the safety floor is refused unless forced', async () => {
      const b = ourCopy(origin, `orphan-${v}-floor`);
      const before = listTree(join(b, TABLE));
      const ex = executorFor(b, [removeOrphanFiles]);
      const tenMinutesAgo = String(Date.now() - 600_000);
      const refused = await callNamed(ex, 'remove_orphan_files', { table: 'interop.t', older_than: tenMinutesAgo });
      assert.equal(!refused.ok && refused.error.code, 'UNSAFE_ARGUMENT');
      const future = await callNamed(ex, 'remove_orphan_files', { table: 'interop.t', older_than: String(Date.now() + 600_000) });
      assert.equal(!future.ok && future.error.code, 'INVALID_ARGUMENT');
      const badMode = await callNamed(ex, 'remove_orphan_files', { table: 'interop.t', mode: 'spark' });
      assert.equal(!badMode.ok && badMode.error.code, 'INVALID_ARGUMENT');
      assert.deepEqual(listTree(join(b, TABLE)), before);
      const forced = firstRow(await callNamed(ex, 'remove_orphan_files', { table: 'interop.t', older_than: tenMinutesAgo, force: true }));
      assert.ok(Number(forced.deletedFileCount) >= 5);
      assert.equal(await javaCheckPasses(v, b), true);
    });

    test("'db.*' cleans every table of the database", async () => {
      const b = ourCopy(origin, `orphan-${v}-db`);
      const schema = writeSchema(b, { fields: [{ name: 'id', type: 'INT' }], options: { bucket: '-1' } });
      await paimon(v, 'create-table', b, 'interop', 't2', schema);
      await paimon(v, 'write-loop', b, 'interop', 't2', '2', '0', '0');
      ageTree(join(b, 'interop.db/t2'));
      plant(b, 'interop.db/t2/bucket-0/data-planted-t2.parquet');
      const row = firstRow(await callNamed(executorFor(b, [removeOrphanFiles]), 'remove_orphan_files', { table: 'interop.*' }));
      assert.equal(row.tables, 2);
      const deleted = (JSON.parse(String(row.deleted_paths)) as string[]).map((p) => basename(p));
      assert.ok(deleted.includes('data-planted-t2.parquet') && deleted.includes('data-planted-0.parquet'));
      for (const tbl of ['t', 't2']) assert.equal(await javaCheckPasses(v, b, tbl), true, tbl);
    });
  });
}
