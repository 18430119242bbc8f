/**
 * compact of append tables with deletion vectors against the real Paimon (Java 1.4.2 / 2.0.0,
 * pypaimon 2.0.0). Paimon Java creates partitioned append tables with `deletion-vectors.enabled`,
 * bucket -1 (unaware; V1 vectors from 1.4, bitmap64 V2 vectors from 2.0) and fixed bucket, writes
 * large files (two commits) and small files (five commits), then deletes rows the way Spark's
 * DELETE does (DvTool delete: the append deletion-file maintainer of the partition or bucket
 * merges and persists the new vectors), in three commits, so that:
 *  - a large file has a vector that deletes few rows (unaware: not a candidate, its vector shares
 *    an index file with a small file's vector, so it is carried into a new index file),
 *  - a large file has a vector over (or exactly at) `compaction.delete-ratio-threshold`,
 *  - small files have vectors, one has all its rows deleted, and small files have none.
 * Then our full compaction, against Paimon Java's own compaction of a copy:
 *  - Java 1.4, 2.0 and pypaimon read exactly the rows they read before; the snapshot is COMPACT;
 *  - the same original files kept, the same rows in the new files per partition/bucket (the
 *    number of new files can differ: our writer rolls by a size estimate, Java checks the real
 *    size every 1000 rows), the same vectors left (data file and positions), their bytes copied,
 *    as many index files per partition/bucket, no vector of a dead file;
 *  - Java keeps writing, deleting and compacting both tables and they read alike; our second
 *    compaction again leaves Java's vectors;
 *  - a minor compaction of a fixed-bucket table picks what Java's picks and leaves its vectors;
 *  - a concurrent Java delete between our plan and our commit, of rows in a file we compact
 *    (unaware: one with a vector, whose index file Java replaces, and one without, which gets a
 *    new index file; fixed bucket), makes our commit a COMMIT_CONFLICT: the table is Java's,
 *    our files are removed.
 * pypaimon 2.0.0 applies one index file per partition/bucket and reads no V2 vectors: where that
 * matters it is reported, not compared (assertPypaimon).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { java, tempWarehouse, copyWarehouse, canonicalJson, parseJson, type Json, type JsonObj, type PaimonJavaVersion, type TableSpec, pypaimons } from './peers.js';
import { executorFor, callNamed, firstRow, listTree } from './procedures-support.js';
import { compact } from '../../procedures/compaction/compact.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import { FileStorePathFactory } from '../../src/paimon/table/file-store-path-factory.js';
import { IndexManifestFile, DELETION_VECTORS_INDEX } from '../../src/paimon/table/index-manifest.js';
import { readDeletionVectorsIndexFile } from '../../src/paimon/table/deletion-vectors-index-file.js';
import { SnapshotManager } from '../../src/paimon/table/snapshot-manager.js';
import { compactTable } from '../../src/paimon/compact/compact-table.js';
import { isPaimonError } from '../../src/paimon/errors.js';
import { canonRows, javaDvs, levelHistogram, liveFiles, padOf, type JavaDv } from './compact-support.js';

after(async () => {
  await closeDataEngine();
});

type Row = Record<string, Json>;
const canon = canonRows;

/** Deletes the rows with these ids as Spark's DELETE does (DvTool delete); returns the vectors it wrote. */
async function javaDelete(v: PaimonJavaVersion, wh: string, ids: number[]): Promise<Array<{ dataFile: string; positions: number[] }>> {
  const r = await java(v).runMain('DvTool', ['delete', wh, 'db', 't', 'id', ids.join(',')], { timeoutMs: 300_000 });
  if (r.code !== 0) throw new Error(`DvTool delete failed: ${r.stderr}`);
  const j = parseJson(r.stdout.trim()) as JsonObj;
  return (j.deleted as JsonObj[]).map((d) => ({ dataFile: String(d.dataFile), positions: (d.positions as Json[]).map(Number) }));
}

