/**
 * compact of deletion-vector primary-key tables against the real Paimon (Java 1.4.2 / 2.0.0,
 * pypaimon 2.0.0). Paimon Java creates partitioned, 2-bucket tables with
 * `deletion-vectors.enabled` (V1 vectors from 1.4, V2 `bitmap64` vectors from 2.0) and writes
 * many commits of inserts, updates and deletes with its writer's lookup compaction on, so
 * deletion-vector index files exist (checked). Then:
 *  - our decoder reads every vector exactly as Java reads it (same data files, same positions);
 *  - our full compaction: Java 1.4, 2.0 and pypaimon read the rows Java reads from a copy that
 *    Paimon Java compacted itself (level-0 rows become visible after a full compaction, in Paimon
 *    too), with the same number of files per partition/bucket/level and the same vectors left;
 *  - the index manifest of our COMPACT snapshot no longer lists the old vector index files of the
 *    compacted buckets, and the vectors that are left belong to live files;
 *  - Java's `check` passes; a Java writer keeps writing (with deletes) and compacting both tables
 *    and they read alike; our second full compaction (a single max-level run whose files have new
 *    vectors: each such file is rewritten on its own) again matches Java's;
 *  - a minor compaction is refused, naming compact_strategy => 'full';
 *  - a Java writer that adds vectors to the bucket while we compact makes our commit a
 *    COMMIT_CONFLICT (its deletes would be lost otherwise); the table stays Java's.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { java, tempWarehouse, copyWarehouse, canonicalJson, type Json, type JsonObj, type PaimonJavaVersion, type TableSpec, pypaimons } from './peers.js';
import { executorFor, callNamed, firstRow } from './procedures-support.js';
import { compact } from '../../procedures/compaction/compact.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import { FileStorePathFactory } from '../../src/paimon/table/file-store-path-factory.js';
import { IndexManifestFile, DELETION_VECTORS_INDEX } from '../../src/paimon/table/index-manifest.js';
import { readDeletionVectorsIndexFile } from '../../src/paimon/table/deletion-vectors-index-file.js';
import { SnapshotManager } from '../../src/paimon/table/snapshot-manager.js';
import { compactTable } from '../../src/paimon/compact/compact-table.js';
import { isPaimonError } from '../../src/paimon/errors.js';
import { listTree } from './procedures-support.js';
import { canonRows, javaDvs, largeDvDeletes, levelHistogram, liveFiles, padOf, LARGE_DV_SPEC, type JavaDv } from './compact-support.js';

after(async () => {
  await closeDataEngine();
});

type Row = Record<string, Json>;
const canon = canonRows;

const FIELDS: TableSpec['fields'] = [
  { name: 'dt', type: 'STRING NOT NULL' },
  { name: 'id', type: 'INT NOT NULL' },
  { name: 'name', type: 'STRING' },
  { name: 'amount', type: 'BIGINT' },
  { name: 'price', type: 'DOUBLE' },
];

/** Commit c: upserts over a sliding, overlapping key range, some deletes of earlier keys. */
function commitRows(c: number, salt: number): Row[] {
  const rows: Row[] = [];
  for (let k = 0; k < 40; k++) {
    const id = (c * 17 + k * 3 + salt) % 61;
    const dt = id % 3 === 0 ? '2024-01-02' : '2024-01-01';
    const r: Row = { dt, id, name: k % 5 === 0 ? null : `n${c}-${k}`, amount: c * 1000 + k, price: k / 8 };
    if (c >= 2 && k % 6 === 0) r._rowKind = '-D';
    rows.push(r);
  }
  return rows;
}

interface DvCase {
  name: string;
  creator: PaimonJavaVersion;
  options: Record<string, string>;
  commits: number;
  bitmap64: boolean;
}

const CASES: DvCase[] = [
  { name: 'v1 vectors, written by Paimon 1.4', creator: '1.4', options: { bucket: '2', 'deletion-vectors.enabled': 'true' }, commits: 9, bitmap64: false },
  {
    name: 'v2 (bitmap64) vectors, written by Paimon 2.0',
    creator: '2.0',
    options: { bucket: '2', 'deletion-vectors.enabled': 'true', 'deletion-vectors.bitmap64': 'true' },
    commits: 9,
    bitmap64: true,
  },
];

