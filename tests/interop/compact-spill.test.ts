/**
 * compact within a tiny memory budget against the real Paimon (Java 1.4.2 / 2.0.0, pypaimon).
 * Paimon Java writes primary-key tables (2 buckets, write-only, so every commit leaves one more
 * level-0 sorted run per bucket: 24 runs) with DECIMAL, TIMESTAMP and nested columns: one
 * deduplicate table with `sequence.field` (going backwards at times), updates and deletes (its
 * spill passes merge with deduplicate), one aggregation table (its spill passes write raw
 * records, the aggregation runs once at the end). Our full compaction with a 1 MiB budget can
 * open only two runs at once, so each bucket's runs go through many spill files first.
 * Then:
 *  - Java 1.4, 2.0 and pypaimon read exactly the rows Java read before, and the rows of Java's
 *    own full compaction of a copy; the files per partition/bucket/level are Java's;
 *  - the result says spill files were used, and the process's temporary directory holds no
 *    spill file and no DuckDB spill directory afterwards;
 *  - an abort while spill files exist fails the call, leaves no temporary file, no new data
 *    file, and the table unchanged.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { java, pypaimon, tempWarehouse, copyWarehouse, canonicalJson, type Json, type JsonObj, type TableSpec, pypaimons } from './peers.js';
import { closeDataEngine, dataTempDir } from '../../src/paimon/data/duckdb-engine.js';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import { SnapshotManager } from '../../src/paimon/table/snapshot-manager.js';
import { compactTable } from '../../src/paimon/compact/compact-table.js';
import { liveFiles, levelHistogram } from './compact-support.js';

after(async () => {
  await closeDataEngine();
});

type Row = Record<string, Json>;
const canon = (rows: JsonObj[]): string[] => rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))).sort();
const COMMITS = 24;

const FIELDS: TableSpec['fields'] = [
  { name: 'id', type: 'INT NOT NULL' },
  { name: 'name', type: 'STRING' },
  { name: 'seq', type: 'BIGINT' },
  { name: 'price', type: 'DECIMAL(20, 4)' },
  { name: 'ts', type: 'TIMESTAMP(6)' },
  { name: 'tags', type: { type: 'ARRAY', element: 'DECIMAL(5, 2)' } },
];

interface SpillCase {
  name: string;
  options: Record<string, string>;
  deletes: boolean;
}

const CASES: SpillCase[] = [
  // spill passes merge with deduplicate (the group's last record per key)
  { name: 'deduplicate, sequence.field, deletes', options: { 'sequence.field': 'seq' }, deletes: true },
  // spill passes write raw records; the aggregation runs once, in the final pass
  {
    name: 'aggregation (sum, max, last_non_null_value)',
    options: { 'merge-engine': 'aggregation', 'fields.seq.aggregate-function': 'sum', 'fields.price.aggregate-function': 'max', 'fields.ts.aggregate-function': 'min' },
    deletes: false,
  },
];


/** Commit c: upserts over an overlapping key window; `seq` sometimes goes backwards (older wins); some deletes. */
function commitRows(c: number, deletes: boolean): Row[] {
  const rows: Row[] = [];
  for (let k = 0; k < 60; k++) {
    const id = (c * 13 + k * 7) % 150;
    const r: Row = {
      id,
      name: k % 9 === 0 ? null : `n${c}-${k}-${'x'.repeat(k % 13)}`,
      seq: (c % 5 === 3 ? 1 : 10) * c * 100 + k,
      price: `${c * 1000 + k}.${String(k * 37 % 10000).padStart(4, '0')}`,
      ts: `2024-0${1 + (c % 9)}-1${k % 10}T0${k % 10}:1${c % 10}:00.${String(123456 + c * 1000 + k).slice(0, 6)}`,
      tags: k % 4 === 0 ? null : [`${k}.25`, `${c}.5`],
    };
    if (deletes && c >= 4 && k % 11 === 0) r._rowKind = '-D';
    rows.push(r);
  }
  return rows;
}

/** Names under the process's data temp dir that belong to compactions (spill files, DuckDB spill dirs). */
function compactionTemp(): string[] {
  return readdirSync(dataTempDir()).filter((n) => n.startsWith('compact-spill-') || n.startsWith('duckdb-spill-'));
}

function dataFiles(tablePath: string): string[] {
  const out: string[] = [];
  for (const b of readdirSync(tablePath).filter((d) => d.startsWith('bucket-'))) for (const f of readdirSync(join(tablePath, b))) out.push(`${b}/${f}`);
  return out.sort();
}