const FIELDS: TableSpec['fields'] = [
  { name: 'dt', type: 'STRING NOT NULL' },
  { name: 'id', type: 'INT NOT NULL' },
  { name: 'name', type: 'STRING' },
  { name: 'amount', type: 'BIGINT' },
  { name: 'pad', type: 'STRING' },
];
const pad = (id: number): string => padOf(id, 3);
const dtOf = (id: number): string => (id % 2 === 0 ? '2024-01-01' : '2024-01-02');
const rowOf = (id: number, c: number): Row => ({ dt: dtOf(id), id, name: id % 7 === 0 ? null : `n${c}-${id}`, amount: c * 100000 + id, pad: pad(id) });

async function writeRows(v: PaimonJavaVersion, whs: string[], batches: Row[][]): Promise<void> {
  const dir = tempWarehouse('adv-rows');
  const steps: string[][] = [];
  batches.forEach((rows, k) => {
    const f = join(dir, `c${k}.jsonl`);
    writeFileSync(f, rows.map((r) => canonicalJson(r)).join('\n') + '\n');
    for (const wh of whs) steps.push(['write', wh, 'db', 't', f]);
  });
  const res = await java(v).batch(steps);
  const bad = res.find((r) => !r.ok);
  assert.equal(bad, undefined, `Java write failed: ${bad?.error ?? ''}`);
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, k) => from + k);
// Large files: ids 0..1999 (commit L1) and 2000..3999 (commit L2), 1000 rows per partition each.
// Small files: commit S<k> (k = 1..5) holds ids 10000 + 100k .. +19 (10 rows per partition).
const small = (k: number): number[] => range(10000 + 100 * k, 10000 + 100 * k + 20);

/** Java writes the large and small commits, then three delete commits. */
async function buildTable(v: PaimonJavaVersion, wh: string, options: Record<string, string>): Promise<void> {
  await java(v).createTable(wh, 'db', 't', { fields: FIELDS, primaryKeys: [], partitionKeys: ['dt'], options });
  await writeRows(v, [wh], [range(0, 2000).map((id) => rowOf(id, 0)), range(2000, 4000).map((id) => rowOf(id, 1)), ...[1, 2, 3, 4, 5].map((k) => small(k).map((id) => rowOf(id, 10 + k)))]);
  // d1: few rows of the first large files (a low delete ratio) with one row of S1.
  await javaDelete(v, wh, [10, 11, 13, 501, small(1)[0], small(1)[1]]);
  // d2: 30% of the second large files (over the 0.2 threshold) with one row of S3.
  await javaDelete(v, wh, [...range(2000, 4000).filter((id) => id % 10 < 3), small(3)[2], small(3)[3]]);
  // d3: one row of S2, every row of S4.
  await javaDelete(v, wh, [small(2)[4], small(2)[5], ...small(4)]);
}

/** Our reading of the snapshot's vectors: data file -> serialized bytes (hex), with the index file per partition. */
async function ourDvBlobs(wh: string): Promise<{ blobs: Map<string, string>; indexFiles: Map<string, string[]> }> {
  const io = new LocalFileIO();
  const tablePath = join(wh, 'db.db', 't');
  const latest = await new SnapshotManager(io, tablePath).latestSnapshot();
  const blobs = new Map<string, string>();
  const indexFiles = new Map<string, string[]>();
  if (!latest?.indexManifest) return { blobs, indexFiles };
  const pf = new FileStorePathFactory(tablePath);
  for (const e of await new IndexManifestFile(io, pf).read(latest.indexManifest)) {
    if (e.indexFile.indexType !== DELETION_VECTORS_INDEX) continue;
    const k = `${e.partition.key()}|${e.bucket}`;
    indexFiles.set(k, [...(indexFiles.get(k) ?? []), e.indexFile.fileName]);
    for (const [name, b] of await readDeletionVectorsIndexFile(io, pf.toIndexFilePath(e.indexFile.fileName), e.indexFile)) blobs.set(name, b.blob.toString('hex'));
  }
  return { blobs, indexFiles };
}

/**
 * pypaimon reads the expected rows, where it can: pypaimon 2.0.0 keeps one deletion-vector index
 * file per partition/bucket (FileScanner._scan_dv_index overwrites the earlier ones), so a
 * partition of an unaware table with several index files loses vectors in pypaimon even on a
 * table only Java wrote; and it reads no V2 (bitmap64) vectors. Those cases are reported, not asserted.
 */
