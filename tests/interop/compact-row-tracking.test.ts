/**
 * compact of row-tracking append tables (`row-tracking.enabled`, bucket -1) against the real
 * Paimon (Java 1.4.2 / 2.0.0, pypaimon 2.1.0). Paimon Java creates a partitioned table and writes
 * six commits of small files (three rows per partition each), compacts it the way Spark's
 * CompactProcedure does (RowTrackingTool compact: AppendCompactCoordinator, AppendCompactTask with
 * the row-tracking write type), so each partition holds a file whose _ROW_ID and
 * _SEQUENCE_NUMBER are physical columns (first row id null), then five more commits (files with a
 * first row id and no such columns). On two copies, Java's compaction and ours:
 *  - the same files remain; the new files have the DataFileMeta Java gives its own (first row id
 *    null, writeCols = the fields then _ROW_ID, _SEQUENCE_NUMBER, row counts, sequence range,
 *    value statistics over every column, file source COMPACT), as Java itself reads them;
 *  - the snapshot's nextRowId is Java's (a compaction assigns no row ids);
 *  - Java reads the same rows with the same _ROW_ID and _SEQUENCE_NUMBER, and pypaimon 2.1.0 the
 *    same rows;
 *  - Java keeps writing and compacting both copies, and they read alike afterwards.
 * Paimon 1.4.2's compaction counts the new file's sequence numbers on from the first input file's
 * minimum, where 2.0.0 (and this proxy) takes the range of the rows' _SEQUENCE_NUMBER: against
 * 1.4.2 that range is checked against the rows instead.
 * A data-evolution table (commits of contiguous row ids per partition, one commit across both) is
 * compacted by Java 2.0.0's DataEvolutionCompactCoordinator/Task (RowTrackingTool de-compact, as
 * Spark's procedure runs them) and by ours: the same tasks, the same DataFileMeta (first row id of
 * the task, its sequence range), the same rows and row ids (the rows of a new file read the task's
 * maximum sequence number, as after Java's own); Java keeps going.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { java, parseJson, pypaimon21, sharedDirectory, type JsonObj } from './peers.js';
import { callNamed, executorFor, javaAndOurCopies, javaBatch, tempDir, type PaimonVersion } from './procedures-support.js';
import { compact } from '../../procedures/compaction/compact.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';

const DB = 'interop';
const VERSIONS: PaimonVersion[] = ['2.0.0', '1.4.2'];
const DAYS = ['2026-01-01', '2026-01-02'];

after(async () => {
  await closeDataEngine();
});

function schemaFile(dir: string, name: string, options: Record<string, string>): string {
  const p = join(dir, `${name}.schema.json`);
  writeFileSync(p, JSON.stringify({
    fields: [
      { name: 'id', type: 'INT NOT NULL' },
      { name: 'dt', type: 'DATE NOT NULL' },
      { name: 'v', type: 'STRING' },
      { name: 'n', type: 'BIGINT' },
    ],
    primaryKeys: [],
    partitionKeys: ['dt'],
    options: { bucket: '-1', 'write-only': 'true', 'row-tracking.enabled': 'true', ...options },
  }));
  return p;
}

/** `write` steps: commit k holds three rows in each partition of `days`. */
function writes(dir: string, table: string, wh: string, from: number, count: number, days: readonly string[] = DAYS): string[][] {
  const steps: string[][] = [];
  for (let k = from; k < from + count; k++) {
    const f = join(dir, `${table}-${k}.jsonl`);
    const rows = days.flatMap((dt) => [0, 1, 2].map((r) => ({ id: k * 100 + DAYS.indexOf(dt) * 10 + r, dt, v: `v${k}-${DAYS.indexOf(dt)}-${r}`, n: r === 1 ? null : k * r })));
    writeFileSync(f, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    steps.push(['write', wh, DB, table, f]);
  }
  return steps;
}

async function tool(v: PaimonVersion, args: string[]): Promise<string> {
  const r = await java(v === '1.4.2' ? '1.4' : '2.0').runMain('RowTrackingTool', args, { timeoutMs: 300_000 });
  if (r.code !== 0) throw new Error(`RowTrackingTool ${args.join(' ')} failed: ${r.stderr.slice(-2000)}`);
  return r.stdout;
}

async function javaCompact(v: PaimonVersion, wh: string, table = 'rt'): Promise<void> {
  await tool(v, ['compact', wh, DB, table]);
}

/** Spark's data-evolution compaction, as Paimon 2.0.0 runs it (1.4 has another). */
async function javaDataEvolutionCompact(wh: string): Promise<{ tasks: number; commits: number }> {
  const out = (await tool('2.0.0', ['de-compact', wh, DB, 'de'])).split('\n').filter((l) => l.trim().startsWith('{'));
  return parseJson(out[out.length - 1]) as unknown as { tasks: number; commits: number };
}

/** Rows with their _ROW_ID and _SEQUENCE_NUMBER, as Paimon Java reads them (sorted JSON lines). */
async function trackedRows(v: PaimonVersion, wh: string, table = 'rt'): Promise<string[]> {
  return (await tool(v, ['read', wh, DB, table])).split('\n').filter((l) => l.trim().startsWith('{'));
}

interface FilesView {
  snapshotId: number;
  nextRowId: number | bigint | null;
  files: JsonObj[];
}

async function files(v: PaimonVersion, wh: string, table = 'rt'): Promise<FilesView> {
  const out = (await tool(v, ['files', wh, DB, table])).split('\n').filter((l) => l.trim().startsWith('{'));
  return parseJson(out[out.length - 1]) as unknown as FilesView;
}

/** DataFileMetas in an order that does not depend on file names. */
function sorted(fs: JsonObj[]): JsonObj[] {
  return [...fs].sort((x, y) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : JSON.stringify(x) > JSON.stringify(y) ? 1 : 0));
}