async function writeCommits(v: PaimonJavaVersion, whs: string[], from: number, to: number, salt: number): Promise<void> {
  const dir = tempWarehouse('dv-rows');
  const steps: string[][] = [];
  for (let c = from; c < to; c++) {
    const f = join(dir, `c${c}.jsonl`);
    writeFileSync(f, commitRows(c, salt).map((r) => canonicalJson(r)).join('\n') + '\n');
    for (const wh of whs) steps.push(['write', wh, 'db', 't', f]);
  }
  const res = await java(v).batch(steps);
  const bad = res.find((r) => !r.ok);
  assert.equal(bad, undefined, `Java write failed: ${bad?.error ?? ''}`);
}

/** The deletion-vector index entries of the latest snapshot: "partition|bucket" -> index file name. */
async function dvIndexEntries(wh: string): Promise<Map<string, string>> {
  const io = new LocalFileIO();
  const tablePath = join(wh, 'db.db', 't');
  const latest = await new SnapshotManager(io, tablePath).latestSnapshot();
  const out = new Map<string, string>();
  if (!latest?.indexManifest) return out;
  for (const e of await new IndexManifestFile(io, new FileStorePathFactory(tablePath)).read(latest.indexManifest)) {
    if (e.indexFile.indexType !== DELETION_VECTORS_INDEX) continue;
    const k = `${e.partition.key()}|${e.bucket}`;
    assert.ok(!out.has(k), `one index entry per bucket (${k})`);
    out.set(k, e.indexFile.fileName);
  }
  return out;
}

/** Buckets whose index entry is a new file compared with `before`. */
function replacedBuckets(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...after].filter(([k, f]) => before.get(k) !== f).map(([k]) => k).sort();
}

async function writeRows(v: PaimonJavaVersion, whs: string[], rows: Row[]): Promise<void> {
  const f = join(tempWarehouse('dv-rows'), 'rows.jsonl');
  writeFileSync(f, rows.map((r) => canonicalJson(r)).join('\n') + '\n');
  const res = await java(v).batch(whs.map((wh) => ['write', wh, 'db', 't', f]));
  const bad = res.find((r) => !r.ok);
  assert.equal(bad, undefined, `Java write failed: ${bad?.error ?? ''}`);
}

/** Our reading of the table's vectors: data file -> serialized bytes (hex), via the library. */
async function ourDvBlobs(wh: string): Promise<Map<string, string>> {
  const io = new LocalFileIO();
  const tablePath = join(wh, 'db.db', 't');
  const latest = await new SnapshotManager(io, tablePath).latestSnapshot();
  const out = new Map<string, string>();
  if (!latest?.indexManifest) return out;
  const pf = new FileStorePathFactory(tablePath);
  for (const e of await new IndexManifestFile(io, pf).read(latest.indexManifest)) {
    if (e.indexFile.indexType !== DELETION_VECTORS_INDEX) continue;
    for (const [name, b] of await readDeletionVectorsIndexFile(io, pf.toIndexFilePath(e.indexFile.fileName), e.indexFile)) out.set(name, b.blob.toString('hex'));
  }
  return out;
}

/** Our reading of the table's vectors: data file -> positions, via the library. */
async function ourDvs(wh: string): Promise<Map<string, number[]>> {
  const io = new LocalFileIO();
  const tablePath = join(wh, 'db.db', 't');
  const latest = await new SnapshotManager(io, tablePath).latestSnapshot();
  const out = new Map<string, number[]>();
  if (!latest?.indexManifest) return out;
  const pf = new FileStorePathFactory(tablePath);
  for (const e of await new IndexManifestFile(io, pf).read(latest.indexManifest)) {
    if (e.indexFile.indexType !== DELETION_VECTORS_INDEX) continue;
    for (const [name, b] of await readDeletionVectorsIndexFile(io, pf.toIndexFilePath(e.indexFile.fileName), e.indexFile)) out.set(name, [...b.dv.positions()]);
  }
  return out;
}

