/**
 * compact of data-evolution tables whose files hold only some columns, over schema changes, and of
 * a table with a BLOB column, against Paimon Java 2.0.0's data-evolution compaction (which this
 * proxy follows; 1.4 compacts these tables another way) and pypaimon 2.1.0. The tables are written
 * by Paimon Java 2.0.0 and, in a second round, by 1.4.2, which then reads both compactions too.
 *
 * Paimon Java writes (DataEvolutionTool write, as DataEvolutionTableTest does:
 * `withWriteType(rowType.project(...))`, the commit's files given the first row id of the rows
 * they update):
 *  - `pc`: full-column commits, then partial-column commits over existing row ranges, an
 *    ALTER TABLE ADD COLUMN, more full and partial commits under the new schema (one of them
 *    writing a column a second time, so the newest file must win);
 *  - `bl`: a table with a BLOB column (kept in `.blob` files), full commits and a partial update
 *    of a normal column.
 * On two copies, Java's compaction (RowTrackingTool de-compact: DataEvolutionCompactCoordinator
 * without blob compaction, each DataEvolutionNormalCompactTask, as Spark's procedure runs them)
 * and ours:
 *  - the same input files remain (blob files among them), the new files' DataFileMeta is Java's
 *    (first row id, row count, writeCols, sequence range, value statistics as Java decodes them,
 *    file source), and nextRowId is unchanged;
 *  - Java reads the same rows with the same _ROW_ID as before, and the same _SEQUENCE_NUMBER as
 *    after its own compaction; pypaimon 2.1.0 reads the same rows;
 *  - Java keeps writing (partial columns too) and compacting both copies, and they read alike.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { java, parseJson, pypaimon21, sharedDirectory, type JsonObj } from './peers.js';
import { callNamed, executorFor, javaAndOurCopies, javaBatch, tempDir, type PaimonVersion } from './procedures-support.js';
import { compact } from '../../procedures/compaction/compact.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';
import { comparableMeta as comparable, sortedMetas as sorted } from './compact-support.js';

const DB = 'interop';
/** Who writes the tables; the compaction compared is always Java 2.0.0's (1.4 has another). */
const WRITERS: PaimonVersion[] = ['2.0.0', '1.4.2'];

after(async () => {
  await closeDataEngine();
});

const DE_OPTIONS = { bucket: '-1', 'write-only': 'true', 'row-tracking.enabled': 'true', 'data-evolution.enabled': 'true' };

function schemaFile(dir: string, name: string, fields: Array<{ name: string; type: string }>): string {
  const p = join(dir, `${name}.schema.json`);
  writeFileSync(p, JSON.stringify({ fields, primaryKeys: [], partitionKeys: [], options: DE_OPTIONS }));
  return p;
}

async function run(tool: string, args: string[], v: PaimonVersion = '2.0.0'): Promise<string> {
  const r = await java(v === '1.4.2' ? '1.4' : '2.0').runMain(tool, args, { timeoutMs: 300_000 });
  if (r.code !== 0) throw new Error(`${tool} ${args.join(' ')} failed: ${r.stderr.slice(-2000)}`);
  return r.stdout;
}

function lastJson(out: string): JsonObj {
  const lines = out.split('\n').filter((l) => l.trim().startsWith('{'));
  return parseJson(lines[lines.length - 1]) as JsonObj;
}

