/**
 * The bounded merge: spill files round-trip every value kind; a section merged with a small
 * fan-in (spill passes) hands the merge function the same records in the same order as one
 * pass over all runs; spill files are gone after success, failure and abort.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import fc from 'fast-check';
import { readSpill, SpillWriter } from '../../../../src/paimon/compact/spill-file.js';
import { compactionMemory, mergeSection, planSectionMerge, type SectionMergePlan } from '../../../../src/paimon/compact/spill-merge.js';
import type { MergeFunction } from '../../../../src/paimon/compact/merge-function.js';
import { createMergeFunction } from '../../../../src/paimon/compact/merge-function.js';
import type { DataFileMeta } from '../../../../src/paimon/spec/data-file-meta.js';
import type { DataFieldSpec, FieldType } from '../../../../src/paimon/data/field-type.js';
import { Decimal, Timestamp, type Datum, type KeyValue, type RowKindByte } from '../../../../src/paimon/data/internal-row.js';

const root = process.env.TEST_TMP ?? tmpdir();
const tmp = (): string => mkdtempSync(join(root, 'spill-unit-'));
const MiB = 1 << 20;

const t = (root: string, extra: object = {}): FieldType => ({ root, nullable: true, ...extra }) as FieldType;

describe('spill file', () => {
  test('round-trips every value kind, keys rebuilt from the value', async () => {
    const fields: DataFieldSpec[] = [
      { id: 0, name: 'id', type: t('BIGINT') },
      { id: 1, name: 's', type: t('VARCHAR') },
      { id: 2, name: 'd', type: t('DECIMAL', { precision: 20, scale: 3 }) },
      { id: 3, name: 'ts', type: t('TIMESTAMP', { precision: 9 }) },
      { id: 4, name: 'b', type: t('VARBINARY') },
      { id: 5, name: 'arr', type: { root: 'ARRAY', nullable: true, element: t('TIMESTAMP_LTZ', { precision: 3 }) } },
      { id: 6, name: 'm', type: { root: 'MAP', nullable: true, key: t('VARCHAR'), value: t('DECIMAL', { precision: 5, scale: 2 }) } },
      { id: 7, name: 'r', type: { root: 'ROW', nullable: true, fields: [{ id: 8, name: 'x', type: t('INT') }, { id: 9, name: 'y', type: t('DECIMAL', { precision: 38, scale: 0 }) }] } },
      { id: 10, name: 'f', type: t('DOUBLE') },
      { id: 11, name: 'k2', type: t('INT') },
    ];
    const rows: KeyValue[] = [];
    for (let i = 0; i < 10_000; i++) {
      const value: Datum[] = [
        BigInt(i) * 1_000_000_007n,
        i % 7 === 0 ? null : `s${i}-äö€😀`.repeat(1 + (i % 3)),
        new Decimal(BigInt(i) * -12345678901234567n, 20, 3),
        new Timestamp(BigInt(i) * 1000n - 5n, (i * 37) % 1_000_000),
        i % 5 === 0 ? null : new Uint8Array([i & 255, 0, 255]),
        [new Timestamp(BigInt(i), 0), null],
        [[`k${i}`, new Decimal(BigInt(i % 1000), 5, 2)]],
        [i, new Decimal(10n ** 37n + BigInt(i), 38, 0)],
        i === 3 ? Number.NaN : i / 3,
        i % 11,
      ];
      rows.push({ key: [value[0], value[9]], sequenceNumber: BigInt(i) - 3n, valueKind: (i % 4) as RowKindByte, value });
    }
    const dir = tmp();
    try {
      const w = await SpillWriter.create(join(dir, 'a.bin'));
      for (let i = 0; i < rows.length; i += 777) await w.write(rows.slice(i, i + 777));
      await w.close();
      assert.equal(w.records, rows.length);
      const back: KeyValue[] = [];
      for await (const b of readSpill(join(dir, 'a.bin'), fields, [0, 9])) back.push(...b);
      assert.deepEqual(back, rows);
      assert.ok(back[1].value[2] instanceof Decimal && back[1].value[3] instanceof Timestamp);
      assert.ok((back[1].value[7] as Datum[])[1] instanceof Decimal);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an empty spill file reads as no batches; a truncated one is a clear error', async () => {
    const dir = tmp();
    try {
      const w = await SpillWriter.create(join(dir, 'e.bin'));
      await w.close();
      const out: KeyValue[][] = [];
      for await (const b of readSpill(join(dir, 'e.bin'), [], [])) out.push(b);
      assert.deepEqual(out, []);
      const w2 = await SpillWriter.create(join(dir, 't.bin'));
      await w2.write([{ key: [1], sequenceNumber: 1n, valueKind: 0, value: [1, 'x'.repeat(1000)] }]);
      await w2.close();
      const { truncate } = await import('node:fs/promises');
      await truncate(join(dir, 't.bin'), 100);
      await assert.rejects(async () => {
        for await (const b of readSpill(join(dir, 't.bin'), [{ id: 0, name: 'a', type: t('INT') }, { id: 1, name: 'b', type: t('VARCHAR') }], [0])) void b;
      }, /truncated/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('budget', () => {
  test('the budget is split into a reserve, the writers, and shares per bucket; fewer buckets at once when a share would be too small', () => {
    // 512 MiB: a second bucket at once would get 48 MiB, so one runs at a time.
    assert.deepEqual(compactionMemory(512 * MiB, 2), compactionMemory(512 * MiB, 1));
    assert.deepEqual(compactionMemory(512 * MiB, 1), { engineLimitBytes: 48 * MiB, duckdbLimitBytes: 48 * MiB + Math.floor(144 * MiB * 0.55), perBucketBytes: 144 * MiB, concurrency: 1 });
    // 2 GiB: two at once, each with its share, the reserve grown for the second.
    const m = compactionMemory(2048 * MiB, 2);
    assert.equal(m.concurrency, 2);
    assert.equal(m.engineLimitBytes, 408 * MiB);
    assert.equal(m.perBucketBytes, 612 * MiB);
    assert.equal(m.duckdbLimitBytes, 408 * MiB + 2 * Math.floor(612 * MiB * 0.55));
    // never below one, whatever the budget
    assert.equal(compactionMemory(1 * MiB, 4).concurrency, 1);
    const files = (n: number, size: number) => Array.from({ length: n }, () => [{ fileSize: BigInt(size), rowCount: BigInt(Math.floor(size / 150)) }]);
    // 7 MiB files (one row group each): about 10 MiB per open scan.
    const p = planSectionMerge(files(40, 7 * MiB), 288 * MiB, 128 * MiB);
    assert.ok(p.fanIn >= 12 && p.fanIn <= 20, String(p.fanIn));
    // Big files: the row group (at most parquet.block.size) counts, not the file.
    assert.equal(planSectionMerge(files(4, 1024 * MiB), 288 * MiB, 16 * MiB).perRunBytes, 22 * MiB);
    assert.equal(planSectionMerge(files(40, 7 * MiB), 1 * MiB, 128 * MiB).fanIn, 2);
  });
});

// ---------------------------------------------------------------- merge with and without spills

/** Records every record it is given (per key, in order), so the test sees exactly what a merge function sees. */
class Recorder implements MergeFunction {
  seen: string[] = [];
  private cur: KeyValue | null = null;
  private acc: string[] = [];
  reset(): void {
    this.cur = null;
    this.acc = [];
  }
  add(kv: KeyValue): void {
    this.cur = kv;
    this.acc.push(`${kv.sequenceNumber}:${String(kv.value[1])}`);
  }
  result(): KeyValue | null {
    this.seen.push(`${String(this.cur!.key[0])}=${this.acc.join(',')}`);
    return this.cur;
  }
}

