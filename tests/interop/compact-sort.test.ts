/**
 * Sort compaction (compact with order_strategy order / zorder / hilbert) against the real Paimon
 * (Java 1.4.2 / 2.0.0 and pypaimon):
 *  - our sort keys equal the bytes of Paimon Java's own ZIndexer and HilbertIndexer
 *    (tests/interop/java/SortKeyTool.java) for rows of every supported type, NULLs and edge
 *    values included;
 *  - an unaware-bucket append table written by Paimon Java in many commits (partitioned; int,
 *    bigint, string, double, date columns with NULLs), sort-compacted by our procedure: Java 1.4,
 *    2.0 and pypaimon read the same multiset of rows; the new snapshot is an OVERWRITE of the
 *    selected partitions only (every old file of those partitions deleted, the others untouched);
 *    in every new file the rows are in the order of Java's own indexer (SortKeyTool check: keys
 *    non-decreasing in file order; for 'order' the ascending NULLS FIRST record order), which the
 *    table written by Java did NOT satisfy before; a Java writer keeps writing and compacting;
 *  - the files deleted are those of the snapshot the rows were read from: a Java commit appending
 *    to a selected partition before our commit is kept (no row lost, none doubled), a Java
 *    compaction of those files makes ours fail with COMMIT_CONFLICT, the table unchanged.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { java, pypaimon, tempWarehouse, copyWarehouse, parseJson, PAIMON_JAVA_VERSIONS, type Json, type JsonObj, type PaimonJavaVersion, type TableSpec, pypaimons } from './peers.js';
import { executorFor, callNamed, firstRow } from './procedures-support.js';
import { compact } from '../../procedures/compaction/compact.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';
import { parseDataField } from '../../src/paimon/data/field-type.js';
import { Decimal, Timestamp, type InternalRow } from '../../src/paimon/data/internal-row.js';
import { zorderEncoder, hilbertEncoder } from '../../src/paimon/compact/sort-key.js';
import { sortCompactTable } from '../../src/paimon/compact/sort-compaction.js';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import { isPaimonError } from '../../src/paimon/errors.js';
import { readdirSync } from 'node:fs';
import { liveFiles, type LiveFile } from './compact-support.js';

after(async () => {
  await closeDataEngine();
});

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const js = (x: unknown): string => JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
const canon = (rows: JsonObj[]): string[] => rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))).sort();

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ------------------------------------------------------------------------------------------------
// 1. sort keys, byte for byte against ZIndexer / HilbertIndexer
// ------------------------------------------------------------------------------------------------

const KEY_FIELDS = [
  { name: 'i', type: 'INT' },
  { name: 'l', type: 'BIGINT' },
  { name: 's', type: 'STRING' },
  { name: 'd', type: 'DOUBLE' },
  { name: 'f', type: 'FLOAT' },
  { name: 'dt', type: 'DATE' },
  { name: 'b', type: 'BOOLEAN' },
  { name: 'dec', type: 'DECIMAL(10, 2)' },
  { name: 'dec2', type: 'DECIMAL(30, 4)' },
  { name: 'ts', type: 'TIMESTAMP(3)' },
  { name: 'ti', type: 'TINYINT' },
  { name: 'si', type: 'SMALLINT' },
  { name: 'bin', type: 'BYTES' },
] as const;
const KEY_SPECS = KEY_FIELDS.map((f, i) => parseDataField({ id: i, name: f.name, type: f.type }));

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
function dateString(days: number): string {
  const d = new Date(days * 86400000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}
function tsString(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
}
function decString(u: bigint, scale: number): string {
  const neg = u < 0n;
  const s = (neg ? -u : u).toString().padStart(scale + 1, '0');
  return `${neg ? '-' : ''}${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
}

/** One random row as both our InternalRow and the JSON PaimonTool.rowFromJson reads. */
function keyRows(n: number, seed: number): { rows: InternalRow[]; json: Record<string, Json>[] } {
  const r = rng(seed);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const rows: InternalRow[] = [];
  const json: Record<string, Json>[] = [];
  const strings = ['', 'a', 'ab', 'abcdefgh', 'abcdefghi', 'zz', 'é', '日本語テキスト', 'a\u0000b', 'x'.repeat(20), 'Z'];
  const doubles = [0, -0, 1.5, -1.5, Number.NaN, Infinity, -Infinity, 1e300, -1e-300, 3.14159, -2.25, 5e-324];
  for (let k = 0; k < n; k++) {
    const nul = (): boolean => r() < 0.12;
    const i = nul() ? null : pick([0, 1, -1, 2147483647, -2147483648, Math.floor(r() * 2 ** 32) - 2 ** 31]);
    const l = nul() ? null : pick([0n, 1n, -1n, 9223372036854775807n, -9223372036854775808n, BigInt(Math.floor(r() * 2 ** 53)) * (r() < 0.5 ? -1n : 1n) * 997n]);
    const s = nul() ? null : pick(strings);
    const d = nul() ? null : r() < 0.5 ? pick(doubles) : (r() - 0.5) * 10 ** Math.floor(r() * 20);
    const f = nul() ? null : Math.fround(r() < 0.4 ? pick(doubles) : (r() - 0.5) * 1000);
    const dt = nul() ? null : Math.floor((r() - 0.3) * 40000);
    const b = nul() ? null : r() < 0.5;
    const decU = nul() ? null : BigInt(Math.floor((r() - 0.5) * 2e9));
    const dec2U = nul() ? null : BigInt(Math.floor((r() - 0.5) * 2 ** 52)) * BigInt(Math.floor(r() * 2 ** 44));
    const ts = nul() ? null : Math.floor((r() - 0.2) * 4e12);
    const ti = nul() ? null : Math.floor(r() * 256) - 128;
    const si = nul() ? null : Math.floor(r() * 65536) - 32768;
    const bin = nul() ? null : Uint8Array.from({ length: Math.floor(r() * 12) }, () => Math.floor(r() * 256));
    rows.push([
      i, l, s, d, f, dt, b,
      decU === null ? null : new Decimal(decU, 10, 2),
      dec2U === null ? null : new Decimal(dec2U, 30, 4),
      ts === null ? null : new Timestamp(BigInt(ts), 0),
      ti, si, bin,
    ]);
    const num = (x: number | null): Json =>
      x === null ? null : Number.isNaN(x) ? 'NaN' : x === Infinity ? 'Infinity' : x === -Infinity ? '-Infinity' : Object.is(x, -0) ? '-0.0' : x;
    json.push({
      i, l, s, d: num(d), f: num(f), dt: dt === null ? null : dateString(dt), b,
      dec: decU === null ? null : decString(decU, 2),
      dec2: dec2U === null ? null : decString(dec2U, 4),
      ts: ts === null ? null : tsString(ts),
      ti, si, bin: bin === null ? null : hex(bin),
    });
  }
  return { rows, json };
}

