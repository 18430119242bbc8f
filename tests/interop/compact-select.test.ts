/**
 * compact's selectors on a primary-key table written by Paimon Java 1.4.2 (3 partitions x 3
 * buckets, level-0 files from several write-only commits): `partitions`, `where`, `buckets` and
 * `partition_idle_time`. After our compact with each selector (each on its own copy of the table):
 *  - exactly the selected (partition, bucket)s are rewritten: their live files in the new snapshot
 *    (read by Paimon Java's dump) are all new files at the top level, and every other bucket keeps
 *    exactly the files and levels it had;
 *  - Paimon Java reads the same rows as before.
 * partition_idle_time follows Paimon's definition (Spark CompactProcedure.getHistoryPartition): a
 * partition is compacted when the creation time of its newest live file (over all its buckets,
 * PartitionEntry.lastFileCreationTime, the file's local creation time in the JVM's zone) is at
 * least the idle time ago; the expected partitions are computed from Java's dump
 * (creationTimeEpochMillis) around a gap of several seconds between two writes.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { java, tempWarehouse, copyWarehouse, canonicalJson, parseJson, parseJsonLines, type Json, type JsonObj, type TableSpec, pypaimons } from './peers.js';
import { executorFor, callNamed, firstRow } from './procedures-support.js';
import { compact } from '../../procedures/compaction/compact.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';

after(async () => {
  await closeDataEngine();
});

const peer = java('1.4');
const DTS = ['2024-01-01', '2024-01-02', '2024-01-03'];
const SPEC: TableSpec = {
  fields: [
    { name: 'dt', type: 'STRING NOT NULL' },
    { name: 'id', type: 'INT NOT NULL' },
    { name: 'v', type: 'STRING' },
    { name: 'n', type: 'BIGINT' },
  ],
  primaryKeys: ['dt', 'id'],
  partitionKeys: ['dt'],
  options: { bucket: '3', 'write-only': 'true' },
};

const canon = (rows: JsonObj[]): string[] => rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))).sort();

interface LiveFile {
  fileName: string;
  dt: string;
  bucket: number;
  level: number;
  creationMillis: number;
}

/**
 * Paimon Java's view of the table in one JVM: the live data files of the latest snapshot (from
 * its dump) and the rows it reads.
 */
async function inspect(wh: string): Promise<{ files: LiveFile[]; latest: JsonObj; rows: string[] }> {
  const [d, r] = await peer.batch([
    ['dump', wh, 'db', 't'],
    ['read', wh, 'db', 't'],
  ]);
  assert.ok(d.ok && r?.ok, `Java dump/read failed: ${String(d.error ?? r?.error)}`);
  return { ...liveFiles(parseJson(d.stdout.trim()) as JsonObj), rows: canon(parseJsonLines(r.stdout) as JsonObj[]) };
}

function liveFiles(dump: JsonObj): { files: LiveFile[]; latest: JsonObj } {
  const snapshots = dump.snapshots as JsonObj[];
  const latest = snapshots[snapshots.length - 1];
  const lists = dump.manifestLists as Record<string, { manifests: Array<{ fileName: string }> }>;
  const manifests = dump.manifests as Record<string, JsonObj[]>;
  const live = new Map<string, LiveFile>();
  for (const l of [latest.baseManifestList, latest.deltaManifestList]) {
    for (const m of lists[String(l)]?.manifests ?? []) {
      for (const e of manifests[m.fileName] ?? []) {
        const f = e.file as JsonObj;
        const dt = String(((e.partition as JsonObj).values as Json[])[0]);
        const key = `${dt}/${String(e.bucket)}/${String(f.fileName)}`;
        if (e.kind === 'ADD') {
          live.set(key, { fileName: String(f.fileName), dt, bucket: Number(e.bucket), level: Number(f.level), creationMillis: Number(f.creationTimeEpochMillis) });
        } else live.delete(key);
      }
    }
  }
  return { files: [...live.values()], latest };
}

const bucketKey = (f: { dt: string; bucket: number }): string => `${f.dt}/b${f.bucket}`;

function byBucket(files: LiveFile[]): Map<string, LiveFile[]> {
  const m = new Map<string, LiveFile[]>();
  for (const f of files) {
    const k = bucketKey(f);
    m.set(k, [...(m.get(k) ?? []), f]);
  }
  return m;
}

/**
 * Selected buckets: every file is new and at the max level (5), with one row per key; other
 * buckets: the same files at the same levels as before.
 */
