/**
 * Pure compaction planners and merge functions with plain data: interval partition sections and
 * runs, MergeTreeCompactTask upgrade/rewrite decisions, universal picking, append planning,
 * the k-way merge with each merge engine, and the partition/bucket argument parsers.
 */
import { isPaimonError } from '../../../../src/paimon/errors.js';
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { toBinaryRow } from '../../../../src/paimon/spec/binary-row.js';
import { EMPTY_STATS } from '../../../../src/paimon/spec/simple-stats.js';
import type { DataFileMeta } from '../../../../src/paimon/spec/data-file-meta.js';
import { binaryKeyComparator, intervalPartition, levelSortedRuns, pickFullCompaction, planSections } from '../../../../src/paimon/compact/interval-partition.js';
import { pickUniversal, createUnit } from '../../../../src/paimon/compact/universal-compaction.js';
import { packUnaware, pickBucketedFull, pickBucketedMinor } from '../../../../src/paimon/compact/append-compaction.js';
import { mergeRuns } from '../../../../src/paimon/compact/sorted-run-merge.js';
import { createMergeFunction } from '../../../../src/paimon/compact/merge-function.js';
import { MAX_PREDICATE_DEPTH, MAX_PREDICATE_TERMS, parseBucketsArgument, parsePartitionPredicate, parsePartitionsArgument } from '../../../../src/paimon/compact/partition-predicate.js';
import type { KeyValue, RowKindByte } from '../../../../src/paimon/data/internal-row.js';
import type { DataFieldSpec, FieldType } from '../../../../src/paimon/data/field-type.js';

const INT: FieldType = { root: 'INT', nullable: false };
const key = (n: number) => toBinaryRow([{ root: 'INT' }], [n]);
const cmp = binaryKeyComparator([INT]);

let seq = 0;
function file(name: string, level: number, min: number, max: number, size = 100, del = 0n): DataFileMeta {
  seq += 10;
  return {
    fileName: name, fileSize: BigInt(size), rowCount: 10n, minKey: key(min), maxKey: key(max), keyStats: EMPTY_STATS, valueStats: EMPTY_STATS,
    minSequenceNumber: BigInt(seq), maxSequenceNumber: BigInt(seq + 9), schemaId: 0n as unknown as DataFileMeta['schemaId'], level, extraFiles: [],
    creationTime: 0n as unknown as DataFileMeta['creationTime'], deleteRowCount: del, embeddedIndex: null, fileSource: 0, valueStatsCols: null, externalPath: null,
    firstRowId: null, writeCols: null,
  } as DataFileMeta;
}

describe('interval partition and MergeTreeCompactTask planning', () => {
  test('overlapping files form one section of several runs; disjoint files form their own sections', () => {
    const a = file('a', 0, 1, 5), b = file('b', 0, 3, 8), c = file('c', 0, 6, 9), d = file('d', 0, 20, 30);
    const sections = intervalPartition([d, c, b, a], cmp);
    assert.equal(sections.length, 2);
    assert.deepEqual(sections[0].map((r) => r.map((f) => f.fileName)), [['a', 'c'], ['b']]);
    assert.deepEqual(sections[1].map((r) => r.map((f) => f.fileName)), [['d']]);
  });

  test('full compaction: a single run at the max level is left alone; otherwise all runs go to the max level', () => {
    const top = [file('x', 5, 1, 5), file('y', 5, 6, 9)];
    assert.equal(pickFullCompaction(6, levelSortedRuns(top, cmp)), null);
    const unit = pickFullCompaction(6, levelSortedRuns([...top, file('z', 0, 2, 3)], cmp));
    assert.equal(unit?.outputLevel, 5);
    assert.equal(unit?.files.length, 3);
  });

  test('large disjoint files are upgraded unless they hold retracts; small ones are rewritten with their neighbours', () => {
    const big = file('big', 0, 50, 60, 10_000);
    const bigDel = file('bigdel', 0, 70, 80, 10_000, 3n);
    const s1 = file('s1', 0, 1, 5), s2 = file('s2', 0, 3, 9);
    const steps = planSections({ outputLevel: 5, files: [big, bigDel, s1, s2] }, cmp, { minFileSize: 700, maxLevel: 5 });
    assert.deepEqual(steps.map((s) => s.kind === 'rewrite' ? `rewrite:${s.sections.flat(2).map((f) => f.fileName).sort().join('+')}` : `${s.kind}:${s.file.fileName}`), [
      'rewrite:s1+s2', 'upgrade:big', 'rewrite-file:bigdel',
    ]);
  });

  test('level-0 runs are newest first, then one run per level', () => {
    const old = file('old', 0, 1, 2), mid = file('l2', 2, 1, 9), young = file('young', 0, 1, 2);
    assert.deepEqual(levelSortedRuns([mid, old, young], cmp).map((r) => `${r.level}:${r.files.map((f) => f.fileName).join(',')}`), ['0:young', '0:old', '2:l2']);
  });
});