const ORDER_SETS: string[][] = [
  ['i', 'l'],
  ['s', 'd'],
  ['f', 'dt', 'b'],
  ['dec', 'dec2', 'ts'],
  ['ti', 'si', 'bin', 's'],
  ['d', 'i', 's', 'l', 'f', 'dt', 'b', 'dec'],
  KEY_FIELDS.map((f) => f.name),
];

const KEY_CASES = ORDER_SETS.flatMap((orderBy) => (orderBy.includes('s') || orderBy.includes('bin') ? [8, 3, 13] : [8]).map((varTypeSize) => ({ orderBy, varTypeSize })));

/** Java's keys for every case, computed in one JVM. */
async function javaKeys(v: PaimonJavaVersion, json: Record<string, Json>[]): Promise<Array<{ zorder: string[]; hilbert: string[] | null }>> {
  const f = join(tempWarehouse('sortkeys'), 'spec.json');
  writeFileSync(f, JSON.stringify({ fields: KEY_FIELDS, rows: json, cases: KEY_CASES }, (_k, x: unknown) => (typeof x === 'bigint' ? `__BIG__${x}` : x)).replace(/"__BIG__(-?\d+)"/g, '$1'));
  const r = await java(v).runMain('SortKeyTool', ['keys', f]);
  return (parseJson(r.stdout.trim()) as unknown as { cases: Array<{ zorder: string[]; hilbert: string[] | null }> }).cases;
}