async function assertPypaimon(wh: string, expected: string[], bitmap64: boolean, note: (m: string) => void): Promise<void> {
  const { blobs, indexFiles } = await ourDvBlobs(wh);
  if (bitmap64 && blobs.size > 0) return note('pypaimon not compared: it does not read bitmap64 (V2) vectors');
  const several = [...indexFiles.entries()].filter(([, l]) => l.length > 1);
  if (several.length > 0) return note(`pypaimon not compared: ${several.length} partition(s) have several index files, pypaimon 2.0.0 applies one per partition`);
  assert.deepEqual(canon(await pypaimons.read(wh, 'db', 't')), expected, 'pypaimon rows');
}

/** Rows in the files that were not there before, per partition/bucket. */
function newRows(files: ReturnType<typeof liveFiles>, before: ReadonlySet<string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of files) if (!before.has(f.fileName)) out[`${f.partition}/b${f.bucket}`] = (out[`${f.partition}/b${f.bucket}`] ?? 0) + f.rowCount;
  return out;
}

const strip = (l: JavaDv[]): Array<[string, number[]]> => l.map((d): [string, number[]] => [d.dataFile, d.positions]).sort(([a], [b]) => a.localeCompare(b));
const indexCounts = (m: Map<string, string[]>): number[] => [...m.values()].map((l) => l.length).sort();

interface Case {
  name: string;
  creator: PaimonJavaVersion;
  options: Record<string, string>;
  bitmap64: boolean;
  unaware: boolean;
}

const CASES: Case[] = [
  { name: 'bucket -1 (unaware), Paimon 1.4', creator: '1.4', unaware: true, bitmap64: false, options: { bucket: '-1', 'deletion-vectors.enabled': 'true', 'target-file-size': '20 kb' } },
  { name: 'fixed bucket (2), Paimon 1.4', creator: '1.4', unaware: false, bitmap64: false, options: { bucket: '2', 'bucket-key': 'id', 'deletion-vectors.enabled': 'true', 'target-file-size': '20 kb' } },
  {
    name: 'bucket -1 (unaware), bitmap64 vectors, Paimon 2.0', creator: '2.0', unaware: true, bitmap64: true,
    options: { bucket: '-1', 'deletion-vectors.enabled': 'true', 'deletion-vectors.bitmap64': 'true', 'target-file-size': '20 kb' },
  },
];