describe('universal compaction picking', () => {
  const o = { maxSizeAmp: 200, sizeRatio: 1, numRunCompactionTrigger: 5 };
  const run = (level: number, size: number) => ({ level, files: [file(`f${level}-${size}-${Math.random()}`, level, 1, 2, size)] });
  test('fewer runs than the trigger: nothing', () => {
    assert.equal(pickUniversal(6, [run(0, 1), run(0, 1), run(5, 100)], o), null);
  });
  test('size amplification picks everything to the max level', () => {
    const u = pickUniversal(6, [run(0, 100), run(0, 100), run(0, 100), run(0, 100), run(5, 100)], o);
    assert.equal(u?.outputLevel, 5);
    assert.equal(u?.files.length, 5);
  });
  test('size ratio stops before a much larger run; output level is the next run level - 1', () => {
    const u = pickUniversal(6, [run(0, 1), run(0, 1), run(0, 1), run(0, 1), run(4, 1000), run(5, 100_000)], o);
    assert.equal(u?.files.length, 4);
    assert.equal(u?.outputLevel, 3);
  });
  test('createUnit never outputs to level 0', () => {
    const u = createUnit([run(0, 1), run(0, 1), run(0, 1), run(3, 1), run(5, 1)], 5, 2);
    assert.equal(u.outputLevel, 3);
    assert.equal(u.files.length, 4);
    assert.equal(createUnit([run(0, 1), run(0, 1), run(3, 1)], 5, 1).outputLevel, 5, 'all runs picked: the max level');
  });
});

describe('append planning', () => {
  test('bucketed full: needs 3 files and more small than big ones; leading big files stay', () => {
    const f = (n: string, size: number) => file(n, 0, 0, 0, size);
    assert.deepEqual(pickBucketedFull([f('a', 10), f('b', 10)], 100), []);
    assert.deepEqual(pickBucketedFull([f('big', 1000), f('a', 10), f('b', 10), f('c', 10)], 100).map((x) => x.fileName), ['a', 'b', 'c']);
    assert.deepEqual(pickBucketedMinor([f('a', 10), f('b', 10), f('c', 10), f('d', 10), f('e', 10), f('g', 10)], 100, 5).map((x) => x.fileName), ['a', 'b', 'c', 'd', 'e']);
  });
  test('unaware: small files packed; a remainder needs min-file-num files', () => {
    const files = Array.from({ length: 4 }, (_, i) => file(`s${i}`, 0, 0, 0, 10));
    assert.deepEqual(packUnaware(files, 1000, 5, 0), []);
    assert.equal(packUnaware([...files, file('s4', 0, 0, 0, 10)], 1000, 5, 0)[0].length, 5);
    assert.equal(packUnaware([...files, file('huge', 0, 0, 0, 900)], 1000, 5, 0).length, 0, 'files at 70% of target are not candidates');
  });
});