describe('sort keys: ours equal Paimon Java ZIndexer / HilbertIndexer bytes', () => {
  const { rows, json } = keyRows(300, 7);
  for (const v of PAIMON_JAVA_VERSIONS) {
    test(`Java ${v}: ${KEY_CASES.length} column sets and var-length contributions, ${rows.length} rows`, async () => {
      const theirs = await javaKeys(v, json);
      assert.equal(theirs.length, KEY_CASES.length);
      KEY_CASES.forEach(({ orderBy, varTypeSize }, c) => {
        const what = `${orderBy.join(',')} (var-length contribution ${varTypeSize})`;
        const z = zorderEncoder(KEY_SPECS, orderBy, varTypeSize);
        for (let k = 0; k < rows.length; k++) {
          const ours = hex(z.key(rows[k]));
          if (ours !== theirs[c].zorder[k]) assert.fail(`zorder ${what} row ${k} ${js(json[k])}: ours ${ours}, Java ${theirs[c].zorder[k]}`);
        }
        if (orderBy.length > 1) {
          const h = hilbertEncoder(KEY_SPECS, orderBy);
          for (let k = 0; k < rows.length; k++) {
            const ours = hex(h.key(rows[k]));
            if (ours !== theirs[c].hilbert![k]) assert.fail(`hilbert ${orderBy.join(',')} row ${k} ${js(json[k])}: ours ${ours}, Java ${theirs[c].hilbert![k]}`);
          }
        }
      });
    });
  }
});

// ------------------------------------------------------------------------------------------------
// 2. sort compaction of a table written by Paimon Java
// ------------------------------------------------------------------------------------------------

const byPartition = (files: LiveFile[]): Map<string, LiveFile[]> => {
  const m = new Map<string, LiveFile[]>();
  for (const f of files) m.set(f.partition, [...(m.get(f.partition) ?? []), f]);
  return m;
};

const SPEC: TableSpec = {
  fields: [
    { name: 'dt', type: 'STRING NOT NULL' },
    { name: 'a', type: 'INT' },
    { name: 'b', type: 'BIGINT' },
    { name: 's', type: 'STRING' },
    { name: 'd', type: 'DOUBLE' },
    { name: 'day', type: 'DATE' },
  ],
  partitionKeys: ['dt'],
  primaryKeys: [],
  options: { bucket: '-1', 'write-only': 'true', 'file.format': 'parquet' },
};

function tableRows(commit: number, n: number): JsonObj[] {
  const r = rng(1000 + commit);
  const nul = (): boolean => r() < 0.1;
  const out: JsonObj[] = [];
  for (let k = 0; k < n; k++) {
    out.push({
      dt: `p${Math.floor(r() * 3)}`,
      a: nul() ? null : Math.floor((r() - 0.5) * 2000),
      b: nul() ? null : Math.floor((r() - 0.5) * 2 ** 40),
      s: nul() ? null : ['', 'apple', 'b', 'banana split', 'cherry', 'Ωmega', 'date', 'apple pie'][Math.floor(r() * 8)] + (r() < 0.5 ? String(Math.floor(r() * 100)) : ''),
      d: nul() ? null : Math.round((r() - 0.5) * 1e6) / 64,
      day: nul() ? null : dateString(18000 + Math.floor(r() * 1000)),
    });
  }
  return out;
}