for (const cs of CASES) {
  describe(`compact: deletion-vector PK table, ${cs.name}`, () => {
    let wh: string;
    let copy: string;
    let beforeDvs: JavaDv[];
    let latestBefore: number;
    let javaCompactedRows: string[];
    const peer = java(cs.creator);

    before(async () => {
      wh = tempWarehouse('compact-dv');
      await peer.createTable(wh, 'db', 't', { fields: FIELDS, primaryKeys: ['dt', 'id'], partitionKeys: ['dt'], options: cs.options });
      await writeCommits(cs.creator, [wh], 0, cs.commits, 0);
      const d = await javaDvs(cs.creator, wh);
      beforeDvs = d.dvs;
      latestBefore = d.snapshotId;
      copy = copyWarehouse(wh, 'compact-dv-java');
      await peer.compact(copy, 'db', 't', 'full');
      javaCompactedRows = canon(await peer.read(copy, 'db', 't'));
    });

    test('Paimon wrote deletion vectors (several files, both partitions) and our decoder reads them as Java does', async () => {
      assert.ok(beforeDvs.length >= 2, `expected deletion vectors, got ${beforeDvs.length}`);
      assert.ok(new Set(beforeDvs.map((d) => d.bucket)).size === 2, 'vectors in both buckets');
      for (const d of beforeDvs) assert.equal(d.bitmap64, cs.bitmap64);
      const ours = await ourDvs(wh);
      assert.deepEqual(
        [...ours.entries()].sort(([a], [b]) => a.localeCompare(b)),
        beforeDvs.map((d) => [d.dataFile, d.positions] as const).sort(([a], [b]) => a.localeCompare(b)),
      );
      assert.ok(beforeDvs.some((d) => d.positions.length > 0));
    });

    test('a minor compaction is refused, naming the full strategy; the table is unchanged', async () => {
      const ex = executorFor(wh, [compact]);
      const out = await callNamed(ex, 'compact', { table: 'db.t', compact_strategy: 'minor' });
      assert.ok(!out.ok, 'refused');
      if (!out.ok) assert.match(out.error.message, /compact_strategy => 'full'/);
      assert.equal((await javaDvs(cs.creator, wh)).snapshotId, latestBefore);
    });

    test("our full compaction: Java 1.4, 2.0 and pypaimon read the rows of Java's own full compaction; same layout and vectors", async () => {
      const indexBefore = await dvIndexEntries(wh);
      const ex = executorFor(wh, [compact]);
      const row = firstRow(await callNamed(ex, 'compact', { table: 'db.t', compact_strategy: 'full' }));
      assert.equal(row.result, true);
      assert.equal(row.pinned_snapshot_id, latestBefore);
      assert.equal(row.snapshot_id, latestBefore + 1);
      assert.ok(javaCompactedRows.length > 20);
      assert.deepEqual(canon(await java('1.4').read(wh, 'db', 't')), javaCompactedRows, 'Paimon Java 1.4 rows');
      assert.deepEqual(canon(await java('2.0').read(wh, 'db', 't')), javaCompactedRows, 'Paimon Java 2.0 rows');
      assert.deepEqual(canon(await pypaimons.read(wh, 'db', 't')), javaCompactedRows, 'pypaimon rows');
      assert.equal((await peer.check(wh, 'db', 't')).ok, true);

      const dump = (await peer.dump(wh, 'db', 't')) as unknown as JsonObj;
      const snaps = dump.snapshots as JsonObj[];
      assert.equal(snaps[snaps.length - 1].commitKind, 'COMPACT');
      const ours = liveFiles(dump);
      const theirs = liveFiles((await peer.dump(copy, 'db', 't')) as unknown as JsonObj);
      assert.deepEqual(levelHistogram(ours), levelHistogram(theirs), 'files per partition/bucket/level');
      for (const f of ours) assert.equal(f.level, 5);

      // The old vector index files of the compacted buckets are gone from the index manifest;
      // vectors left belong to live files (files Java also kept).
      const after = await javaDvs(cs.creator, wh);
      assert.deepEqual(after.stale, [], 'no vector of a dead file');
      const oldIndexFiles = new Set(beforeDvs.map((d) => d.indexFile));
      for (const d of after.dvs) assert.ok(!oldIndexFiles.has(d.indexFile), `old index file ${d.indexFile} still listed`);
      const liveNames = new Set(ours.map((f) => f.fileName));
      for (const d of after.dvs) assert.ok(liveNames.has(d.dataFile), `vector of a live file (${d.dataFile})`);
      const javaAfter = await javaDvs(cs.creator, copy);
      assert.equal(after.dvs.length, javaAfter.dvs.length, 'as many vectors left as after Java compaction');
      // The same buckets got a new index file (replacing their entry) as in Java's compaction.
      const ourReplaced = replacedBuckets(indexBefore, await dvIndexEntries(wh));
      assert.ok(ourReplaced.length > 0, 'index entries replaced');
      assert.deepEqual(ourReplaced, replacedBuckets(indexBefore, await dvIndexEntries(copy)));
      const kept = new Map(beforeDvs.map((d) => [d.dataFile, d.positions]));
      for (const d of after.dvs) assert.deepEqual(d.positions, kept.get(d.dataFile), `vector of kept file ${d.dataFile} copied unchanged`);
    });

    test('a Java writer keeps writing and compacting; our next full compaction matches Java again', async () => {
      await writeCommits(cs.creator, [wh, copy], cs.commits, cs.commits + 3, 7);
      assert.deepEqual(canon(await peer.read(wh, 'db', 't')), canon(await peer.read(copy, 'db', 't')), 'after Java writes');
      const mid = await javaDvs(cs.creator, wh);
      assert.ok(mid.dvs.length > 0, 'the Java writer added vectors to our compacted files');
      const ex = executorFor(wh, [compact]);
      const row = firstRow(await callNamed(ex, 'compact', { table: 'db.t' }));
      assert.equal(row.result, true);
      assert.notEqual(row.snapshot_id, null);
      await peer.compact(copy, 'db', 't', 'full');
      const expected = canon(await java('2.0').read(copy, 'db', 't'));
      assert.deepEqual(canon(await java('2.0').read(wh, 'db', 't')), expected, 'Paimon Java 2.0 rows');
      assert.deepEqual(canon(await java('1.4').read(wh, 'db', 't')), expected, 'Paimon Java 1.4 rows');
      assert.deepEqual(canon(await pypaimons.read(wh, 'db', 't')), expected, 'pypaimon rows');
      assert.deepEqual(
        levelHistogram(liveFiles((await peer.dump(wh, 'db', 't')) as unknown as JsonObj)),
        levelHistogram(liveFiles((await peer.dump(copy, 'db', 't')) as unknown as JsonObj)),
        'files per partition/bucket/level',
      );
      assert.equal((await javaDvs(cs.creator, wh)).dvs.length, (await javaDvs(cs.creator, copy)).dvs.length);
      // And Java compacts on top of ours.
      await writeCommits(cs.creator, [wh, copy], cs.commits + 3, cs.commits + 5, 11);
      await peer.compact(wh, 'db', 't', 'full');
      await peer.compact(copy, 'db', 't', 'full');
      assert.deepEqual(canon(await peer.read(wh, 'db', 't')), canon(await peer.read(copy, 'db', 't')));
      assert.equal((await peer.check(wh, 'db', 't')).ok, true);
    });
  });
}

