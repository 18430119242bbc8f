/**
 * Planning of append-table compaction with deletion vectors (append-dv.ts) with plain data:
 * which files the unaware-bucket coordinator picks (size, delete ratio, grouping by index file,
 * a lone vector file), the fixed-bucket full pick, the compaction file size, index-file rolling,
 * and the conflict check against a concurrent writer's vectors.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { toBinaryRow } from '../../../../src/paimon/spec/binary-row.js';
import { EMPTY_STATS } from '../../../../src/paimon/spec/simple-stats.js';
import type { DataFileMeta } from '../../../../src/paimon/spec/data-file-meta.js';
import type { IndexManifestEntry } from '../../../../src/paimon/table/index-manifest.js';
import type { DeletionVectorBlob } from '../../../../src/paimon/spec/deletion-vector.js';
import { checkUnawareDvConflicts, compactionFileSize, packUnawareDv, pickBucketedFullDv, rollVectors, unawareCandidate, type DvInfo, type UnawareDvPlanOptions } from '../../../../src/paimon/compact/append-dv.js';
import { pickBucketedFull, pickBucketedMinor } from '../../../../src/paimon/compact/append-compaction.js';
import { isPaimonError } from '../../../../src/paimon/errors.js';
import { checkSortCompactable } from '../../../../src/paimon/compact/sort-compaction.js';
import { checkCompactable } from '../../../../src/paimon/compact/compact-table.js';
import type { TableSchema } from '../../../../src/paimon/spec/table-schema.js';

let seq = 0;
function file(name: string, size: number, rows = 100): DataFileMeta {
  seq += 10;
  return {
    fileName: name, fileSize: BigInt(size), rowCount: BigInt(rows), minKey: toBinaryRow([], []), maxKey: toBinaryRow([], []), keyStats: EMPTY_STATS, valueStats: EMPTY_STATS,
    minSequenceNumber: BigInt(seq), maxSequenceNumber: BigInt(seq + 9), schemaId: 0n as unknown as DataFileMeta['schemaId'], level: 0, extraFiles: [],
    creationTime: 0n as unknown as DataFileMeta['creationTime'], deleteRowCount: 0n, embeddedIndex: null, fileSource: 0, valueStatsCols: null, externalPath: null,
    firstRowId: null, writeCols: null,
  } as DataFileMeta;
}

const O: UnawareDvPlanOptions = { targetFileSize: 1000, compactionFileSize: 700, minFileNum: 5, openFileCost: 0, deleteRatioThreshold: 0.2 };
const names = (groups: DataFileMeta[][]): string[][] => groups.map((g) => g.map((f) => f.fileName).sort());

describe('unaware-bucket plan with deletion vectors (AppendCompactCoordinator)', () => {
  test('candidates: small files, and large files whose vector deletes more than the threshold (or has no cardinality)', () => {
    const big = file('big', 900, 100);
    assert.equal(unawareCandidate(file('s', 10), undefined, O), true);
    assert.equal(unawareCandidate(big, undefined, O), false);
    assert.equal(unawareCandidate(big, { indexFileName: 'i', cardinality: 20n }, O), false, '20% is not more than 0.2');
    assert.equal(unawareCandidate(big, { indexFileName: 'i', cardinality: 21n }, O), true);
    assert.equal(unawareCandidate(big, { indexFileName: 'i', cardinality: null }, O), true);
  });

  test('a single small file with a vector is compacted alone; a single file without one is not', () => {
    const a = file('a', 10);
    assert.deepEqual(names(packUnawareDv([a, file('x', 900)], new Map([['a', { indexFileName: 'i1', cardinality: 1n }]]), O)), [['a']]);
    assert.deepEqual(packUnawareDv([a, file('x', 900)], new Map(), O), []);
  });

  test('files with vectors form one bin across index files; files without vectors pack as without vectors', () => {
    const fs = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((n) => file(n, 10));
    const dvs = new Map<string, DvInfo>([
      ['a', { indexFileName: 'i1', cardinality: 1n }],
      ['b', { indexFileName: 'i1', cardinality: 1n }],
      ['c', { indexFileName: 'i2', cardinality: 1n }],
    ]);
    // d..g are 4 files without a vector: fewer than compaction.min.file-num, not compacted.
    assert.deepEqual(names(packUnawareDv(fs, dvs, O)), [['a', 'b', 'c']]);
    const more = [...fs, file('h', 10)];
    assert.deepEqual(names(packUnawareDv(more, dvs, O)), [['a', 'b', 'c'], ['d', 'e', 'f', 'g', 'h']]);
  });

  test('a large file with a small vector stays (its vector is carried); one over the ratio is compacted with the others', () => {
    const big = file('big', 900, 100), big2 = file('big2', 900, 100), s = file('s', 10);
    const dvs = new Map<string, DvInfo>([
      ['big', { indexFileName: 'i1', cardinality: 1n }],
      ['big2', { indexFileName: 'i2', cardinality: 50n }],
      ['s', { indexFileName: 'i1', cardinality: 1n }],
    ]);
    assert.deepEqual(names(packUnawareDv([big, big2, s], dvs, O)), [['big2', 's']]);
  });

  test('bins of vector groups close when they reach twice the target (groups are not split)', () => {
    const fs = ['a', 'b', 'c', 'd'].map((n) => file(n, 600));
    const dvs = new Map<string, DvInfo>(fs.map((f, k) => [f.fileName, { indexFileName: `i${k >> 1}`, cardinality: 1n }]));
    // group i0 = a,b (1200), group i1 = c,d (1200): a+b+c+d reaches 2000 after the second group.
    assert.deepEqual(names(packUnawareDv(fs, dvs, O)), [['a', 'b', 'c', 'd']]);
    const o2 = { ...O, targetFileSize: 600 };
    assert.deepEqual(names(packUnawareDv(fs, dvs, { ...o2, compactionFileSize: 700 })), [['a', 'b'], ['c', 'd']]);
  });
});

describe('fixed-bucket plan (BucketedAppendCompactManager)', () => {
  test('full with vectors: leading large files without a vector are kept, the rest is rewritten (even one file)', () => {
    const l1 = file('l1', 800), l2 = file('l2', 800), s = file('s', 10), l3 = file('l3', 800);
    assert.deepEqual(pickBucketedFullDv([l3, s, l2, l1], () => false, 700, false).map((f) => f.fileName), ['s', 'l3']);
    assert.deepEqual(pickBucketedFullDv([l1, l2], (n) => n === 'l2', 700, false).map((f) => f.fileName), ['l2']);
    assert.deepEqual(pickBucketedFullDv([l1, l2], (n) => n === 'l1', 700, false).map((f) => f.fileName), ['l1', 'l2']);
    assert.deepEqual(pickBucketedFullDv([l1, l2], () => false, 700, false), []);
    assert.deepEqual(pickBucketedFullDv([l1, l2], () => false, 700, true).map((f) => f.fileName), ['l1', 'l2']);
  });

  test('without vectors: large means the compaction file size (70% of the target); the minor window drops the oldest at twice the target', () => {
    const m1 = file('m1', 750), a = file('a', 10), b = file('b', 10), c = file('c', 10);
    assert.deepEqual(pickBucketedFull([m1, a, b, c], 1000).map((f) => f.fileName), ['a', 'b', 'c'], 'm1 (75% of target) is large');
    const w = [file('w1', 1500), file('w2', 600), file('w3', 10), file('w4', 10), file('w5', 10), file('w6', 10)];
    // w1+w2 = 2100 >= 2000 → w1 dropped; then w2..w6 are five files.
    assert.deepEqual(pickBucketedMinor(w, 1000, 5).map((f) => f.fileName), ['w2', 'w3', 'w4', 'w5', 'w6']);
    const u = [file('u1', 1500), file('u2', 400), file('u3', 10), file('u4', 10), file('u5', 10)];
    assert.deepEqual(pickBucketedMinor(u, 1000, 5).map((f) => f.fileName), ['u1', 'u2', 'u3', 'u4', 'u5'], 'under twice the target nothing is dropped');
  });

  test('compaction file size: 1.4 rounding by default, compaction.small-file-ratio when set', () => {
    assert.equal(compactionFileSize({}, 268435456), 187904815);
    assert.equal(compactionFileSize({ 'compaction.small-file-ratio': '0.5' }, 1000), 500);
    assert.throws(() => compactionFileSize({ 'compaction.small-file-ratio': 'x' }, 1000), /small-file-ratio/);
  });
});

describe('index files', () => {
  const blob = (n: number): DeletionVectorBlob => ({ dv: { bitmap64: false, cardinality: 1, isDeleted: () => false, positions: () => [] }, blob: Buffer.alloc(n), metaLength: n - 4 });
  test('rolling: a file ends once it passes the target size', () => {
    const v = [10, 10, 10, 10, 10].map((n, k) => ({ name: `f${k}`, blob: blob(n) }));
    assert.deepEqual(rollVectors(v, 25).map((c) => c.map((x) => x.name)), [['f0', 'f1', 'f2'], ['f3', 'f4']]);
    assert.deepEqual(rollVectors(v, 1000).length, 1);
    assert.deepEqual(rollVectors([], 10), []);
  });

  test("conflicts: a concurrent vector for a compacted file, or a removed index file that is gone; another file's new vector is fine", () => {
    const p = toBinaryRow([], []);
    const entry = (name: string, files: string[]): IndexManifestEntry => ({
      kind: 'ADD', partition: p, bucket: 0,
      indexFile: { indexType: 'DELETION_VECTORS', fileName: name, fileSize: 1n, rowCount: BigInt(files.length), dvRanges: files.map((f) => ({ dataFileName: f, offset: 1, length: 1, cardinality: 1n })), externalPath: null, globalIndexMeta: null },
    });
    const base = [entry('i1', ['a', 'x'])];
    const change = [{ partitionKey: p.key(), compacted: new Set(['a', 'b']), removedIndexFiles: ['i1'] }];
    checkUnawareDvConflicts('db.t', 1, 2, base, [entry('i1', ['a', 'x']), entry('i2', ['z'])], change);
    assert.throws(() => checkUnawareDvConflicts('db.t', 1, 2, base, [entry('i1', ['a', 'x']), entry('i2', ['b'])], change), (e: unknown) => isPaimonError(e, 'COMMIT_CONFLICT') && /added deletion vectors to b/.test(e.message));
    assert.throws(() => checkUnawareDvConflicts('db.t', 1, 2, base, [entry('i3', ['x', 'y'])], change), (e: unknown) => isPaimonError(e, 'COMMIT_CONFLICT') && /i1 was replaced/.test(e.message));
  });
});

describe('which append deletion-vector compactions are accepted', () => {
  const schema = (options: Record<string, string>): TableSchema =>
    ({ id: 0, fields: [{ id: 0, name: 'id', type: 'INT NOT NULL' }, { id: 1, name: 'v', type: 'STRING' }], highestFieldId: 1, partitionKeys: [], primaryKeys: [], options, comment: null, timeMillis: 0n } as unknown as TableSchema);
  test('bucket -1 and fixed bucket are compacted; a sort compaction is refused, naming what to use', () => {
    for (const bucket of ['-1', '2']) {
      const o = { bucket, 'deletion-vectors.enabled': 'true' };
      checkCompactable('db.t', schema(o), o);
    }
    const o = { bucket: '-1', 'deletion-vectors.enabled': 'true' };
    assert.throws(() => checkSortCompactable('db.t', schema(o), o, 'zorder', ['v']), (e: unknown) => isPaimonError(e, 'UNSUPPORTED_TABLE') && /deletion vectors.*compact without order_strategy/.test(e.message));
    checkSortCompactable('db.t', schema({ bucket: '-1' }), { bucket: '-1' }, 'zorder', ['v']);
  });
});