describe('k-way merge with the merge engines', () => {
  const fields: DataFieldSpec[] = [
    { id: 0, name: 'id', type: INT },
    { id: 1, name: 'a', type: { root: 'BIGINT', nullable: true } },
    { id: 2, name: 'b', type: { root: 'VARCHAR', nullable: true, length: 100 } as FieldType },
  ];
  const kv = (id: number, s: number, kind: RowKindByte, a: bigint | null, b: string | null): KeyValue => ({ key: [id], sequenceNumber: BigInt(s), valueKind: kind, value: [id, a, b] });
  async function* gen(xs: KeyValue[]): AsyncGenerator<KeyValue[]> {
    for (const x of xs) yield [x];
  }
  async function merge(options: Record<string, string>, runs: KeyValue[][], dropDelete = true): Promise<string[]> {
    const mf = createMergeFunction(fields, ['id'], options).create();
    const out: string[] = [];
    const stats = { read: 0n };
    for await (const b of mergeRuns(runs.map(gen), { keyTypes: [INT], sequenceFields: [] }, mf, { dropDelete, stats })) {
      for (const r of b) out.push(`${r.key[0]}:${r.valueKind}:${String(r.value[1])}:${String(r.value[2])}@${r.sequenceNumber}`);
    }
    return out;
  }
  const runs = (): KeyValue[][] => [
    [kv(1, 1, 0, 10n, 'x'), kv(2, 2, 0, 20n, 'y'), kv(3, 3, 0, 30n, null)],
    [kv(1, 5, 2, null, 'x2'), kv(2, 6, 3, 20n, 'y'), kv(4, 7, 0, 40n, 'z')],
    [kv(1, 9, 2, 11n, null), kv(3, 8, 1, 30n, null)],
  ];
  test('deduplicate: last wins, retracts dropped at the top level, kept below', async () => {
    assert.deepEqual(await merge({}, runs()), ['1:2:11:null@9', '4:0:40:z@7']);
    assert.deepEqual(await merge({}, runs(), false), ['1:2:11:null@9', '2:3:20:y@6', '3:1:30:null@8', '4:0:40:z@7']);
    assert.deepEqual(await merge({ 'ignore-delete': 'true' }, runs()), ['1:2:11:null@9', '2:0:20:y@2', '3:0:30:null@3', '4:0:40:z@7']);
  });
  test('first-row refuses retracts unless ignore-delete; keeps the first', async () => {
    await assert.rejects(merge({ 'merge-engine': 'first-row' }, runs()), /can not accept DELETE/);
    assert.deepEqual(await merge({ 'merge-engine': 'first-row', 'first-row.ignore-delete': 'true' }, runs()), ['1:0:10:x@1', '2:0:20:y@2', '3:0:30:null@3', '4:0:40:z@7']);
  });
  test('partial-update: non-null fields overwrite; INSERT with the last sequence', async () => {
    assert.deepEqual(await merge({ 'merge-engine': 'partial-update', 'ignore-delete': 'true' }, runs()), ['1:0:11:x2@9', '2:0:20:y@2', '3:0:30:null@3', '4:0:40:z@7']);
    // a sequence group that holds a primary key is refused (Paimon 2.0 refuses it too)
    assert.throws(() => createMergeFunction(fields, ['id'], { 'merge-engine': 'partial-update', 'fields.a.sequence-group': 'id' }), /primary key/);
  });
  test('aggregation: sum retracts; unsupported functions are named', async () => {
    assert.deepEqual(await merge({ 'merge-engine': 'aggregation', 'fields.a.aggregate-function': 'sum', 'fields.b.aggregate-function': 'last_value' }, runs(), false), [
      '1:0:21:null@9', '2:0:0:null@6', '3:0:0:null@8', '4:0:40:z@7',
    ]);
    assert.throws(() => createMergeFunction(fields, ['id'], { 'merge-engine': 'aggregation', 'fields.a.aggregate-function': 'hll_sketch' }), /hll_sketch.*not supported/);
  });
});