function assertOnlySelectedRewritten(beforeFiles: LiveFile[], afterFiles: LiveFile[], selected: (dt: string, bucket: number) => boolean): { rewritten: string[] } {
  const b = byBucket(beforeFiles);
  const a = byBucket(afterFiles);
  const rewritten: string[] = [];
  for (const [k, files] of b) {
    const [dt, bs] = k.split('/b');
    const after = a.get(k) ?? [];
    if (selected(dt, Number(bs))) {
      assert.ok(after.length > 0, `${k}: no files after compaction`);
      const old = new Set(files.map((f) => f.fileName));
      for (const f of after) {
        assert.equal(f.level, 5, `${k}: ${f.fileName} at the top level`);
        assert.ok(!old.has(f.fileName), `${k}: ${f.fileName} was rewritten`);
      }
      rewritten.push(k);
    } else {
      const fmt = (fs: LiveFile[]): string[] => fs.map((f) => `${f.fileName}@L${f.level}`).sort();
      assert.deepEqual(fmt(after), fmt(files), `${k} is not selected: its files stay as they were`);
    }
  }
  for (const k of a.keys()) assert.ok(b.has(k), `${k}: a bucket that had no files before`);
  return { rewritten: rewritten.sort() };
}

/** Writes commits (lists of rows) with Paimon Java in one JVM. */
async function writeCommits(wh: string, commits: JsonObj[][]): Promise<void> {
  const dir = tempWarehouse('compact-select-rows');
  const steps = commits.map((rows, i) => {
    const f = join(dir, `c${i}.jsonl`);
    writeFileSync(f, rows.map((r) => canonicalJson(r)).join('\n') + '\n');
    return ['write', wh, 'db', 't', f];
  });
  const results = await peer.batch(steps);
  for (const r of results) assert.equal(r.ok, true, r.error);
}

function commitRows(c: number, dts: readonly string[]): JsonObj[] {
  const rows: JsonObj[] = [];
  for (const dt of dts) for (let k = 0; k < 9; k++) rows.push({ dt, id: (c * 4 + k) % 15, v: `v${c}-${k}`, n: c * 100 + k });
  return rows;
}

describe('compact selectors on a Paimon Java table: only the selected partitions/buckets are rewritten', () => {
  let base: string;
  let beforeFiles: LiveFile[];
  let beforeRows: string[];
  let latestBefore: number;

  before(async () => {
    base = tempWarehouse('compact-select');
    await peer.createTable(base, 'db', 't', SPEC);
    await writeCommits(base, [0, 1, 2, 3].map((c) => commitRows(c, DTS)));
    const l = await inspect(base);
    beforeFiles = l.files;
    latestBefore = Number(l.latest.id);
    beforeRows = l.rows;
    assert.ok(beforeRows.length > 0);
    // every partition has files in several buckets, each with more than one level-0 file
    for (const dt of DTS) assert.ok(new Set(beforeFiles.filter((f) => f.dt === dt).map((f) => f.bucket)).size >= 2, `${dt} spans buckets`);
    assert.ok(beforeFiles.every((f) => f.level === 0));
  });

  async function run(label: string, args: Record<string, string>, selected: (dt: string, bucket: number) => boolean, readers: 'java' | 'all' = 'java'): Promise<void> {
    const wh = copyWarehouse(base, `compact-select-${label}`);
    const row = firstRow(await callNamed(executorFor(wh, [compact]), 'compact', { table: 'db.t', ...args }));
    assert.equal(row.result, true);
    assert.equal(Number(row.pinned_snapshot_id), latestBefore);
    assert.equal(Number(row.snapshot_id), latestBefore + 1, `committed: ${String(row.message)}`);
    const after = await inspect(wh);
    assert.equal(after.latest.commitKind, 'COMPACT');
    const { rewritten } = assertOnlySelectedRewritten(beforeFiles, after.files, selected);
    const expected = [...byBucket(beforeFiles).keys()].filter((k) => { const [dt, b] = k.split('/b'); return selected(dt, Number(b)); }).sort();
    assert.deepEqual(rewritten, expected);
    assert.equal(Number(row.buckets_compacted), expected.length, 'buckets_compacted');
    assert.equal(Number(row.partitions_compacted), new Set(expected.map((k) => k.split('/b')[0])).size, 'partitions_compacted');
    assert.deepEqual(after.rows, beforeRows, 'Paimon Java 1.4 reads the same rows');
    if (readers === 'all') {
      assert.deepEqual(canon(await java('2.0').read(wh, 'db', 't')), beforeRows, 'Paimon Java 2.0 reads the same rows');
      assert.deepEqual(canon(await pypaimons.read(wh, 'db', 't')), beforeRows, 'pypaimon reads the same rows');
    }

  }

  test("partitions => 'dt=2024-01-02'", async () => {
    await run('partitions', { partitions: 'dt=2024-01-02' }, (dt) => dt === '2024-01-02', 'all');
  });

  test("partitions => 'dt=2024-01-01;dt=2024-01-03' (';' is OR)", async () => {
    await run('partitions-or', { partitions: 'dt=2024-01-01;dt=2024-01-03' }, (dt) => dt !== '2024-01-02');
  });

  test("where => \"dt > '2024-01-01'\"", async () => {
    await run('where', { where: "dt > '2024-01-01'" }, (dt) => dt > '2024-01-01');
  });

  test("where => \"dt IN ('2024-01-01', '2024-01-03') AND NOT dt = '2024-01-03'\"", async () => {
    await run('where-in', { where: "dt IN ('2024-01-01', '2024-01-03') AND NOT dt = '2024-01-03'" }, (dt) => dt === '2024-01-01');
  });

  test("buckets => '0,2' (every partition)", async () => {
    await run('buckets', { buckets: '0,2' }, (_dt, b) => b === 0 || b === 2);
  });

  test("partitions => 'dt=2024-01-03' with buckets => '1'", async () => {
    await run('partitions-buckets', { partitions: 'dt=2024-01-03', buckets: '1' }, (dt, b) => dt === '2024-01-03' && b === 1);
  });
});