for (const cs of CASES) describe(`compact: primary-key table (${cs.name}) with 24 sorted runs per bucket, 1 MiB budget (spill passes)`, () => {
  let wh: string;
  let javaCopy: string;
  let abortCopy: string;
  let rowsBefore: string[];
  let javaCompacted: string[];

  before(async () => {
    wh = tempWarehouse('compact-spill');
    await java('1.4').createTable(wh, 'db', 't', { fields: FIELDS, primaryKeys: ['id'], partitionKeys: [], options: { bucket: '2', 'write-only': 'true', ...cs.options } });
    const dir = tempWarehouse('compact-spill-rows');
    const steps: string[][] = [];
    for (let c = 0; c < COMMITS; c++) {
      const f = join(dir, `c${c}.jsonl`);
      writeFileSync(f, commitRows(c, cs.deletes).map((r) => canonicalJson(r)).join('\n') + '\n');
      steps.push(['write', wh, 'db', 't', f]);
    }
    const res = await java('1.4').batch(steps);
    const bad = res.find((r) => !r.ok);
    assert.equal(bad, undefined, `Java write failed: ${bad?.error ?? ''}`);
    rowsBefore = canon(await java('1.4').read(wh, 'db', 't'));
    javaCopy = copyWarehouse(wh, 'compact-spill-java');
    abortCopy = copyWarehouse(wh, 'compact-spill-abort');
    await java('1.4').compact(javaCopy, 'db', 't', 'full');
    javaCompacted = canon(await java('1.4').read(javaCopy, 'db', 't'));
  });

  test('Java wrote one level-0 run per commit and bucket', async () => {
    const files = liveFiles((await java('1.4').dump(wh, 'db', 't')) as unknown as JsonObj);
    const h = levelHistogram(files);
    assert.deepEqual(h, { '[]/b0/L0': COMMITS, '[]/b1/L0': COMMITS });
    assert.ok(rowsBefore.length > 100);
    assert.deepEqual(javaCompacted, rowsBefore, "Java's own full compaction keeps the merged view");
  });

  test('our compaction with spill files: Java 1.4, 2.0 and pypaimon read the same rows; same layout as Java; no temporary file left', async () => {
    const tablePath = join(wh, 'db.db', 't');
    const r = await compactTable({ fileIO: new LocalFileIO(), tablePath, table: 'db.t', strategy: 'full', memoryBudgetBytes: 1 << 20, concurrency: 2 });
    assert.ok(r.committedSnapshotId !== null);
    assert.ok((r.spill?.files ?? 0) >= 2 * (COMMITS - 2), `spill files: ${r.spill?.files}`);
    assert.ok((r.spill?.records ?? 0n) > 0n);
    assert.equal(r.rowsRead, BigInt(COMMITS * 60));
    assert.deepEqual(compactionTemp(), []);
    assert.deepEqual(canon(await java('1.4').read(wh, 'db', 't')), rowsBefore, 'Paimon Java 1.4 rows');
    assert.deepEqual(canon(await java('2.0').read(wh, 'db', 't')), rowsBefore, 'Paimon Java 2.0 rows');
    assert.deepEqual(canon(await pypaimons.read(wh, 'db', 't')), rowsBefore, 'pypaimon rows');
    const ours = liveFiles((await java('1.4').dump(wh, 'db', 't')) as unknown as JsonObj);
    const theirs = liveFiles((await java('1.4').dump(javaCopy, 'db', 't')) as unknown as JsonObj);
    assert.deepEqual(levelHistogram(ours), levelHistogram(theirs));
    assert.deepEqual(
      ours.map((f) => f.rowCount).sort(),
      theirs.map((f) => f.rowCount).sort(),
      'same rows per file (retracts dropped as Java drops them)',
    );
    assert.equal((await java('1.4').check(wh, 'db', 't')).ok, true);
  });

  test('an abort while spill files exist: the call fails, no temporary file, no new data file, table unchanged', async () => {
    const tablePath = join(abortCopy, 'db.db', 't');
    const io = new LocalFileIO();
    const latestBefore = (await new SnapshotManager(io, tablePath).latestSnapshot())!.id;
    const filesBefore = dataFiles(tablePath);
    const ac = new AbortController();
    let sawSpill = false;
    const poll = setInterval(() => {
      for (const d of readdirSync(dataTempDir()).filter((n) => n.startsWith('compact-spill-'))) {
        if (readdirSync(join(dataTempDir(), d)).length > 0) {
          sawSpill = true;
          ac.abort(new Error('cancelled by the test'));
        }
      }
    }, 2);
    try {
      await assert.rejects(
        compactTable({ fileIO: io, tablePath, table: 'db.t', strategy: 'full', memoryBudgetBytes: 1 << 20, concurrency: 1, signal: ac.signal }),
        /cancelled by the test/,
      );
    } finally {
      clearInterval(poll);
    }
    assert.ok(sawSpill, 'the abort came while spill files existed');
    assert.deepEqual(compactionTemp(), []);
    assert.equal((await new SnapshotManager(io, tablePath).latestSnapshot())!.id, latestBefore);
    assert.deepEqual(dataFiles(tablePath), filesBefore);
    assert.deepEqual(canon(await java('1.4').read(abortCopy, 'db', 't')), rowsBefore);
  });
});