/** Creates db.t with SPEC and commits each batch of rows, all in one JVM (JVM starts are the slow part). */
async function createAndWrite(wh: string, commits: JsonObj[][]): Promise<void> {
  const dir = tempWarehouse('sort-rows');
  const schemaFile = join(dir, 'schema.json');
  writeFileSync(schemaFile, JSON.stringify(SPEC));
  const steps: string[][] = [['create-table', wh, 'db', 't', schemaFile]];
  commits.forEach((rows, c) => {
    const f = join(dir, `rows-${c}.jsonl`);
    writeFileSync(f, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    steps.push(['write', wh, 'db', 't', f]);
  });
  const results = await java('1.4').batch(steps);
  assert.ok(results.length === steps.length && results.every((r) => r.ok), `Java writes: ${js(results.find((r) => !r.ok))}`);
}

interface SortCheck {
  strategy: string;
  rows: number;
  violations: number;
  files: Array<{ file: string; rows: number; violations: number; firstViolation: number }>;
}

async function sortCheck(v: PaimonJavaVersion, wh: string, strategy: string, orderBy: string): Promise<SortCheck> {
  const r = await java(v).runMain('SortKeyTool', ['check', wh, 'db', 't', strategy, orderBy], { timeoutMs: 300_000 });
  return parseJson(r.stdout.trim()) as unknown as SortCheck;
}

const COMMITS = 8;
const ROWS_PER_COMMIT = 60;

interface SortCase {
  strategy: 'order' | 'zorder' | 'hilbert';
  orderBy: string;
  /** Selection arguments of the call; `untouched` names the partitions it leaves alone. */
  select: Record<string, string>;
  untouched: string[];
  /** Whether a Java writer then writes and compacts the table. */
  javaContinues?: boolean;
}

const SORT_CASES: SortCase[] = [
  { strategy: 'zorder', orderBy: 'a,b', select: { partitions: 'dt=p0;dt=p1', options: 'target-file-size=1 kb' }, untouched: ['p2'], javaContinues: true },
  { strategy: 'order', orderBy: 's,d', select: { where: "dt <> 'p1'" }, untouched: ['p1'] },
  { strategy: 'hilbert', orderBy: 'b,day,a', select: {}, untouched: [] },
];

describe('sort compaction of an unaware-bucket append table written by Paimon Java', () => {
  let base: string;
  let beforeRows: string[];
  let beforeFiles: LiveFile[];
  let latestBefore: number;
  const peer = java('1.4');

  test('setup: many Java commits, several small files per partition', async () => {
    base = tempWarehouse('sort-compact-base');
    await createAndWrite(base, Array.from({ length: COMMITS }, (_, c) => tableRows(c, ROWS_PER_COMMIT)));
    beforeRows = canon(await peer.read(base, 'db', 't'));
    assert.equal(beforeRows.length, COMMITS * ROWS_PER_COMMIT);
    const d = (await peer.dump(base, 'db', 't')) as unknown as JsonObj;
    beforeFiles = liveFiles(d);
    const snaps = d.snapshots as JsonObj[];
    latestBefore = Number(snaps[snaps.length - 1].id);
    for (const [p, fs] of byPartition(beforeFiles)) assert.ok(fs.length >= COMMITS - 1, `${p}: ${fs.length} files`);
  });

  for (const cs of SORT_CASES) {
    test(`${cs.strategy} by ${cs.orderBy}: same rows for Java 1.4, 2.0 and pypaimon; OVERWRITE of the selected partitions; files in Java's ${cs.strategy} order`, async () => {
      assert.ok(base, 'setup ran');
      const wh = copyWarehouse(base, `sort-compact-${cs.strategy}`);
      // The check can fail: the table as Java wrote it is not in this order.
      const unsorted = await sortCheck('1.4', wh, cs.strategy, cs.orderBy);
      assert.equal(unsorted.rows, beforeRows.length);
      assert.ok(unsorted.violations > 0, 'the rows as written are out of order');

      const ex = executorFor(wh, [compact]);
      const out = await callNamed(ex, 'compact', { table: 'db.t', order_strategy: cs.strategy, order_by: cs.orderBy, ...cs.select });
      const row = firstRow(out);
      assert.equal(row.result, true);
      assert.equal(row.pinned_snapshot_id, latestBefore);
      assert.equal(row.snapshot_id, latestBefore + 1, `committed: ${String(row.message)}`);
      const selected = [...byPartition(beforeFiles).keys()].filter((p) => !cs.untouched.some((u) => p === JSON.stringify([u])));
      assert.equal(row.partitions_compacted, selected.length);
      assert.equal(row.rows_read, row.rows_written);

      // Every reader sees the same multiset of rows.
      assert.deepEqual(canon(await java('1.4').read(wh, 'db', 't')), beforeRows, 'Paimon Java 1.4 rows');
      assert.deepEqual(canon(await java('2.0').read(wh, 'db', 't')), beforeRows, 'Paimon Java 2.0 rows');
      assert.deepEqual(canon(await pypaimons.read(wh, 'db', 't')), beforeRows, 'pypaimon rows');

      // One OVERWRITE snapshot: the selected partitions' files replaced, the others untouched.
      const dump = (await peer.dump(wh, 'db', 't')) as unknown as JsonObj;
      const snaps = dump.snapshots as JsonObj[];
      const last = snaps[snaps.length - 1];
      assert.equal(Number(last.id), latestBefore + 1);
      assert.equal(last.commitKind, 'OVERWRITE');
      const after = byPartition(liveFiles(dump));
      const before = byPartition(beforeFiles);
      assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort());
      const newFiles = new Set<string>();
      for (const [p, fs] of before) {
        const now = after.get(p)!;
        if (!selected.includes(p)) {
          assert.deepEqual(now.map((f) => f.fileName).sort(), fs.map((f) => f.fileName).sort(), `${p} untouched`);
          continue;
        }
        const old = new Set(fs.map((f) => f.fileName));
        for (const f of now) {
          assert.ok(!old.has(f.fileName), `${p}: old file ${f.fileName} still live`);
          assert.equal(f.level, 0);
          assert.equal(Number(f.meta.fileSourceValue ?? f.meta.fileSource ?? 0), 0, 'written as new data (APPEND), as an overwrite does');
          newFiles.add(f.fileName);
        }
        const sum = (xs: LiveFile[]): number => xs.reduce((n, f) => n + Number(f.meta.rowCount), 0);
        assert.equal(sum(now), sum(fs), `${p}: row count`);
        if (cs.select.options?.includes('target-file-size')) assert.ok(now.length > 1, `${p}: rolled at the target file size (${now.length} files)`);
      }

      // Within every new file, the rows are in Paimon Java's own order for the strategy.
      for (const v of PAIMON_JAVA_VERSIONS) {
        const chk = await sortCheck(v, wh, cs.strategy, cs.orderBy);
        const mine = chk.files.filter((f) => newFiles.has(f.file));
        assert.equal(mine.length, newFiles.size, `Java ${v} read every new file`);
        for (const f of mine) assert.equal(f.violations, 0, `Java ${v}: ${f.file} has ${f.violations} rows out of ${cs.strategy} order (first at ${f.firstViolation})`);
        assert.equal(chk.rows, beforeRows.length);
      }

      // A Java writer keeps writing and compacting; the rows stay right (once is enough).
      if (!cs.javaContinues) return;
      const more = tableRows(99, 30);
      await peer.write(wh, 'db', 't', more);
      await peer.compact(wh, 'db', 't', 'full');
      const expected = [...beforeRows, ...canon(more)].sort();
      assert.deepEqual(canon(await java('2.0').read(wh, 'db', 't')), expected);
      const chk = await peer.check(wh, 'db', 't');
      assert.equal(chk.ok, true);
    });
  }
});