const fields: DataFieldSpec[] = [
  { id: 0, name: 'k', type: t('INT') },
  { id: 1, name: 'v', type: t('VARCHAR') },
  { id: 2, name: 'sf', type: t('INT') },
];
const fakeFile = (name: string, rows: number): DataFileMeta => ({ fileName: name, fileSize: BigInt(rows * 40), rowCount: BigInt(rows) }) as unknown as DataFileMeta;

/** Runs of records (each run sorted by k, sf, seq), read in batches as the data-file readers do. */
function section(runs: KeyValue[][]): { runs: DataFileMeta[][]; readFiles: (files: readonly DataFileMeta[], batch: number) => AsyncGenerator<KeyValue[]> } {
  const byName = new Map<string, KeyValue[]>();
  const metas = runs.map((r, i) => {
    const m = fakeFile(`run-${i}`, r.length);
    byName.set(m.fileName, r);
    return [m];
  });
  return {
    runs: metas,
    readFiles: async function* (files, batch) {
      for (const f of files) {
        const recs = byName.get(f.fileName)!;
        for (let i = 0; i < recs.length; i += batch) yield recs.slice(i, i + batch);
      }
    },
  };
}

const order = { keyTypes: [t('INT')], sequenceFields: [{ index: 2, type: t('INT') }] };