/** A DataFileMeta without what differs between two writers of the same rows (name, size, time). */
function comparable(f: JsonObj): JsonObj {
  const { fileName: _n, fileSize: _s, creationTime: _c, creationTimeEpochMillis: _e, ...rest } = f;
  void _n; void _s; void _c; void _e;
  return rest;
}

function latestId(wh: string, table = 'rt'): number {
  return Number(readFileSync(join(wh, `${DB}.db`, table, 'snapshot/LATEST'), 'utf8'));
}

for (const v of VERSIONS) {
  describe(`row-tracking append tables written by Paimon ${v}`, () => {
    let origin: string;
    before(async () => {
      const dir = await sharedDirectory(`compact-rt-${v}`, async (staging) => {
        const wh = join(staging, 'wh');
        await javaBatch(v, [
          ['create-table', wh, DB, 'rt', schemaFile(staging, 'rt', {})],
          ...writes(staging, 'rt', wh, 1, 6),
          // Data evolution: contiguous row ids in each partition (one partition a commit), a commit in both.
          ['create-table', wh, DB, 'de', schemaFile(staging, 'de', { 'data-evolution.enabled': 'true' })],
          ...writes(staging, 'de', wh, 1, 6, [DAYS[0]]),
          ...writes(staging, 'de', wh, 7, 1),
          ...writes(staging, 'de', wh, 8, 5, [DAYS[1]]),
        ]);
        await javaCompact(v, wh);
        await javaBatch(v, writes(staging, 'rt', wh, 7, 5));
      });
      origin = join(dir, 'wh');
    });

    test('compact rewrites as Java does: same files, DataFileMeta, nextRowId, _ROW_ID and _SEQUENCE_NUMBER; Java keeps going', async () => {
      const { a, b } = await javaAndOurCopies(origin, `compact-rt-${v}`);
      const start = await files(v, a);
      // The history gives both partitions a file with physical row-tracking columns and files without.
      assert.ok(start.files.some((f) => f.firstRowId === null && (f.writeCols as string[] | null)?.includes('_ROW_ID')), 'a Java-compacted input file');
      assert.ok(start.files.filter((f) => f.firstRowId !== null).length >= 10, 'input files with first row ids');
      const rowsBefore = await trackedRows(v, a);
      const pyBefore = await pypaimon21.read(a, DB, 'rt');
      assert.equal(rowsBefore.length, 66);

      await javaCompact(v, a);
      const o = await callNamed(executorFor(b, [compact]), 'compact', { table: `${DB}.rt` });
      assert.ok(o.ok, o.ok ? '' : `${o.error.code} ${o.error.message}`);
      assert.equal(latestId(b), latestId(a), 'one COMPACT snapshot each');
      const snapshot = JSON.parse(readFileSync(join(b, `${DB}.db/rt/snapshot/snapshot-${latestId(b)}`), 'utf8')) as Record<string, unknown>;
      assert.equal(snapshot.commitKind, 'COMPACT');

      const [ja, ob] = [await files(v, a), await files(v, b)];
      assert.equal(String(ob.nextRowId), String(ja.nextRowId), 'nextRowId');
      assert.equal(String(ob.nextRowId), String(start.nextRowId), 'a compaction assigns no row ids');
      const kept = (x: FilesView): string[] => x.files.map((f) => String(f.fileName)).filter((n) => start.files.some((s) => s.fileName === n)).sort();
      assert.deepEqual(kept(ob), kept(ja), 'the same input files remain');
      const added = (x: FilesView): JsonObj[] => sorted(x.files.filter((f) => !start.files.some((s) => s.fileName === f.fileName)).map(comparable));
      const [javaAdded, ourAdded] = [added(ja), added(ob)];
      assert.equal(ourAdded.length, DAYS.length, 'one new file per partition');
      for (const f of ourAdded) {
        assert.equal(f.firstRowId, null);
        assert.deepEqual(f.writeCols, ['id', 'dt', 'v', 'n', '_ROW_ID', '_SEQUENCE_NUMBER']);
        assert.equal(f.fileSource, 'COMPACT');
      }
      if (v === '2.0.0') {
        assert.deepEqual(ourAdded, javaAdded, "the new files' DataFileMeta as Java 2.0.0 writes it");
      } else {
        const noSeq = (f: JsonObj): JsonObj => ({ ...f, minSequenceNumber: null, maxSequenceNumber: null });
        assert.deepEqual(sorted(ourAdded.map(noSeq)), sorted(javaAdded.map(noSeq)), "the new files' DataFileMeta as Java 1.4.2 writes it, sequence numbers aside");
      }
      // The sequence range is that of the rows' _SEQUENCE_NUMBER (the value statistics of that column).
      for (const f of ourAdded) {
        const st = f.valueStats as { minValues: { values: unknown[] }; maxValues: { values: unknown[] } };
        assert.equal(String(f.minSequenceNumber), String(st.minValues.values[5]));
        assert.equal(String(f.maxSequenceNumber), String(st.maxValues.values[5]));
      }

      const [rowsA, rowsB] = [await trackedRows(v, a), await trackedRows(v, b)];
      assert.deepEqual(rowsB, rowsBefore, 'Java reads the same rows, _ROW_ID and _SEQUENCE_NUMBER as before the compaction');
      assert.deepEqual(rowsB, rowsA, 'and as after its own');
      const ids = rowsB.map((l) => String((parseJson(l) as JsonObj)._ROW_ID));
      assert.equal(new Set(ids).size, ids.length, 'row ids stay unique');
      assert.deepEqual(await pypaimon21.read(b, DB, 'rt'), pyBefore, 'pypaimon 2.1.0 reads the same rows');

      // Java keeps writing and compacting on top of both.
      const stage = tempDir(`compact-rt-more-${v}-`);
      for (const wh of [a, b]) {
        await javaBatch(v, writes(stage, 'rt', wh, 20, 5));
        await javaCompact(v, wh);
      }
      const [moreA, moreB] = [await trackedRows(v, a), await trackedRows(v, b)];
      assert.equal(moreB.length, 66 + 30);
      assert.deepEqual(moreB, moreA, 'after more Java writes and a Java compaction, both read alike');
      const [fa, fb] = [await files(v, a), await files(v, b)];
      assert.equal(String(fb.nextRowId), String(fa.nextRowId));
      const same = (f: JsonObj): JsonObj => (v === '2.0.0' ? comparable(f) : { ...comparable(f), minSequenceNumber: null, maxSequenceNumber: null });
      assert.deepEqual(sorted(fb.files.map(same)), sorted(fa.files.map(same)), 'the same DataFileMeta after Java goes on');
    });

    test('a data-evolution table compacts as DataEvolutionCompactCoordinator/Task do: same files, DataFileMeta, row ids; Java keeps going', async () => {
      const { a, b } = await javaAndOurCopies(origin, `compact-de-${v}`);
      const start = await files(v, a, 'de');
      const rowsBefore = await trackedRows(v, a, 'de');
      const pyBefore = await pypaimon21.read(a, DB, 'de');
      assert.equal(rowsBefore.length, 6 * 3 + 2 * 3 + 5 * 3);

      const j = await javaDataEvolutionCompact(a);
      assert.ok(j.tasks >= 2 && j.commits === 1, `Java planned ${j.tasks} tasks in ${j.commits} commits`);
      const o = await callNamed(executorFor(b, [compact]), 'compact', { table: `${DB}.de` });
      assert.ok(o.ok, o.ok ? '' : `${o.error.code} ${o.error.message}`);
      assert.equal(latestId(b, 'de'), latestId(a, 'de'), 'one COMPACT snapshot each');

      const [ja, ob] = [await files(v, a, 'de'), await files(v, b, 'de')];
      assert.equal(String(ob.nextRowId), String(ja.nextRowId), 'nextRowId');
      assert.equal(String(ob.nextRowId), String(start.nextRowId), 'a compaction assigns no row ids');
      const kept = (x: FilesView): string[] => x.files.map((f) => String(f.fileName)).filter((n) => start.files.some((s) => s.fileName === n)).sort();
      assert.deepEqual(kept(ob), kept(ja), 'the same input files remain');
      const added = (x: FilesView): JsonObj[] => sorted(x.files.filter((f) => !start.files.some((s) => s.fileName === f.fileName)).map(comparable));
      assert.equal(added(ob).length, j.tasks, 'one new file per task');
      assert.deepEqual(added(ob), added(ja), "the new files' DataFileMeta as Java 2.0.0 writes it");

      const [rowsA, rowsB] = [await trackedRows(v, a, 'de'), await trackedRows(v, b, 'de')];
      // The new file has no _SEQUENCE_NUMBER column: its rows read the task's maximum, in Java's compaction too.
      const noSeq = (rows: string[]): string[] => rows.map((l) => { const { _SEQUENCE_NUMBER: _s, ...r } = parseJson(l) as JsonObj; void _s; return JSON.stringify(r); }).sort();
      assert.deepEqual(noSeq(rowsB), noSeq(rowsBefore), 'Java reads the same rows and _ROW_ID as before the compaction');
      assert.deepEqual(rowsB, rowsA, 'and the same rows, _ROW_ID and _SEQUENCE_NUMBER as after its own');
      assert.deepEqual(await pypaimon21.read(b, DB, 'de'), pyBefore, 'pypaimon 2.1.0 reads the same rows');

      const stage = tempDir(`compact-de-more-${v}-`);
      for (const wh of [a, b]) {
        await javaBatch(v, writes(stage, 'de', wh, 30, 6, [DAYS[0]]));
        await javaDataEvolutionCompact(wh);
      }
      const [moreA, moreB] = [await trackedRows(v, a, 'de'), await trackedRows(v, b, 'de')];
      assert.equal(moreB.length, rowsBefore.length + 18);
      assert.deepEqual(moreB, moreA, 'after more Java writes and a Java compaction, both read alike');
      const [fa, fb] = [await files(v, a, 'de'), await files(v, b, 'de')];
      assert.equal(String(fb.nextRowId), String(fa.nextRowId));
      assert.deepEqual(sorted(fb.files.map(comparable)), sorted(fa.files.map(comparable)), 'the same DataFileMeta after Java goes on');
    });
  });
}