describe('sort compaction racing a Java writer: the DELETE set is pinned to the snapshot read', () => {
  const peer = java('1.4');
  const dataFiles = (dir: string): string[] => readdirSync(dir, { recursive: true }).map(String).filter((f) => /data-.*\.parquet$/.test(f)).sort();

  test('rows appended by Java between our read and our commit are kept', async () => {
    const wh = tempWarehouse('sort-race-append');
    await createAndWrite(wh, Array.from({ length: 4 }, (_, c) => tableRows(c, 30)));
    const before = canon(await peer.read(wh, 'db', 't'));
    const late = tableRows(50, 20);
    const r = await sortCompactTable({
      fileIO: new LocalFileIO(), tablePath: join(wh, 'db.db', 't'), table: 'db.t', strategy: 'zorder', orderBy: ['a', 'b'],
      onPoint: async (p) => {
        if (p === 'before-commit') await peer.write(wh, 'db', 't', late);
      },
    });
    assert.notEqual(r.committedSnapshotId, null);
    assert.deepEqual(canon(await java('2.0').read(wh, 'db', 't')), [...before, ...canon(late)].sort());
  });

  test('a Java compaction of the files we read makes ours a COMMIT_CONFLICT; the table is unchanged and our files are gone', async () => {
    const wh = tempWarehouse('sort-race-compact');
    await createAndWrite(wh, Array.from({ length: 6 }, (_, c) => tableRows(c, 30)));
    const before = canon(await peer.read(wh, 'db', 't'));
    const tableDir = join(wh, 'db.db', 't');
    const original = dataFiles(tableDir);
    let ours: string[] = [];
    await assert.rejects(
      sortCompactTable({
        fileIO: new LocalFileIO(), tablePath: join(wh, 'db.db', 't'), table: 'db.t', strategy: 'hilbert', orderBy: ['a', 'd'],
        onPoint: async (p) => {
          if (p !== 'before-commit') return;
          ours = dataFiles(tableDir).filter((f) => !original.includes(f));
          await peer.compact(wh, 'db', 't', 'full');
        },
      }),
      (e: unknown) => isPaimonError(e, 'COMMIT_CONFLICT'),
    );
    const d = (await peer.dump(wh, 'db', 't')) as unknown as JsonObj;
    const snaps = d.snapshots as JsonObj[];
    assert.equal(snaps[snaps.length - 1].commitKind, 'COMPACT', "the latest snapshot is Java's compaction");
    assert.deepEqual(canon(await peer.read(wh, 'db', 't')), before);
    assert.ok(ours.length > 0, 'we had written files');
    const left = dataFiles(tableDir);
    assert.deepEqual(ours.filter((f) => left.includes(f)), [], 'the files we wrote were removed');
  });
});