/**
 * partition_idle_time. Phase 1 writes every partition; after a pause, phase 2 writes one key into
 * the last partition. The idle time is set half-way between the ages of the newest phase-1 file
 * and the phase-2 file (as Java reports them), so only the partitions untouched by phase 2 are old
 * enough, whatever the machine's speed (the pause is the margin).
 */
async function idleCase(label: string, withBuckets: boolean, tz?: string): Promise<void> {
  // Paimon keeps a file's creation time as a local date-time and reads it in the JVM's zone
  // (DataFileMeta.creationTimeEpochMillis); with `tz`, Java and this process both run in it.
  const savedTz = process.env.TZ;
  if (tz !== undefined) process.env.TZ = tz;
  try {
    await idleCaseIn(label, withBuckets);
  } finally {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  }
}

async function idleCaseIn(label: string, withBuckets: boolean): Promise<void> {
  const wh = tempWarehouse(`compact-idle-${label}`);
  await peer.createTable(wh, 'db', 't', SPEC);
  await writeCommits(wh, [0, 1, 2].map((c) => commitRows(c, DTS)));
  await new Promise((r) => setTimeout(r, 12_000));
  await writeCommits(wh, [[{ dt: DTS[2], id: 3, v: 'late', n: -1 }]]);
  const before = await inspect(wh);
  const rows = before.rows;
  const newest = new Map<string, number>();
  for (const f of before.files) newest.set(f.dt, Math.max(newest.get(f.dt) ?? 0, f.creationMillis));
  const recent = newest.get(DTS[2])!;
  const olderNewest = Math.max(newest.get(DTS[0])!, newest.get(DTS[1])!);
  assert.ok(recent - olderNewest >= 10_000, `phase 2 is at least 10 s after phase 1 (Java's creation times: ${olderNewest}, ${recent})`);
  const now = Date.now();
  const idleMs = Math.round(now - (olderNewest + recent) / 2);
  // The bucket of the phase-2 file; with `buckets`, select only other buckets of the recent
  // partition: Paimon still skips the whole partition (its newest file counts, in any bucket).
  const lateBucket = before.files.find((f) => f.dt === DTS[2] && f.creationMillis === recent)!.bucket;
  const others = [0, 1, 2].filter((b) => b !== lateBucket);
  const args: Record<string, string> = { partition_idle_time: `${idleMs} ms`, ...(withBuckets ? { buckets: others.join(',') } : {}) };
  const row = firstRow(await callNamed(executorFor(wh, [compact]), 'compact', { table: 'db.t', ...args }));
  assert.ok(Date.now() - now < (recent - olderNewest) / 2, 'the call ran within the margin');
  assert.equal(Number(row.snapshot_id), Number(before.latest.id) + 1, `committed: ${String(row.message)}`);
  const after = await inspect(wh);
  const selected = (dt: string, b: number): boolean => dt !== DTS[2] && (!withBuckets || others.includes(b));
  assertOnlySelectedRewritten(before.files, after.files, selected);
  assert.deepEqual(after.rows, rows, 'Paimon Java reads the same rows');
}

describe('compact partition_idle_time as Paimon defines it (newest file of the partition vs now)', () => {
  test('only partitions whose newest file is older than the idle time', async () => {
    await idleCase('plain', false);
  });

  // Known divergence (src/paimon/compact/compact-table.ts, not this file's owner): the newest file
  // of a partition is taken over the selected buckets only; Spark's getHistoryPartition takes it
  // over the whole partition (partitionEntries, before the bucket filter).
  test('with buckets: a recent file in an unselected bucket still makes the partition busy', async () => {
    await idleCase('buckets', true);
  });

  // Known divergence (compact-table.ts): creation times are local date-times; compact-table
  // compares them with the UTC epoch, so outside UTC partitions look newer than they are.
  test('in a zone other than UTC (Asia/Shanghai), with Java in the same zone', async () => {
    await idleCase('tz', false, 'Asia/Shanghai');
  });
});
