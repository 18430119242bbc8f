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
 *
 * rollback_to_as_latest (Paimon 2.0.0 only) is compared the same way: Java's
 * `TableCommitImpl.rollbackToAsLatest` runs only the automatic tag creation after its commit, so on
 * a table that has just turned on process-time daily tags both sides create yesterday's tag and
 * expire nothing (no snapshot, consumer or lapsed tag), where a compaction would expire all three.
 */
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compact } from '../../procedures/compaction/compact.js';
import { rollbackToAsLatest } from '../../procedures/snapshots/rollback-to-as-latest.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';
import { callNamed, executorFor, firstRow, javaAndOurCopies, javaAvailable, javaBatch, javaCheckPasses, listTree, readRows, tempDir, writeSchema, HISTORY_TABLE, PAIMON_VERSIONS } from './procedures-support.js';

after(async () => {
  await closeDataEngine();
});

/** What the post-commit maintenance decides: snapshot files, hints, consumers (data files get new names on each side). */
function metadataOf(wh: string): { files: string[]; hints: Record<string, string | null> } {
  const files = listTree(join(wh, HISTORY_TABLE)).filter(
    (f) => /^(snapshot\/snapshot|changelog\/changelog)-\d+$/.test(f) || f.startsWith('consumer/') || f.startsWith('tag/'),
  );
  const hints: Record<string, string | null> = {};
  for (const dir of ['snapshot', 'changelog']) {
    for (const h of ['EARLIEST', 'LATEST']) {
      const p = join(wh, HISTORY_TABLE, dir, h);
      if (existsSync(p)) hints[`${dir}/${h}`] = readFileSync(p, 'utf8');
    }
  }
  return { files, hints };
}

/** The table of `build`, its options as written by Java: retention that any full maintenance acts on. */
const RETENTION_OPTIONS = {
  bucket: '2',
  'snapshot.num-retained.min': '1',
  'snapshot.num-retained.max': '3',
  'snapshot.time-retained': '1 ms',
  'consumer.expiration-time': '1 ms',
};

/** Java writes (six by default, expiring down to three snapshots as they commit), then consumer c1 on the earliest snapshot. */
async function buildHistory(V: (typeof PAIMON_VERSIONS)[number], label: string, extraOptions: Record<string, string> = {}, writes = 6): Promise<string> {
  assert.ok(javaAvailable(V), `Paimon ${V} reference tool is not built (tests/setup/paimon-java.sh)`);
  const dir = tempDir(`${label}-${V}-`);
  const wh = join(dir, 'wh');
  const schema = writeSchema(dir, {
    fields: [
      { name: 'id', type: 'INT NOT NULL' },
      { name: 'v', type: 'STRING' },
    ],
    primaryKeys: ['id'],
    options: { ...RETENTION_OPTIONS, ...extraOptions },
  });
  const steps = Array.from({ length: writes }, () => ['write-loop', wh, 'interop', 't', '1', '0', '0']);
  await javaBatch(V, [['create-table', wh, 'interop', 't', schema], ...steps]);
  const earliest = Number(readFileSync(join(wh, HISTORY_TABLE, 'snapshot', 'EARLIEST'), 'utf8'));
  await javaBatch(V, [['create-consumer', wh, 'interop', 't', 'c1', String(earliest)]]);
  return wh;
}