const LARGE_SPEC = LARGE_DV_SPEC;
const pad = (id: number): string => padOf(id, 2);
const largeDeletes = largeDvDeletes;

/**
 * 6000 rows fully compacted by Java into several max-level files; then deletes of 1500..1519
 * (a vector on a large file) and updates of 5900..5999 (a level-4 file and a vector on the last file).
 */
async function buildLargeTable(wh: string): Promise<void> {
  const peer = java('1.4');
  await peer.createTable(wh, 'db', 't', LARGE_SPEC);
  const rows: Row[] = [];
  for (let id = 0; id < 6000; id++) rows.push({ id, name: `n${id}`, amount: id * 3, pad: pad(id) });
  await writeRows('1.4', [wh], rows);
  await peer.compact(wh, 'db', 't', 'full');
  const next: Row[] = largeDeletes(1500);
  for (let id = 5900; id < 6000; id++) next.push({ id, name: `u${id}`, amount: -id, pad: pad(id + 1) });
  await writeRows('1.4', [wh], next);
}

describe('compact: vectors of large files a full compaction keeps (not rewritten) are carried over verbatim, as Paimon does', () => {
  const peer = java('1.4');
  let wh: string;
  let copy: string;
  let dvsBefore: JavaDv[];

  before(async () => {
    wh = tempWarehouse('compact-dv-large');
    await buildLargeTable(wh);
    dvsBefore = (await javaDvs('1.4', wh)).dvs;
    copy = copyWarehouse(wh, 'compact-dv-large-java');
  });

  test('our full compaction keeps the same vectors as Java (same data files, same positions, bytes copied)', async () => {
    const files = liveFiles((await peer.dump(wh, 'db', 't')) as unknown as JsonObj);
    assert.ok(files.filter((f) => f.level === 5).length >= 3, `several max-level files (${files.length})`);
    assert.ok(dvsBefore.some((d) => d.positions.length === 20), 'the 20 deletes are one vector');
    const blobsBefore = await ourDvBlobs(wh);
    const row = firstRow(await callNamed(executorFor(wh, [compact]), 'compact', { table: 'db.t' }));
    assert.notEqual(row.snapshot_id, null);
    await peer.compact(copy, 'db', 't', 'full');
    const expected = canon(await java('1.4').read(copy, 'db', 't'));
    assert.equal(expected.length, 5980);
    assert.deepEqual(canon(await java('1.4').read(wh, 'db', 't')), expected, 'Paimon Java 1.4 rows');
    assert.deepEqual(canon(await java('2.0').read(wh, 'db', 't')), expected, 'Paimon Java 2.0 rows');
    assert.deepEqual(canon(await pypaimons.read(wh, 'db', 't')), expected, 'pypaimon rows (it applies the vector of our new index file)');
    const ours = (await javaDvs('1.4', wh)).dvs;
    const theirs = (await javaDvs('1.4', copy)).dvs;
    const strip = (l: JavaDv[]): Array<[string, number[]]> => l.map((d): [string, number[]] => [d.dataFile, d.positions]).sort(([a], [b]) => a.localeCompare(b));
    assert.ok(ours.length > 0, 'a vector is left (its file was not rewritten)');
    assert.deepEqual(strip(ours), strip(theirs));
    // The kept vector's bytes are Java's, copied into our new index file.
    const blobsAfter = await ourDvBlobs(wh);
    assert.ok(blobsAfter.size > 0);
    for (const [name, hex] of blobsAfter) assert.equal(hex, blobsBefore.get(name), `${name}: bytes copied verbatim`);
    assert.equal((await peer.check(wh, 'db', 't')).ok, true);
  });

  test('our next full compaction (a single max-level run with a vector) rewrites that file alone; no vector left, as Java 2.0', async () => {
    const filesBefore = liveFiles((await peer.dump(wh, 'db', 't')) as unknown as JsonObj);
    for (const f of filesBefore) assert.equal(f.level, 5);
    const withDv = new Set((await javaDvs('1.4', wh)).dvs.map((d) => d.dataFile));
    const row = firstRow(await callNamed(executorFor(wh, [compact]), 'compact', { table: 'db.t' }));
    assert.notEqual(row.snapshot_id, null);
    // Paimon 2.0's full compaction (FileRewriteCompactTask) commits the bucket's new index file;
    // 1.4 left the rewritten file's vector in the index (apache/paimon#8783).
    await java('2.0').compact(copy, 'db', 't', 'full');
    const expected = canon(await java('1.4').read(copy, 'db', 't'));
    assert.deepEqual(canon(await java('2.0').read(wh, 'db', 't')), expected, 'Paimon Java 2.0 rows');
    assert.deepEqual(canon(await java('1.4').read(wh, 'db', 't')), expected, 'Paimon Java 1.4 rows');
    assert.deepEqual(canon(await pypaimons.read(wh, 'db', 't')), expected, 'pypaimon rows');
    const ours = await javaDvs('1.4', wh);
    const theirs = await javaDvs('2.0', copy);
    assert.deepEqual([ours.dvs, ours.stale], [[], []], 'no vector left, none of a dead file');
    assert.deepEqual([theirs.dvs, theirs.stale], [[], []], "Java 2.0's compaction: the same");
    const filesAfter = liveFiles((await peer.dump(wh, 'db', 't')) as unknown as JsonObj);
    for (const f of filesBefore) {
      assert.equal(filesAfter.some((a) => a.fileName === f.fileName), !withDv.has(f.fileName), `${f.fileName}: rewritten iff it had a vector`);
    }
  });
});