describe('partition and bucket arguments', () => {
  const spec = (dt: string, hh: string): [string, string][] => [['dt', dt], ['hh', hh]];
  test('partitions: , is AND, ; is OR; unknown keys refused', () => {
    const f = parsePartitionsArgument('dt=2024-01-01,hh=00;dt=2024-01-02', ['dt', 'hh']);
    assert.equal(f(spec('2024-01-01', '00')), true);
    assert.equal(f(spec('2024-01-01', '01')), false);
    assert.equal(f(spec('2024-01-02', '07')), true);
    assert.throws(() => parsePartitionsArgument('x=1', ['dt', 'hh']), /Partition keys \[x\] are invalid/);
  });
  test('where: partition columns only; =, IN, comparisons, AND/OR/NOT, IS NULL', () => {
    const f = parsePartitionPredicate("dt = '2024-01-01' AND hh IN ('00', '01') OR (dt > '2024-06-01' AND NOT hh = '23')", ['dt', 'hh']);
    assert.equal(f(spec('2024-01-01', '01')), true);
    assert.equal(f(spec('2024-01-01', '02')), false);
    assert.equal(f(spec('2024-07-01', '02')), true);
    assert.equal(f(spec('2024-07-01', '23')), false);
    assert.equal(parsePartitionPredicate('hh >= 9', ['dt', 'hh'])(spec('x', '10')), true, 'numeric comparison');
    assert.equal(parsePartitionPredicate('dt IS NULL', ['dt', 'hh'])(spec('__DEFAULT_PARTITION__', '1')), true);
    assert.throws(() => parsePartitionPredicate('id = 1', ['dt', 'hh']), /Only partition predicate is supported/);
    assert.throws(() => parsePartitionPredicate("dt = '1' AND", ['dt', 'hh']), /Invalid where/);
  });
  test('where through node-sql-parser: SQL precedence, BETWEEN, mirrored comparisons, MySQL string escapes', () => {
    const keys = ['dt', 'hh'];
    // AND before OR: (dt = 'b') OR (dt = 'a' AND hh = '1').
    const f = parsePartitionPredicate("dt = 'b' OR dt = 'a' AND hh = '1'", keys);
    assert.equal(f(spec('b', '9')), true);
    assert.equal(f(spec('a', '9')), false);
    assert.equal(f(spec('a', '1')), true);
    const g = parsePartitionPredicate("(dt = 'b' OR dt = 'a' AND hh = '1')", keys);
    assert.equal(g(spec('b', '9')), true, 'the same inside parentheses');
    assert.equal(parsePartitionPredicate('hh BETWEEN 2 AND 10', keys)(spec('x', '10')), true);
    assert.equal(parsePartitionPredicate('hh NOT BETWEEN 2 AND 10', keys)(spec('x', '10')), false);
    assert.equal(parsePartitionPredicate('5 < hh', keys)(spec('x', '6')), true, 'literal on the left');
    assert.equal(parsePartitionPredicate('5 < hh', keys)(spec('x', '4')), false);
    assert.equal(parsePartitionPredicate("dt = 'it''s'", keys)(spec("it's", '0')), true);
    assert.equal(parsePartitionPredicate("dt = 'it\\'s'", keys)(spec("it's", '0')), true);
    assert.equal(parsePartitionPredicate('dt = "q"', keys)(spec('q', '0')), true);
    assert.equal(parsePartitionPredicate("NOT (dt = 'a' OR hh = '1') AND dt <> 'c'", keys)(spec('b', '2')), true);
  });
  test('where: other SQL is NOT_SUPPORTED naming the partitions argument; statements around the predicate are refused', () => {
    const keys = ['dt', 'hh'];
    for (const text of ["dt LIKE '2024%'", "UPPER(dt) = 'A'", 'hh + 1 = 2', "dt = DATE '2024-01-01'"]) {
      assert.throws(() => parsePartitionPredicate(text, keys), (e) => isPaimonError(e, 'NOT_SUPPORTED') && /partitions argument/.test((e as Error).message), text);
    }
    for (const text of ["dt = '1' GROUP BY dt", "dt = '1' UNION SELECT * FROM x", "dt = '1'; DROP TABLE x", "dt = '1' LIMIT 1", 'dt = NULL', "t.dt = '1'", "dt = hh"]) {
      assert.throws(() => parsePartitionPredicate(text, keys), (e) => isPaimonError(e, 'INVALID_ARGUMENT'), text);
    }
  });
  test('where: nesting and length past the limits are INVALID_ARGUMENT naming the limit, not a stack overflow', () => {
    const keys = ['dt', 'hh'];
    const deep = (n: number, open: string, close: string) => `${open.repeat(n)}dt = '1'${close.repeat(n)}`;
    for (const text of [deep(10_000, '(', ')'), deep(10_000, 'NOT ', ''), Array.from({ length: 50_000 }, () => "dt = '1'").join(' AND ')]) {
      assert.throws(() => parsePartitionPredicate(text, keys), (e) => isPaimonError(e, 'INVALID_ARGUMENT') && /more than \d+/.test((e as Error).message));
    }
    // At the limits they still parse and evaluate.
    assert.equal(parsePartitionPredicate(deep(MAX_PREDICATE_DEPTH, '(', ')'), keys)(spec('1', '0')), true);
    assert.equal(parsePartitionPredicate(Array.from({ length: MAX_PREDICATE_TERMS }, () => "dt = '1'").join(' OR '), keys)(spec('1', '0')), true);
  });
  test('buckets: lists and ranges in [0, bucket)', () => {
    assert.deepEqual([...parseBucketsArgument('0,3-5', 8)].sort(), [0, 3, 4, 5]);
    assert.throws(() => parseBucketsArgument('7', 4), /out of range \[0, 4\)/);
  });
});
