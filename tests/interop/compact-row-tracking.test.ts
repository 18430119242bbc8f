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
 * Row-tracking tables with deletion vectors (rows deleted by Java through the append deletion-file
 * maintainer) are compacted by Java and by ours with a target file size that leaves a large file
 * with a vector in place: the same files, DataFileMeta, deletion-vector index entries (byte
 * ranges, cardinalities) and vectors, the same rows with their _ROW_ID and _SEQUENCE_NUMBER
 * (deleted ones gone) in Java and pypaimon 2.1.0, and Java keeps writing, deleting and compacting.
 * A data-evolution table (commits of contiguous row ids per partition, one commit across both) is
 * compacted by Java 2.0.0's DataEvolutionCompactCoordinator/Task (RowTrackingTool de-compact, as
 * Spark's procedure runs them) and by ours: the same tasks, the same DataFileMeta (first row id of
 * the task, its sequence range), the same rows and row ids (the rows of a new file read the task's
 * maximum sequence number, as after Java's own); Java keeps going.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { java, parseJson, pypaimon21, sharedDirectory, type JsonObj } from './peers.js';
import { callNamed, executorFor, javaAndOurCopies, javaBatch, tempDir, type PaimonVersion } from './procedures-support.js';
import { compact } from '../../procedures/compaction/compact.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';
import { comparableMeta as comparable, sortedMetas as sorted } from './compact-support.js';

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
  /** The deletion-vector index entries of the snapshot. */
  indexFiles: JsonObj[];
}