for (const cs of CASES) {
  describe(`compact: append table with deletion vectors, ${cs.name}`, () => {
    const peer = java(cs.creator);
    let wh: string;
    let copy: string;
    let rowsBefore: string[];
    let dvsBefore: JavaDv[];
    let latestBefore: number;
    let blobsBefore: Map<string, string>;
    let filesBefore: Set<string>;
    let rowCounts: Map<string, number>;

    before(async () => {
      wh = tempWarehouse('compact-append-dv');
      await buildTable(cs.creator, wh, cs.options);
      const d = await javaDvs(cs.creator, wh);
      dvsBefore = d.dvs;
      latestBefore = d.snapshotId;
      blobsBefore = (await ourDvBlobs(wh)).blobs;
      rowsBefore = canon(await peer.read(wh, 'db', 't'));
      const live = liveFiles((await peer.dump(wh, 'db', 't')) as unknown as JsonObj);
      filesBefore = new Set(live.map((f) => f.fileName));
      rowCounts = new Map(live.map((f) => [f.fileName, f.rowCount]));
      copy = copyWarehouse(wh, 'compact-append-dv-java');
      await peer.compact(copy, 'db', 't', 'full');
    });

    test('Paimon wrote the vectors the test needs', async () => {
      assert.equal(rowsBefore.length, 4000 + 100 - 4 - 600 - 4 - 2 - 20);
      assert.deepEqual(dvsBefore.map((d) => d.bitmap64), dvsBefore.map(() => cs.bitmap64));
      assert.ok(dvsBefore.some((d) => d.positions.length >= 200), 'a vector over the delete ratio');
      assert.ok(dvsBefore.some((d) => d.positions.length === rowCounts.get(d.dataFile)), 'a file with every row deleted');
      // (Fixed bucket: the Java writer compacted each bucket at its fifth file, so the small files' rows share vectors.)
      if (cs.unaware) assert.ok(dvsBefore.some((d) => d.positions.length === 1 && d.cardinality === 1), 'small vectors');
      if (cs.unaware) {
        const files = new Set(dvsBefore.map((d) => d.indexFile));
        assert.ok(files.size >= 3 * 2 - 1, `several index files per partition (${files.size})`);
      }
    });

    test("our full compaction: Java 1.4, 2.0 and pypaimon read the same rows; same files and vectors as Java's own compaction", async (t) => {
      const ex = executorFor(wh, [compact]);
      const row = firstRow(await callNamed(ex, 'compact', { table: 'db.t', compact_strategy: 'full' }));
      assert.equal(row.result, true);
      assert.equal(row.pinned_snapshot_id, latestBefore);
      assert.equal(row.snapshot_id, latestBefore + 1);
      assert.deepEqual(canon(await java('1.4').read(wh, 'db', 't')), rowsBefore, 'Paimon Java 1.4 rows');
      assert.deepEqual(canon(await java('2.0').read(wh, 'db', 't')), rowsBefore, 'Paimon Java 2.0 rows');
      await assertPypaimon(wh, rowsBefore, cs.bitmap64, (m) => t.diagnostic(m));
      assert.deepEqual(canon(await peer.read(copy, 'db', 't')), rowsBefore, "rows after Java's compaction");
      assert.equal((await peer.check(wh, 'db', 't')).ok, true);

      const dump = (await peer.dump(wh, 'db', 't')) as unknown as JsonObj;
      const snaps = dump.snapshots as JsonObj[];
      assert.equal(snaps[snaps.length - 1].commitKind, 'COMPACT');
      const ours = liveFiles(dump);
      const theirs = liveFiles((await peer.dump(copy, 'db', 't')) as unknown as JsonObj);
      // The new files hold the same rows per partition/bucket (how many files: our writer rolls by
      // an estimate of the file size, Java checks the real size every 1000 rows).
      assert.deepEqual(newRows(ours, filesBefore), newRows(theirs, filesBefore), 'rows of the new files per partition/bucket');
      t.diagnostic(`files per partition/bucket/level: ours ${JSON.stringify(levelHistogram(ours))}, Java's ${JSON.stringify(levelHistogram(theirs))}`);
      // The files both compactions kept are the same files; no file with a vector is left by one and compacted by the other.
      const ourNames = new Set(ours.map((f) => f.fileName));
      const theirNames = new Set(theirs.map((f) => f.fileName));
      const keptByBoth = [...ourNames].filter((n) => theirNames.has(n)).sort();
      assert.deepEqual(keptByBoth.filter((n) => filesBefore.has(n)), [...theirNames].filter((n) => filesBefore.has(n)).sort(), 'the same original files kept');
      assert.deepEqual([...ourNames].filter((n) => filesBefore.has(n)).sort(), [...theirNames].filter((n) => filesBefore.has(n)).sort(), 'the same original files kept');

      // Vectors left: the same data files and positions as after Java's compaction, none of a dead file.
      const after = await javaDvs(cs.creator, wh);
      const javaAfter = await javaDvs(cs.creator, copy);
      assert.deepEqual(after.stale, [], 'no vector of a dead file');
      assert.deepEqual(strip(after.dvs), strip(javaAfter.dvs), "vectors left as after Java's compaction");
      for (const d of after.dvs) assert.ok(keptByBoth.includes(d.dataFile), `vector of a file both kept (${d.dataFile})`);
      const kept = new Map(dvsBefore.map((d) => [d.dataFile, d.positions]));
      for (const d of after.dvs) assert.deepEqual(d.positions, kept.get(d.dataFile), `vector of ${d.dataFile} unchanged`);
      const ourIndex = await ourDvBlobs(wh);
      for (const [name, hex] of ourIndex.blobs) assert.equal(hex, blobsBefore.get(name), `${name}: vector bytes copied verbatim`);
      assert.deepEqual(indexCounts(ourIndex.indexFiles), indexCounts((await ourDvBlobs(copy)).indexFiles), 'index files per partition/bucket');
      if (cs.unaware) assert.ok(after.dvs.length > 0, 'the large file with a small vector is not compacted, its vector is kept');
    });

    test('a Java writer keeps writing, deleting and compacting; both tables read alike', async (t) => {
      await writeRows(cs.creator, [wh, copy], [range(20000, 20030).map((id) => rowOf(id, 30)), range(20100, 20130).map((id) => rowOf(id, 31))]);
      for (const w of [wh, copy]) await javaDelete(cs.creator, w, [12, 14, 2005, 20001, 20002, 20101, small(5)[0]]);
      const expected = canon(await peer.read(copy, 'db', 't'));
      assert.equal(expected.length, rowsBefore.length + 60 - 7);
      assert.deepEqual(canon(await peer.read(wh, 'db', 't')), expected);
      // Our compaction again, Java's on the copy.
      const row = firstRow(await callNamed(executorFor(wh, [compact]), 'compact', { table: 'db.t' }));
      assert.equal(row.result, true);
      await peer.compact(copy, 'db', 't', 'full');
      assert.deepEqual(canon(await java('1.4').read(wh, 'db', 't')), expected, 'Paimon Java 1.4 rows');
      assert.deepEqual(canon(await java('2.0').read(wh, 'db', 't')), expected, 'Paimon Java 2.0 rows');
      await assertPypaimon(wh, expected, cs.bitmap64, (m) => t.diagnostic(m));
      assert.deepEqual(strip((await javaDvs(cs.creator, wh)).dvs), strip((await javaDvs(cs.creator, copy)).dvs), "vectors left as after Java's compaction");
      // And Java compacts on top of ours.
      await javaDelete(cs.creator, wh, [16, 20003]);
      await peer.compact(wh, 'db', 't', 'full');
      const final = canon(await peer.read(wh, 'db', 't'));
      assert.equal(final.length, expected.length - 2);
      await assertPypaimon(wh, final, cs.bitmap64, (m) => t.diagnostic(m));
      assert.equal((await javaDvs(cs.creator, wh)).stale.length, 0);
      assert.equal((await peer.check(wh, 'db', 't')).ok, true);
    });
  });
}