async function run(runs: KeyValue[][], plan: SectionMergePlan, spillDir: string, mf: MergeFunction, spillMergeFunction: MergeFunction | null = null) {
  const s = section(runs);
  const stats = { read: 0n };
  const spillStats = { files: 0, records: 0n, bytes: 0n };
  const out: KeyValue[] = [];
  for await (const b of mergeSection({ ...s, order, mergeFunction: mf, spillMergeFunction, dropDelete: true, plan, spillDir, fields, keyIndexes: [0], stats, spillStats })) out.push(...b);
  return { out, stats, spillStats };
}

const arbRuns = fc.array(
  fc.array(fc.record({ k: fc.integer({ min: 0, max: 30 }), sf: fc.integer({ min: 0, max: 3 }), kind: fc.constantFrom(0, 0, 0, 2, 3) }), { maxLength: 25 }),
  { minLength: 1, maxLength: 14 },
).map((runs) => {
  let seq = 0n;
  return runs.map((r, ri) =>
    r
      .map((x) => ({ key: [x.k], sequenceNumber: seq++, valueKind: x.kind as RowKindByte, value: [x.k, `r${ri}`, x.sf] as Datum[] }))
      .sort((a, b) => (a.key[0] as number) - (b.key[0] as number) || (a.value[2] as number) - (b.value[2] as number) || Number(a.sequenceNumber - b.sequenceNumber)),
  );
});

