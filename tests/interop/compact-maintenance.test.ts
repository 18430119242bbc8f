/**
 * The maintenance Paimon's commit runs after a compaction (TableCommitImpl.maintain), compared
 * with Paimon Java 1.4.2 and 2.0.0 compacting a copy of the same table through its own
 * TableCommitImpl: a primary-key table with `snapshot.num-retained.max = 3`,
 * `snapshot.num-retained.min = 1`, `snapshot.time-retained = 1 ms` and
 * `consumer.expiration-time = 1 ms`, written six times by Java (its writes expire down to three
 * snapshots as they commit) and given a consumer that pins the earliest snapshot. After the
 * compaction both sides have expired the stale consumer first and then the snapshots past the
 * retention: the same snapshot files, hints and consumers, Java's `check` passes on ours and Java
 * reads the same rows. With `options => 'write-only=true'` nothing runs after the commit, as Java
 * builds no maintenance for a write-only table.
 */
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compact } from '../../procedures/compaction/compact.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';
import { callNamed, executorFor, firstRow, javaAndOurCopies, javaAvailable, javaBatch, javaCheckPasses, listTree, readRows, tempDir, writeSchema, HISTORY_TABLE, PAIMON_VERSIONS } from './procedures-support.js';

after(async () => {
  await closeDataEngine();
});

/** What the post-commit maintenance decides: snapshot files, hints, consumers (data files get new names on each side). */
function metadataOf(wh: string): { files: string[]; hints: Record<string, string | null> } {
  const files = listTree(join(wh, HISTORY_TABLE)).filter((f) => /^snapshot\/snapshot-\d+$/.test(f) || f.startsWith('consumer/') || f.startsWith('tag/'));
  const hints: Record<string, string | null> = {};
  for (const h of ['EARLIEST', 'LATEST']) {
    const p = join(wh, HISTORY_TABLE, 'snapshot', h);
    hints[h] = existsSync(p) ? readFileSync(p, 'utf8') : null;
  }
  return { files, hints };
}

for (const V of PAIMON_VERSIONS) {
  describe(`compact runs Paimon's post-commit maintenance (Paimon Java ${V})`, () => {
    let origin = '';
    const build = async (): Promise<string> => {
      if (origin !== '') return origin;
      assert.ok(javaAvailable(V), `Paimon ${V} reference tool is not built (tests/setup/paimon-java.sh)`);
      const dir = tempDir(`compact-maintenance-${V}-`);
      const wh = join(dir, 'wh');
      const schema = writeSchema(dir, {
        fields: [
          { name: 'id', type: 'INT NOT NULL' },
          { name: 'v', type: 'STRING' },
        ],
        primaryKeys: ['id'],
        options: {
          bucket: '2',
          'snapshot.num-retained.min': '1',
          'snapshot.num-retained.max': '3',
          'snapshot.time-retained': '1 ms',
          'consumer.expiration-time': '1 ms',
        },
      });
      const writes = Array.from({ length: 6 }, () => ['write-loop', wh, 'interop', 't', '1', '0', '0']);
      await javaBatch(V, [['create-table', wh, 'interop', 't', schema], ...writes]);
      const earliest = Number(readFileSync(join(wh, HISTORY_TABLE, 'snapshot', 'EARLIEST'), 'utf8'));
      await javaBatch(V, [['create-consumer', wh, 'interop', 't', 'c1', String(earliest)]]);
      origin = wh;
      return wh;
    };

    test('snapshots past the retention and the stale consumer are expired as Java expires them', async () => {
      const { a, b } = await javaAndOurCopies(await build(), `compact-maintenance-${V}`);
      const before = metadataOf(b);
      assert.ok(before.files.includes('consumer/consumer-c1'), 'the consumer pins the earliest snapshot before the compaction');
      await new Promise((r) => setTimeout(r, 20)); // past the 1 ms retentions on both sides
      await javaBatch(V, [['compact', a, 'interop', 't']]);
      const o = await callNamed(executorFor(b, [compact]), 'compact', { table: 'interop.t' });
      assert.ok(o.ok, o.ok ? '' : `${o.error.code} ${o.error.message}`);
      const row = firstRow(o);
      assert.notEqual(row.snapshot_id, null, 'our compaction committed');
      const m = JSON.parse(String(row.maintenance)) as { expired_snapshots: number; expired_consumers: string[]; errors: string[] };
      assert.deepEqual(m.errors, []);
      assert.deepEqual(m.expired_consumers, ['c1']);
      assert.ok(m.expired_snapshots > 0, `expired ${m.expired_snapshots}`);
      const java = metadataOf(a);
      assert.ok(!java.files.includes('consumer/consumer-c1'), "Java's commit expired the consumer");
      assert.deepEqual(metadataOf(b), java, 'the same snapshot files, hints and consumers as Paimon Java');
      assert.equal(await javaCheckPasses(V, b), true, 'Paimon Java finds every referenced file');
      assert.deepEqual(await readRows(V, b, 'interop', 't'), await readRows(V, a, 'interop', 't'));
    });

    test("write-only (here the call's dynamic option) runs no maintenance", async () => {
      const { b } = await javaAndOurCopies(await build(), `compact-write-only-${V}`);
      const before = metadataOf(b);
      await new Promise((r) => setTimeout(r, 20));
      const o = await callNamed(executorFor(b, [compact]), 'compact', { table: 'interop.t', options: 'write-only=true' });
      assert.ok(o.ok, o.ok ? '' : `${o.error.code} ${o.error.message}`);
      const row = firstRow(o);
      assert.equal(JSON.parse(String(row.maintenance)).skipped, 'write-only');
      const after = metadataOf(b);
      const committed = `snapshot/snapshot-${String(row.snapshot_id)}`;
      assert.deepEqual(after.files, [...before.files, committed].sort(), 'only the new snapshot: nothing expired, the consumer kept');
    });
  });
}