describe('compact: a concurrent Java writer adds deletion vectors to the bucket we are compacting', () => {
  test("our commit is a COMMIT_CONFLICT naming the vectors; the table is Java's; our files are removed", async () => {
    const peer = java('1.4');
    const wh = tempWarehouse('compact-dv-conflict');
    await buildLargeTable(wh);
    const tableDir = join(wh, 'db.db', 't');
    let treeAfterJava: string[] = [];
    let javaRows: string[] = [];
    await assert.rejects(
      compactTable({
        fileIO: new LocalFileIO(), tablePath: tableDir, table: 'db.t', strategy: 'full', memoryBudgetBytes: 64 << 20, concurrency: 1,
        onPoint: async (p) => {
          if (p !== 'before-commit') return;
          // Deletes only, in a large file's range: Java's lookup compaction turns them into a vector.
          await writeRows('1.4', [wh], largeDeletes(3000));
          treeAfterJava = listTree(tableDir);
          javaRows = canon(await peer.read(wh, 'db', 't'));
        },
      }),
      (e: unknown) => isPaimonError(e, 'COMMIT_CONFLICT') && /deletion vectors of bucket 0 changed/.test(e.message),
    );
    assert.equal(javaRows.length, 6000 - 40);
    assert.ok((await javaDvs('1.4', wh)).dvs.some((d) => d.positions.length === 20 && d.cardinality === 20), "the Java writer's deletes are a vector");
    assert.deepEqual(canon(await peer.read(wh, 'db', 't')), javaRows);
    assert.equal((await peer.check(wh, 'db', 't')).ok, true);
    const now = listTree(tableDir);
    for (const f of now.filter((x) => x.includes('bucket-') || x.includes('index/'))) assert.ok(treeAfterJava.includes(f), `leftover ${f}`);
  });
});