describe('compact: minor compaction of a fixed-bucket append table with deletion vectors, against Java 1.4', () => {
  test("the same files picked (pickCompactBefore) and the same vectors left as Java's minor compaction; rows unchanged", async (t) => {
    const peer = java('1.4');
    const wh = tempWarehouse('compact-append-dv-minor');
    // write-only: the Java writer does not compact on its own (it would at the fifth file of a bucket).
    await buildTable('1.4', wh, { bucket: '2', 'bucket-key': 'id', 'deletion-vectors.enabled': 'true', 'target-file-size': '20 kb', 'write-only': 'true' });
    const rows = canon(await peer.read(wh, 'db', 't'));
    const dvsBefore = (await javaDvs('1.4', wh)).dvs;
    const filesBefore = new Set(liveFiles((await peer.dump(wh, 'db', 't')) as unknown as JsonObj).map((f) => f.fileName));
    const blobsBefore = (await ourDvBlobs(wh)).blobs;
    const copy = copyWarehouse(wh, 'compact-append-dv-minor-java');
    const row = firstRow(await callNamed(executorFor(wh, [compact]), 'compact', { table: 'db.t', compact_strategy: 'minor' }));
    assert.equal(row.result, true);
    assert.notEqual(row.snapshot_id, null);
    await peer.compact(copy, 'db', 't', 'minor');
    assert.deepEqual(canon(await java('1.4').read(wh, 'db', 't')), rows, 'Paimon Java 1.4 rows');
    assert.deepEqual(canon(await java('2.0').read(wh, 'db', 't')), rows, 'Paimon Java 2.0 rows');
    await assertPypaimon(wh, rows, false, (m) => t.diagnostic(m));
    const ours = liveFiles((await peer.dump(wh, 'db', 't')) as unknown as JsonObj);
    const theirs = liveFiles((await peer.dump(copy, 'db', 't')) as unknown as JsonObj);
    const kept = (l: typeof ours): string[] => l.map((f) => f.fileName).filter((n) => filesBefore.has(n)).sort();
    assert.ok(kept(ours).length > 0 && kept(ours).length < filesBefore.size, 'a minor compaction keeps some files');
    assert.deepEqual(kept(ours), kept(theirs), 'the same original files kept');
    assert.deepEqual(newRows(ours, filesBefore), newRows(theirs, filesBefore), 'rows of the new files per partition/bucket');
    const after = await javaDvs('1.4', wh);
    assert.deepEqual(after.stale, []);
    assert.deepEqual(strip(after.dvs), strip((await javaDvs('1.4', copy)).dvs), "vectors left as after Java's minor compaction");
    assert.ok(after.dvs.length > 0, 'vectors of files the minor compaction did not pick are left');
    const prev = new Map(dvsBefore.map((d) => [d.dataFile, d.positions]));
    for (const d of after.dvs) assert.deepEqual(d.positions, prev.get(d.dataFile));
    for (const [name, hex] of (await ourDvBlobs(wh)).blobs) assert.equal(hex, blobsBefore.get(name), `${name}: vector bytes copied verbatim`);
    assert.equal((await peer.check(wh, 'db', 't')).ok, true);
  });
});