for (const V of PAIMON_VERSIONS) {
  describe(`compact runs Paimon's post-commit maintenance (Paimon Java ${V})`, () => {
    let origin = '';
    const build = async (): Promise<string> => {
      if (origin === '') origin = await buildHistory(V, 'compact-maintenance');
      return origin;
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

    test('a decoupled changelog lifecycle: long-lived changelogs past changelog.num-retained.max expire as Java expires them', async () => {
      // Snapshots keep 3, changelogs 5: each expired snapshot becomes a long-lived changelog, and
      // the commit's expiry then trims those to the changelog retention (ExpireChangelogImpl).
      const origin = await buildHistory(V, 'compact-changelogs', { 'changelog-producer': 'input', 'changelog.num-retained.min': '1', 'changelog.num-retained.max': '5', 'changelog.time-retained': '1 ms' }, 8);
      const { a, b } = await javaAndOurCopies(origin, `compact-changelogs-${V}`);
      const before = metadataOf(b);
      assert.ok(before.files.filter((f) => f.startsWith('changelog/')).length > 0, 'the history has long-lived changelogs');
      await new Promise((r) => setTimeout(r, 20));
      await javaBatch(V, [['compact', a, 'interop', 't']]);
      const o = await callNamed(executorFor(b, [compact]), 'compact', { table: 'interop.t' });
      assert.ok(o.ok, o.ok ? '' : `${o.error.code} ${o.error.message}`);
      const m = JSON.parse(String(firstRow(o).maintenance)) as { expired_changelogs: number; errors: string[] };
      assert.deepEqual(m.errors, []);
      assert.ok(m.expired_changelogs > 0, `expired ${m.expired_changelogs} changelog(s)`);
      assert.deepEqual(metadataOf(b), metadataOf(a), 'the same snapshots, long-lived changelogs and hints as Paimon Java');
      assert.equal(await javaCheckPasses(V, b), true, 'Paimon Java finds every referenced file');
      assert.deepEqual(await readRows(V, b, 'interop', 't'), await readRows(V, a, 'interop', 't'));
    });
  });
}

describe("rollback_to_as_latest runs only Paimon's automatic tag creation after its commit (Paimon Java 2.0.0)", () => {
  const V = '2.0.0';
  test('yesterday\'s tag is created; no snapshot, consumer or lapsed tag expires', async () => {
    const origin = await buildHistory(V, 'rollback-maintenance');
    const earliest = readFileSync(join(origin, HISTORY_TABLE, 'snapshot', 'EARLIEST'), 'utf8');
    const { a, b } = await javaAndOurCopies(origin, `rollback-maintenance-${V}`, async (wh) => {
      await javaBatch(V, [
        ['create-tag', wh, 'interop', 't', 'target', earliest],
        ['create-tag', wh, 'interop', 't', 'lapsed', earliest, '1'],
      ]);
      // The table turns on process-time daily tags after its history was written.
      const schemaDir = join(wh, HISTORY_TABLE, 'schema');
      const schema = JSON.parse(readFileSync(join(schemaDir, 'schema-0'), 'utf8'));
      schema.id = 1;
      Object.assign(schema.options, { 'tag.automatic-creation': 'process-time', 'tag.creation-period': 'daily' });
      writeFileSync(join(schemaDir, 'schema-1'), JSON.stringify(schema, null, 2));
    });
    const before = metadataOf(b);
    await new Promise((r) => setTimeout(r, 20)); // past the 1 ms retentions on both sides
    await javaBatch(V, [['rollback-as-latest', a, 'interop', 't', 'target']]);
    const o = await callNamed(executorFor(b, [rollbackToAsLatest]), 'rollback_to_as_latest', { table: 'interop.t', tag: 'target' });
    assert.ok(o.ok, o.ok ? '' : `${o.error.code} ${o.error.message}`);
    const m = JSON.parse(String(firstRow(o).maintenance)) as { created_tags: string[]; expired_tags: string[]; expired_snapshots: number; errors: string[]; expire: boolean };
    assert.deepEqual(m.errors, []);
    assert.equal(m.expire, false);
    const java = metadataOf(a);
    const javaNewTags = java.files.filter((f) => f.startsWith('tag/') && !before.files.includes(f));
    assert.equal(javaNewTags.length, 1, `Java's commit created one automatic tag: ${javaNewTags.join(', ')}`);
    assert.deepEqual(m.created_tags.map((n) => `tag/tag-${n}`), javaNewTags);
    assert.ok(java.files.includes('consumer/consumer-c1') && java.files.includes('tag/tag-lapsed'), 'Java expired neither the consumer nor the lapsed tag');
    assert.deepEqual(metadataOf(b), java, 'the same snapshot files, hints, tags and consumers as Paimon Java');
    assert.equal(await javaCheckPasses(V, b), true, 'Paimon Java finds every referenced file');
    assert.deepEqual(await readRows(V, b, 'interop', 't'), await readRows(V, a, 'interop', 't'));
  });
});