let stepNo = 0;
/** One Java commit of `rows` over `cols` ('*': all), the files given `firstRowId` when it is >= 0. */
async function write(dir: string, wh: string, table: string, cols: string, firstRowId: number, rows: JsonObj[], v: PaimonVersion = '2.0.0'): Promise<void> {
  const f = join(dir, `${table}-${++stepNo}.jsonl`);
  writeFileSync(f, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  await run('DataEvolutionTool', ['write', wh, DB, table, cols, String(firstRowId), f], v);
}

async function javaCompact(wh: string, table: string): Promise<{ tasks: number; commits: number }> {
  return lastJson(await run('RowTrackingTool', ['de-compact', wh, DB, table])) as unknown as { tasks: number; commits: number };
}

async function rows(wh: string, table: string, v: PaimonVersion = '2.0.0'): Promise<string[]> {
  return (await run('DataEvolutionTool', ['read', wh, DB, table], v)).split('\n').filter((l) => l.trim().startsWith('{'));
}

interface FilesView {
  nextRowId: number | bigint | null;
  files: JsonObj[];
}

async function files(wh: string, table: string): Promise<FilesView> {
  return lastJson(await run('DataEvolutionTool', ['files', wh, DB, table])) as unknown as FilesView;
}

function latestId(wh: string, table: string): number {
  return Number(readFileSync(join(wh, `${DB}.db`, table, 'snapshot/LATEST'), 'utf8'));
}

function noSeq(lines: string[]): string[] {
  return lines.map((l) => { const { _SEQUENCE_NUMBER: _s, ...r } = parseJson(l) as JsonObj; void _s; return JSON.stringify(r); }).sort();
}

/** Java's compaction on copy a, ours on copy b, then the comparisons of the module comment; returns the copies. */
async function compareCompactions(origin: string, table: string, writer: PaimonVersion, expect: { rows: number; writeCols: string[] | null }): Promise<{ a: string; b: string }> {
  const { a, b } = await javaAndOurCopies(origin, `compact-de-${table}-${writer}`);
  const start = await files(a, table);
  const rowsBefore = await rows(a, table);
  const pyBefore = await pypaimon21.read(a, DB, table);
  assert.equal(rowsBefore.length, expect.rows);

  const j = await javaCompact(a, table);
  assert.ok(j.tasks >= 1 && j.commits === 1, `Java planned ${j.tasks} tasks in ${j.commits} commits`);
  const o = await callNamed(executorFor(b, [compact]), 'compact', { table: `${DB}.${table}` });
  assert.ok(o.ok, o.ok ? '' : `${o.error.code} ${o.error.message}`);
  assert.equal(latestId(b, table), latestId(a, table), 'one COMPACT snapshot each');

  const [ja, ob] = [await files(a, table), await files(b, table)];
  assert.equal(String(ob.nextRowId), String(ja.nextRowId), 'nextRowId');
  assert.equal(String(ob.nextRowId), String(start.nextRowId), 'a compaction assigns no row ids');
  const kept = (x: FilesView): string[] => x.files.map((f) => String(f.fileName)).filter((n) => start.files.some((s) => s.fileName === n)).sort();
  assert.deepEqual(kept(ob), kept(ja), 'the same input files remain');
  assert.ok(kept(ob).length < start.files.length, 'some files were compacted');
  const added = (x: FilesView): JsonObj[] => sorted(x.files.filter((f) => !start.files.some((s) => s.fileName === f.fileName)).map(comparable));
  assert.equal(added(ob).length, j.tasks, 'one new file per task');
  for (const f of added(ob)) assert.deepEqual(f.writeCols, expect.writeCols, 'writeCols of the new file');
  assert.deepEqual(added(ob), added(ja), "the new files' DataFileMeta as Java 2.0.0 writes it");

  const [rowsA, rowsB] = [await rows(a, table), await rows(b, table)];
  assert.deepEqual(noSeq(rowsB), noSeq(rowsBefore), 'Java reads the same rows and _ROW_ID as before the compaction');
  assert.deepEqual(rowsB, rowsA, 'and the same rows, _ROW_ID and _SEQUENCE_NUMBER as after its own');
  assert.deepEqual(await pypaimon21.read(b, DB, table), pyBefore, 'pypaimon 2.1.0 reads the same rows');
  if (writer !== '2.0.0') assert.deepEqual(await rows(b, table, writer), await rows(a, table, writer), `Java ${writer}, which wrote the table, reads ours as Java 2.0.0's compaction`);
  return { a, b };
}

for (const writer of WRITERS) {
  describe(`data-evolution tables written by Paimon ${writer}, compacted by Java 2.0.0 and by this proxy`, () => {
    let origin: string;
    before(async () => {
      const dir = await sharedDirectory(`compact-de-partial-${writer}`, async (staging) => {
        const wh = join(staging, 'wh');
        await javaBatch(writer, [
          ['create-table', wh, DB, 'pc', schemaFile(staging, 'pc', [{ name: 'id', type: 'INT' }, { name: 'a', type: 'STRING' }, { name: 'b', type: 'BIGINT' }])],
          ['create-table', wh, DB, 'bl', schemaFile(staging, 'bl', [{ name: 'id', type: 'INT' }, { name: 'name', type: 'STRING' }, { name: 'pic', type: 'BLOB' }])],
        ]);
        // pc: row ids 0-2 and 3-5 in full, then partial columns over them.
        await write(staging, wh, 'pc', '*', -1, [1, 2, 3].map((i) => ({ id: i, a: `a${i}`, b: i * 10 })), writer);
        await write(staging, wh, 'pc', '*', -1, [4, 5, 6].map((i) => ({ id: i, a: `a${i}`, b: null })), writer);
        await write(staging, wh, 'pc', 'b', 0, [{ b: 100 }, { b: null }, { b: 300 }], writer);
        await write(staging, wh, 'pc', 'a', 3, [{ a: 'x4' }, { a: 'x5' }, { a: null }], writer);
        await run('DataEvolutionTool', ['add-column', wh, DB, 'pc', 'c', 'STRING'], writer);
        await write(staging, wh, 'pc', '*', -1, [7, 8, 9].map((i) => ({ id: i, a: `a${i}`, b: i, c: `c${i}` })), writer);
        await write(staging, wh, 'pc', 'c', 0, [{ c: 'c1' }, { c: 'c2' }, { c: null }], writer);
        await write(staging, wh, 'pc', 'a,c', 6, [{ a: 'y7', c: 'z7' }, { a: null, c: 'z8' }, { a: 'y9', c: null }], writer);
        // b of rows 0-2 a second time: the newest file gives it.
        await write(staging, wh, 'pc', 'b', 0, [{ b: 1000 }, { b: 2000 }, { b: null }], writer);
        // bl: five full commits (data file + blob file each), then name updated on rows 3-5.
        for (let k = 0; k < 5; k++) {
          await write(staging, wh, 'bl', '*', -1, [0, 1, 2].map((r) => ({ id: k * 10 + r, name: `n${k}-${r}`, pic: r === 1 ? null : `blob-${k}-${r}` })), writer);
        }
        await write(staging, wh, 'bl', 'name', 3, [{ name: 'm3' }, { name: null }, { name: 'm5' }], writer);
      });
      origin = join(dir, 'wh');
    });

    test('partial-column files over two schemas compact as DataEvolutionNormalCompactTask does; Java keeps going', async () => {
      const start = await files(origin, 'pc');
      assert.ok(start.files.some((f) => Array.isArray(f.writeCols)), 'files that hold only some columns');
      assert.ok(new Set(start.files.map((f) => String(f.schemaId))).size === 2, 'files of two schemas');
      const { a, b } = await compareCompactions(origin, 'pc', writer, { rows: 9, writeCols: null });
      // The merged values are the newest per field (as Java read them before, so checked above); one by hand:
      const first = (await rows(b, 'pc')).map((l) => parseJson(l) as JsonObj).find((r) => String(r._ROW_ID) === '0');
      assert.deepEqual({ id: first?.id, a: first?.a, b: first?.b, c: first?.c }, { id: 1, a: 'a1', b: 1000, c: 'c1' });

      const stage = tempDir(`compact-de-pc-more-${writer}-`);
      for (const wh of [a, b]) {
        // A partial write covers whole files: Paimon 2.0.0 neither reads nor compacts files that
        // overlap only part of another file's rows ("should be all row id ranges same").
        await write(stage, wh, 'pc', 'b,c', 0, Array.from({ length: 9 }, (_, r) => ({ b: r % 3 === 1 ? null : 40 + r, c: `w${r}` })));
        for (let k = 0; k < 4; k++) await write(stage, wh, 'pc', '*', -1, [{ id: 100 + k, a: `m${k}`, b: k, c: null }]);
        await javaCompact(wh, 'pc');
      }
      const [moreA, moreB] = [await rows(a, 'pc'), await rows(b, 'pc')];
      assert.equal(moreB.length, 13);
      assert.deepEqual(moreB, moreA, 'after more Java writes and a Java compaction, both read alike');
      const [fa, fb] = [await files(a, 'pc'), await files(b, 'pc')];
      assert.equal(String(fb.nextRowId), String(fa.nextRowId));
      assert.deepEqual(sorted(fb.files.map(comparable)), sorted(fa.files.map(comparable)), 'the same DataFileMeta after Java goes on');
    });

    test('a table with a BLOB column compacts its normal files only; the blob files stay, lined up; Java keeps going', async () => {
      const start = await files(origin, 'bl');
      const blobs = start.files.filter((f) => String(f.fileName).endsWith('.blob'));
      assert.ok(blobs.length >= 5, 'blob files');
      const { a, b } = await compareCompactions(origin, 'bl', writer, { rows: 15, writeCols: ['id', 'name'] });
      const after = await files(b, 'bl');
      const names = new Set(after.files.map((f) => String(f.fileName)));
      for (const f of blobs) assert.ok(names.has(String(f.fileName)), `blob file ${String(f.fileName)} stays live`);

      const stage = tempDir(`compact-de-bl-more-${writer}-`);
      for (const wh of [a, b]) {
        await write(stage, wh, 'bl', 'name', 0, Array.from({ length: 15 }, (_, r) => ({ name: r % 4 === 0 ? null : `q${r}` })));
        for (let k = 0; k < 4; k++) await write(stage, wh, 'bl', '*', -1, [{ id: 200 + k, name: `p${k}`, pic: `more-${k}` }]);
        await javaCompact(wh, 'bl');
      }
      const [moreA, moreB] = [await rows(a, 'bl'), await rows(b, 'bl')];
      assert.equal(moreB.length, 19);
      assert.deepEqual(moreB, moreA, 'after more Java writes and a Java compaction, both read alike');
      const [fa, fb] = [await files(a, 'bl'), await files(b, 'bl')];
      assert.deepEqual(sorted(fb.files.map(comparable)), sorted(fa.files.map(comparable)), 'the same DataFileMeta after Java goes on');
    });
  });
}