async function files(v: PaimonVersion, wh: string, table = 'rt'): Promise<FilesView> {
  const out = (await tool(v, ['files', wh, DB, table])).split('\n').filter((l) => l.trim().startsWith('{'));
  return parseJson(out[out.length - 1]) as unknown as FilesView;
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

/** `write` steps of larger commits: commit k holds `rows` rows in each partition, values that compress badly. */
function bulkWrites(dir: string, table: string, wh: string, from: number, count: number, rows: number): string[][] {
  const steps: string[][] = [];
  for (let k = from; k < from + count; k++) {
    const f = join(dir, `${table}-bulk-${k}.jsonl`);
    const out = DAYS.flatMap((dt, d) => Array.from({ length: rows }, (_, r) => {
      const id = k * 10_000 + d * 1000 + r;
      return { id, dt, v: createHash('sha1').update(String(id)).digest('hex').slice(0, 24), n: r % 7 === 1 ? null : k * r };
    }));
    writeFileSync(f, out.map((r) => JSON.stringify(r)).join('\n') + '\n');
    steps.push(['write', wh, DB, table, f]);
  }
  return steps;
}

/** Deletes the rows with these ids as Spark's DELETE does on a deletion-vector table (DvTool delete). */
async function javaDelete(v: PaimonVersion, wh: string, table: string, ids: readonly number[]): Promise<void> {
  const r = await java(v === '1.4.2' ? '1.4' : '2.0').runMain('DvTool', ['delete', wh, DB, table, 'id', ids.join(',')], { timeoutMs: 300_000 });
  if (r.code !== 0) throw new Error(`DvTool delete failed: ${r.stderr.slice(-2000)}`);
}

/** Every deletion vector of the latest snapshot as Java reads it (data file, positions), without index file names. */
async function javaVectors(v: PaimonVersion, wh: string, table: string): Promise<{ dvs: JsonObj[]; stale: number }> {
  const r = await java(v === '1.4.2' ? '1.4' : '2.0').runMain('DvTool', ['read-dvs', wh, DB, table], { timeoutMs: 300_000 });
  if (r.code !== 0) throw new Error(`DvTool read-dvs failed: ${r.stderr.slice(-2000)}`);
  const j = parseJson(r.stdout.trim()) as JsonObj;
  const dvs = (j.dvs as JsonObj[]).map((d) => { const { indexFile: _i, ...rest } = d; void _i; return rest; });
  return { dvs: sorted(dvs), stale: (j.stale as JsonObj[]).length };
}

/** The index entries of a snapshot without what differs between two writers (the index file's name). */
function comparableIndex(e: JsonObj): JsonObj {
  const { fileName: _n, ...file } = e.indexFile as JsonObj;
  void _n;
  return { ...e, indexFile: file };
}

/**
 * Row-tracking append tables with deletion vectors (both Paimon versions allow the combination:
 * SchemaValidation only refuses it with data evolution in 1.4). Java writes six larger commits
 * and compacts them (a file per partition with physical _ROW_ID / _SEQUENCE_NUMBER), then small
 * commits (files with a first row id), then deletes in two commits through the append
 * deletion-file maintainer, so that per partition:
 *  - day 0: the large file has a vector deleting 10% of its rows (not a candidate: it stays, and
 *    its vector shares an index file with a small file's vector, so it is carried into a new index
 *    file), two small files have vectors (in two index files), five small files have none (a bin
 *    of their own);
 *  - day 1: the large file has a vector over the delete-ratio threshold (compacted with the rest),
 *    a small file has every row deleted, four small files have none (too few: they stay).
 * The compaction runs with target-file-size set between the small and the large files' sizes (as
 * Java wrote them) and a 1-byte open-file cost, for Java (AppendCompactCoordinator, AppendCompactTask
 * with its AppendDeleteFileMaintainer) and for ours. Paimon 2.0 also with bitmap64 (V2) vectors,
 * which pypaimon 2.1.0 does not read (not even on Java's copy): there it must fail alike on ours.
 */
const DV_CASES: ReadonlyArray<{ v: PaimonVersion; bitmap64: boolean }> = [{ v: '2.0.0', bitmap64: false }, { v: '2.0.0', bitmap64: true }, { v: '1.4.2', bitmap64: false }];

for (const { v, bitmap64 } of DV_CASES) {
  describe(`row-tracking append tables with deletion vectors${bitmap64 ? ' (bitmap64)' : ''} written by Paimon ${v}`, () => {
    let origin: string;
    let callOptions: Record<string, string>;
    const T = 'rtdv';
    const label = `compact-rtdv-${v}${bitmap64 ? '-b64' : ''}`;
    before(async () => {
      const dir = await sharedDirectory(label, async (staging) => {
        const wh = join(staging, 'wh');
        await javaBatch(v, [
          ['create-table', wh, DB, T, schemaFile(staging, T, { 'deletion-vectors.enabled': 'true', ...(bitmap64 ? { 'deletion-vectors.bitmap64': 'true' } : {}) })],
          ...bulkWrites(staging, T, wh, 1, 6, 100),
        ]);
        await javaCompact(v, wh, T);
        await javaBatch(v, [...writes(staging, T, wh, 7, 5), ...writes(staging, T, wh, 12, 2, [DAYS[0]])]);
        const r = (k: number, d: number): number[] => [0, 1, 2].map((x) => k * 100 + d * 10 + x);
        const big = (d: number, keep: (r: number) => boolean): number[] => [1, 2, 3, 4, 5, 6].flatMap((k) => Array.from({ length: 100 }, (_, x) => x).filter(keep).map((x) => k * 10_000 + d * 1000 + x));
        // d1: 10% of day 0's large file, a row of day 0's small file 8, all of day 1's small file 9.
        await javaDelete(v, wh, T, [...big(0, (x) => x % 10 === 0), r(8, 0)[0], ...r(9, 1)]);
        // d2: half of day 1's large file, a row of day 0's small file 10.
        await javaDelete(v, wh, T, [...big(1, (x) => x % 2 === 0), r(10, 0)[1]]);
      });
      origin = join(dir, 'wh');
      const start = await files(v, origin, T);
      const size = (f: JsonObj): number => Number(f.fileSize);
      const large = start.files.filter((f) => f.firstRowId === null).map(size);
      const small = start.files.filter((f) => f.firstRowId !== null).map(size);
      assert.equal(large.length, DAYS.length, 'a Java-compacted file per partition');
      assert.ok(Math.min(...large) > 2 * Math.max(...small), `large files ${large.join(',')} against small ${Math.max(...small)}`);
      // The compaction file size (70% of the target) falls between the small and the large files.
      const target = Math.floor((Math.min(...large) + Math.max(...small)) / 2 / 0.7);
      callOptions = { 'target-file-size': `${target} b`, 'source.split.open-file-cost': '1 b' };
    });

    test('compact rewrites and re-indexes as Java does: same files, DataFileMeta, index entries, vectors, rows; Java keeps going', async (t) => {
      const { a, b } = await javaAndOurCopies(origin, label);
      const kv = Object.entries(callOptions).map(([k, x]) => `${k}=${x}`);
      const start = await files(v, a, T);
      const vectorsBefore = await javaVectors(v, a, T);
      assert.equal(vectorsBefore.dvs.length, 5, 'five files with vectors');
      assert.deepEqual(vectorsBefore.dvs.map((d) => d.bitmap64), vectorsBefore.dvs.map(() => bitmap64), 'vectors of the kind the table asks for');
      assert.ok(start.indexFiles.length >= 4, `several index files per partition (${start.indexFiles.length})`);
      const rowsBefore = await trackedRows(v, a, T);
      assert.equal(rowsBefore.length, 2 * 600 + 2 * 5 * 3 + 2 * 3 - (60 + 1) - (3 + 300 + 1));

      await tool(v, ['compact', a, DB, T, ...kv]);
      const o = await callNamed(executorFor(b, [compact]), 'compact', { table: `${DB}.${T}`, options: kv.join(',') });
      assert.ok(o.ok, o.ok ? '' : `${o.error.code} ${o.error.message}`);
      assert.equal(latestId(b, T), latestId(a, T), 'one COMPACT snapshot each');
      const snapshot = JSON.parse(readFileSync(join(b, `${DB}.db/${T}/snapshot/snapshot-${latestId(b, T)}`), 'utf8')) as Record<string, unknown>;
      assert.equal(snapshot.commitKind, 'COMPACT');

      const [ja, ob] = [await files(v, a, T), await files(v, b, T)];
      assert.equal(String(ob.nextRowId), String(ja.nextRowId), 'nextRowId');
      assert.equal(String(ob.nextRowId), String(start.nextRowId), 'a compaction assigns no row ids');
      const kept = (x: FilesView): string[] => x.files.map((f) => String(f.fileName)).filter((n) => start.files.some((s) => s.fileName === n)).sort();
      assert.deepEqual(kept(ob), kept(ja), 'the same input files remain');
      assert.equal(kept(ob).length, 1 + 4, "day 0's large file and day 1's four small files without vectors");
      const added = (x: FilesView): JsonObj[] => sorted(x.files.filter((f) => !start.files.some((s) => s.fileName === f.fileName)).map(comparable));
      const [javaAdded, ourAdded] = [added(ja), added(ob)];
      assert.equal(javaAdded.length, 3, 'Java: the vector bin of each partition, the bin of small files of day 0');
      for (const f of ourAdded) {
        assert.equal(f.firstRowId, null);
        assert.deepEqual(f.writeCols, ['id', 'dt', 'v', 'n', '_ROW_ID', '_SEQUENCE_NUMBER']);
        assert.equal(f.fileSource, 'COMPACT');
      }
      const noSeq = (f: JsonObj): JsonObj => ({ ...f, minSequenceNumber: null, maxSequenceNumber: null });
      if (v === '2.0.0') assert.deepEqual(ourAdded, javaAdded, "the new files' DataFileMeta as Java 2.0.0 writes it");
      else assert.deepEqual(sorted(ourAdded.map(noSeq)), sorted(javaAdded.map(noSeq)), "the new files' DataFileMeta as Java 1.4.2 writes it, sequence numbers aside");
      for (const f of ourAdded) {
        const st = f.valueStats as { minValues: { values: unknown[] }; maxValues: { values: unknown[] } };
        assert.equal(String(f.minSequenceNumber), String(st.minValues.values[5]));
        assert.equal(String(f.maxSequenceNumber), String(st.maxValues.values[5]));
      }
      // Index entries: the same (names aside), byte ranges and cardinalities included.
      assert.deepEqual(sorted(ob.indexFiles.map(comparableIndex)), sorted(ja.indexFiles.map(comparableIndex)), 'the index entries Java leaves');
      assert.equal(ja.indexFiles.length, 1, "one index file left: day 0's large file's vector, carried over");
      const [va, vb] = [await javaVectors(v, a, T), await javaVectors(v, b, T)];
      assert.deepEqual(vb, va, 'the same vectors, read by Java');
      assert.equal(vb.stale, 0);
      assert.deepEqual(vb.dvs, vectorsBefore.dvs.filter((d) => kept(ob).includes(String(d.dataFile))), 'the vector of the file that stays, unchanged');

      const [rowsA, rowsB] = [await trackedRows(v, a, T), await trackedRows(v, b, T)];
      assert.deepEqual(rowsB, rowsBefore, 'Java reads the same rows, _ROW_ID and _SEQUENCE_NUMBER as before the compaction');
      assert.deepEqual(rowsB, rowsA, 'and as after its own');
      const pyRead = (wh: string): Promise<{ rows: unknown[] } | { error: string }> =>
        pypaimon21.read(wh, DB, T).then((rows) => ({ rows }), (e: unknown) => ({ error: e instanceof Error ? e.message : String(e) }));
      const [pyA, pyB] = [await pyRead(a), await pyRead(b)];
      if (bitmap64 && 'error' in pyA) {
        // pypaimon 2.1.0 reads no bitmap64 (V2) vectors, not even on Java's own copy: it must fail alike on ours.
        t.diagnostic(`pypaimon 2.1.0 does not read Java's compacted copy (bitmap64 vectors): ${pyA.error.slice(-120)}`);
        assert.ok('error' in pyB, 'pypaimon 2.1.0 fails on our copy as on Java\'s');
      } else {
        assert.ok('rows' in pyA && 'rows' in pyB, `pypaimon 2.1.0 reads both copies (${'error' in pyA ? pyA.error : ''} ${'error' in pyB ? pyB.error : ''})`);
        assert.equal(pyB.rows.length, rowsBefore.length, 'pypaimon 2.1.0 reads as many rows as Java');
        assert.deepEqual(pyB.rows, pyA.rows, "pypaimon 2.1.0 reads the same rows as after Java's compaction");
      }

      // Our files are not Java's byte for byte (their sizes differ), so a plan that depends on
      // where sizes fall against the compaction file size could differ on the two copies; with
      // the table's own target-file-size every file is a candidate and the plan depends on the
      // files and vectors only.
      const sizes = (x: FilesView): string => x.files.filter((f) => !start.files.some((s) => s.fileName === f.fileName)).map((f) => `${String(f.rowCount)} rows: ${String(f.fileSize)} b`).sort().join(', ');
      t.diagnostic(`new files, Java: ${sizes(ja)}; ours: ${sizes(ob)}; target-file-size ${callOptions['target-file-size']}`);
      // Java keeps writing, deleting and compacting on top of both.
      const stage = tempDir(`${label}-more-`);
      for (const wh of [a, b]) {
        await javaBatch(v, writes(stage, T, wh, 20, 5));
        await javaDelete(v, wh, T, [10_001, 20_002, 21_001, 2000, 2011, 700]);
        await tool(v, ['compact', wh, DB, T]);
      }
      const [moreA, moreB] = [await trackedRows(v, a, T), await trackedRows(v, b, T)];
      assert.equal(moreB.length, rowsBefore.length + 30 - 6);
      assert.deepEqual(moreB, moreA, 'after more Java writes, deletes and a Java compaction, both read alike');
      const [fa, fb] = [await files(v, a, T), await files(v, b, T)];
      assert.equal(String(fb.nextRowId), String(fa.nextRowId));
      const same = (f: JsonObj): JsonObj => (v === '2.0.0' ? comparable(f) : noSeq(comparable(f)));
      assert.deepEqual(sorted(fb.files.map(same)), sorted(fa.files.map(same)), 'the same DataFileMeta after Java goes on');
      // Our new files' names differ from Java's, so the vectors are compared by how many and what they delete.
      assert.equal(fb.indexFiles.length, fa.indexFiles.length, 'as many index files after Java goes on');
      const shape = (x: { dvs: JsonObj[] }): string[] => x.dvs.map((d) => `${String(d.cardinality)}:${JSON.stringify(d.positions)}`).sort();
      assert.deepEqual(shape(await javaVectors(v, b, T)), shape(await javaVectors(v, a, T)), 'vectors of the same positions after Java goes on');
    });
  });
}