describe('compact: a concurrent Java delete in an append deletion-vector table', () => {
  const conflictCases = [
    { name: 'unaware bucket, rows of a compacted file with a vector (its index file is replaced)', unaware: true, extra: false, ids: [small(2)[6], small(2)[7]], message: /index file .* was replaced by another writer/ },
    { name: 'unaware bucket, rows of a compacted file without a vector (a new index file)', unaware: true, extra: true, ids: [small(6)[6], small(6)[7]], message: /added deletion vectors to .*, a file this compaction rewrote/ },
    { name: 'fixed bucket, rows of a compacted file', unaware: false, extra: false, ids: [small(2)[6], small(2)[7]], message: /deletion vectors of bucket/ },
  ];
  // One Java-built table per bucket mode; each case compacts its own copy.
  const templates = new Map<boolean, Promise<string>>();
  const template = (unaware: boolean): Promise<string> => {
    let p = templates.get(unaware);
    if (!p) {
      p = (async () => {
        const wh = tempWarehouse('compact-append-dv-conflict-template');
        await buildTable('1.4', wh, { bucket: unaware ? '-1' : '2', ...(unaware ? {} : { 'bucket-key': 'id' }), 'deletion-vectors.enabled': 'true', 'target-file-size': '20 kb' });
        return wh;
      })();
      templates.set(unaware, p);
    }
    return p;
  };
  for (const cc of conflictCases) {
    test(`${cc.name}: our commit is a COMMIT_CONFLICT; the table is Java's; our files are removed`, async () => {
      const peer = java('1.4');
      const wh = copyWarehouse(await template(cc.unaware), 'compact-append-dv-conflict');
      // S6: a second small file without a vector in each partition, so S5 and S6 are compacted together.
      if (cc.extra) await writeRows('1.4', [wh], [small(6).map((id) => rowOf(id, 16))]);
      const tableDir = join(wh, 'db.db', 't');
      let treeAfterJava: string[] = [];
      let javaRows: string[] = [];
      let compacted: string[] = [];
      await assert.rejects(
        compactTable({
          fileIO: new LocalFileIO(), tablePath: tableDir, table: 'db.t', strategy: 'full', memoryBudgetBytes: 64 << 20, concurrency: 1,
          onPoint: async (p) => {
            if (p !== 'before-commit') return;
            const deleted = await javaDelete('1.4', wh, cc.ids);
            compacted = deleted.map((d) => d.dataFile);
            treeAfterJava = listTree(tableDir);
            javaRows = canon(await peer.read(wh, 'db', 't'));
          },
        }),
        (e: unknown) => isPaimonError(e, 'COMMIT_CONFLICT') && cc.message.test(e.message),
      );
      assert.ok(compacted.length > 0);
      assert.equal(javaRows.length, 4000 + 100 - 4 - 600 - 4 - 2 - 20 + (cc.extra ? 20 : 0) - 2);
      assert.deepEqual(canon(await peer.read(wh, 'db', 't')), javaRows);
      assert.equal((await peer.check(wh, 'db', 't')).ok, true);
      const now = listTree(tableDir);
      for (const f of now.filter((x) => x.includes('bucket-') || x.includes('index/'))) assert.ok(treeAfterJava.includes(f), `leftover ${f}`);
    });
  }
});