describe('mergeSection', () => {
  test('any fan-in gives the merge function the records, in the order, of one pass (property)', async () => {
    const dir = tmp();
    try {
      await fc.assert(
        fc.asyncProperty(arbRuns, fc.integer({ min: 2, max: 5 }), fc.integer({ min: 1, max: 7 }), async (runs, fanIn, batchRows) => {
          const one = new Recorder();
          const a = await run(runs, { fanIn: 1000, batchRows: 64, perRunBytes: 1 }, dir, one);
          const small = new Recorder();
          const b = await run(runs, { fanIn, batchRows, perRunBytes: 1 }, dir, small);
          assert.deepEqual(small.seen, one.seen);
          assert.deepEqual(b.out, a.out);
          assert.equal(b.stats.read, a.stats.read);
          assert.equal(a.stats.read, BigInt(runs.reduce((s, r) => s + r.length, 0)));
          if (runs.length > fanIn && a.stats.read > 0n) assert.ok(b.spillStats.files > 0);
          assert.deepEqual(readdirSync(dir), []);
        }),
        { numRuns: 150 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('deduplicate and first-row merged in the spill passes too give the records of one pass (property)', async () => {
    const dir = tmp();
    try {
      await fc.assert(
        fc.asyncProperty(arbRuns, fc.integer({ min: 2, max: 4 }), fc.constantFrom('deduplicate', 'first-row'), fc.boolean(), async (runs, fanIn, engine, ignoreDelete) => {
          // first-row refuses retracts unless told to ignore them
          const opts: Record<string, string> = { 'merge-engine': engine, 'ignore-delete': String(ignoreDelete || engine === 'first-row') };
          const mf = () => createMergeFunction(fields, ['k'], opts).create();
          const a = await run(runs, { fanIn: 1000, batchRows: 64, perRunBytes: 1 }, dir, mf());
          const b = await run(runs, { fanIn, batchRows: 3, perRunBytes: 1 }, dir, mf(), mf());
          assert.deepEqual(b.out, a.out);
          assert.equal(b.stats.read, a.stats.read, 'every input record counted once');
          if (runs.length > fanIn && a.stats.read > 0n) assert.ok(b.spillStats.files > 0);
          assert.deepEqual(readdirSync(dir), []);
        }),
        { numRuns: 150 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('deduplicate over 40 runs with fan-in 3 equals one pass; equal sequence numbers keep run order', async () => {
    const dir = tmp();
    try {
      const runs: KeyValue[][] = [];
      for (let r = 0; r < 40; r++) {
        const recs: KeyValue[] = [];
        for (let k = r % 3; k < 500; k += 1 + (r % 4)) recs.push({ key: [k], sequenceNumber: BigInt(k % 5), valueKind: 0, value: [k, `run${r}`, 0] });
        runs.push(recs);
      }
      const mf = () => createMergeFunction(fields, ['k'], {}).create();
      const a = await run(runs, { fanIn: 100, batchRows: 50, perRunBytes: 1 }, dir, mf());
      const b = await run(runs, { fanIn: 3, batchRows: 7, perRunBytes: 1 }, dir, mf());
      assert.deepEqual(b.out, a.out);
      assert.ok(b.spillStats.files >= 19, String(b.spillStats.files));
      assert.deepEqual(readdirSync(dir), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a failing run and an abort in the middle leave no spill file', async () => {
    const dir = tmp();
    try {
      const runs = Array.from({ length: 12 }, (_, r) => Array.from({ length: 300 }, (_, k) => ({ key: [k], sequenceNumber: BigInt(r), valueKind: 0 as RowKindByte, value: [k, `r${r}`, 0] as Datum[] })));
      // abort once the first spill file exists and the final pass has started
      const ac = new AbortController();
      const s = section(runs);
      let batches = 0;
      const gen = mergeSection({
        ...s,
        readFiles: async function* (files, batch) {
          for await (const b of s.readFiles(files, batch)) {
            if (++batches === 200) ac.abort(new Error('cancelled by test'));
            yield b;
          }
        },
        order, mergeFunction: new Recorder(), dropDelete: false, plan: { fanIn: 3, batchRows: 10, perRunBytes: 1 }, spillDir: dir, fields, keyIndexes: [0], stats: { read: 0n }, signal: ac.signal,
      });
      await assert.rejects(async () => {
        for await (const b of gen) void b;
      }, /cancelled by test/);
      assert.deepEqual(readdirSync(dir), []);
      // a reader that fails during a spill pass
      const failing = section(runs);
      await assert.rejects(async () => {
        for await (const b of mergeSection({
          ...failing,
          readFiles: async function* (files, batch) {
            let n = 0;
            for await (const b of failing.readFiles(files, batch)) {
              if (files[0].fileName === 'run-7' && ++n === 3) throw new Error('disk on fire');
              yield b;
            }
          },
          order, mergeFunction: new Recorder(), dropDelete: false, plan: { fanIn: 3, batchRows: 10, perRunBytes: 1 }, spillDir: dir, fields, keyIndexes: [0], stats: { read: 0n },
        })) void b;
      }, /disk on fire/);
      assert.deepEqual(readdirSync(dir), []);
      // a consumer that stops early (generator return)
      const early = section(runs);
      for await (const b of mergeSection({ ...early, order, mergeFunction: new Recorder(), dropDelete: false, plan: { fanIn: 3, batchRows: 10, perRunBytes: 1 }, spillDir: dir, fields, keyIndexes: [0], stats: { read: 0n } })) {
        void b;
        break;
      }
      assert.deepEqual(readdirSync(dir), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
