/**
 * Pure planning of postpone-bucket compaction with plain data: bucket counts per partition
 * (known buckets, then row counts, then the default), the affected partitions, the replay order
 * of postpone files, writer prefixes, bucket keys, sequence numbers and the refusals.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { isPaimonError } from '../../../../src/paimon/errors.js';
import { binaryFieldTypeFromSql, toBinaryRow } from '../../../../src/paimon/spec/binary-row.js';
import { newAppendFileMeta, type DataFileMeta } from '../../../../src/paimon/spec/data-file-meta.js';
import { EMPTY_STATS } from '../../../../src/paimon/spec/simple-stats.js';
import type { ManifestEntry } from '../../../../src/paimon/spec/manifest-entry.js';
import type { TableSchema } from '../../../../src/paimon/spec/table-schema.js';
import { parseDataField } from '../../../../src/paimon/data/field-type.js';
import {
  checkPostponeCompactable,
  computeBucketNumByRowCount,
  determineBucketNum,
  nextSequenceNumber,
  orderPostponeFiles,
  planPostponeCompaction,
  postponeBucketAssigner,
  postponeBucketKey,
  postponeWriterPrefix,
} from '../../../../src/paimon/compact/postpone-compaction.js';

const DATE = binaryFieldTypeFromSql('DATE');
const part = (day: number) => toBinaryRow([DATE], [day]);

function file(name: string, o: { rows?: bigint; level?: number; created?: bigint; maxSeq?: bigint } = {}): DataFileMeta {
  return newAppendFileMeta({
    fileName: name, fileSize: 100n, rowCount: o.rows ?? 1n, valueStats: EMPTY_STATS, minSequenceNumber: 0n,
    maxSequenceNumber: o.maxSeq ?? 0n, schemaId: 0n, level: o.level ?? 0, creationTime: o.created ?? 0n,
  });
}

function entry(day: number, bucket: number, totalBuckets: number, f: DataFileMeta): ManifestEntry {
  return { kind: 'ADD', partition: part(day), bucket, totalBuckets, file: f };
}

const pp = (day: number, name: string, o: Parameters<typeof file>[1] = {}) => entry(day, -2, -2, file(`data-u-a-s-0-w-${name}.avro`, o));

const isCode = (code: string) => (e: unknown) => isPaimonError(e) && e.code === code;

describe('postpone bucket count per partition (PostponeUtils.determineBucketNum)', () => {
  test('row counts give ceil(rows / target) buckets, at least one', () => {
    assert.equal(computeBucketNumByRowCount(0n, 10n), 1);
    assert.equal(computeBucketNumByRowCount(10n, 10n), 1);
    assert.equal(computeBucketNumByRowCount(11n, 10n), 2);
    assert.equal(computeBucketNumByRowCount(95n, 10n), 10);
    assert.throws(() => computeBucketNumByRowCount(5n, 0n), isCode('INVALID_ARGUMENT'));
    assert.throws(() => computeBucketNumByRowCount(1n << 40n, 1n), isCode('INVALID_ARGUMENT'));
  });

  test('a partition with real buckets keeps their count; others take the row-count target, else the default', () => {
    const live = [entry(1, 0, 3, file('r0.parquet')), entry(1, 2, 3, file('r2.parquet')), pp(1, 'a', { rows: 50n }), pp(2, 'b', { rows: 25n }), pp(2, 'c', { rows: 6n }), pp(3, 'd')];
    const byDefault = postponeBucketAssigner(live, {});
    assert.equal(determineBucketNum(part(1).key(), byDefault), 3);
    assert.equal(determineBucketNum(part(2).key(), byDefault), 1, 'postpone.default-bucket-num defaults to 1 (Flink reads the option with its default)');
    const withDefault = postponeBucketAssigner(live, { 'postpone.default-bucket-num': '4' });
    assert.equal(determineBucketNum(part(2).key(), withDefault), 4);
    assert.equal(determineBucketNum(part(1).key(), withDefault), 3, 'known buckets win over the default');
    const byRows = postponeBucketAssigner(live, { 'postpone.default-bucket-num': '4', 'postpone.target-row-num-per-bucket': '10' });
    assert.equal(determineBucketNum(part(2).key(), byRows), 4, '31 rows / 10 per bucket');
    assert.equal(determineBucketNum(part(3).key(), byRows), 1);
    assert.equal(determineBucketNum(part(1).key(), byRows), 3, 'known buckets win over the row count');
  });

  test('real-bucket files of one partition with different totalBuckets, or bad options, are errors', () => {
    assert.throws(() => postponeBucketAssigner([entry(1, 0, 3, file('a')), entry(1, 1, 4, file('b'))], {}), isCode('CORRUPT_METADATA'));
    assert.throws(() => postponeBucketAssigner([], { 'postpone.default-bucket-num': '0' }), isCode('INVALID_ARGUMENT'));
    assert.throws(() => postponeBucketAssigner([], { 'postpone.target-row-num-per-bucket': '-3' }), isCode('INVALID_ARGUMENT'));
    assert.throws(() => postponeBucketAssigner([], { 'postpone.target-row-num-per-bucket': 'many' }), isCode('INVALID_ARGUMENT'));
  });
});

describe('affected partitions and replay order', () => {
  test('partitions with postpone files or real level-0 files are planned; a fully compacted partition is not', () => {
    const live = [
      entry(1, 0, 2, file('r1', { level: 5 })),
      entry(2, 1, 2, file('r2', { level: 0 })),
      entry(2, 0, 2, file('r3', { level: 5 })),
      pp(3, 'x'),
      entry(4, 0, 1, file('r4', { level: 5 })),
      pp(4, 'y'),
    ];
    const plan = planPostponeCompaction(live, postponeBucketAssigner(live, { 'postpone.default-bucket-num': '5' }));
    assert.deepEqual(plan.map((p) => [p.partition.key(), p.numBuckets, p.postpone.length, [...p.real.keys()].sort()]), [
      [part(2).key(), 2, 0, [0, 1]],
      [part(3).key(), 5, 1, []],
      [part(4).key(), 1, 1, [0]],
    ]);
  });

  test('postpone files replay by creation time; equal times keep manifest order', () => {
    const list = [pp(1, 'c', { created: 30n }), pp(1, 'a', { created: 10n }), pp(1, 'b2', { created: 20n }), pp(1, 'b1', { created: 20n })];
    assert.deepEqual(orderPostponeFiles(list).map((e) => e.file.fileName), ['a', 'b2', 'b1', 'c'].map((n) => `data-u-a-s-0-w-${n}.avro`));
  });

  test("a writer's prefix ends at its '-w-' (PostponeBucketFileStoreWrite.getWriterPrefix)", () => {
    assert.equal(postponeWriterPrefix('data-u-9f1c-s-3-w-0a1b-0.avro'), 'data-u-9f1c-s-3-w-');
    assert.throws(() => postponeWriterPrefix('data-0a1b-0.parquet'), isCode('CORRUPT_METADATA'));
  });

  test('new records of a bucket are numbered after its highest sequence number', () => {
    assert.equal(nextSequenceNumber([]), 0n);
    assert.equal(nextSequenceNumber([file('a', { maxSeq: 7n }), file('b', { maxSeq: 41n })]), 42n);
  });
});

describe('bucket key and refusals', () => {
  const schema = {
    id: 0, fields: [{ id: 0, name: 'id', type: 'INT NOT NULL' }, { id: 1, name: 'dt', type: 'DATE NOT NULL' }, { id: 2, name: 'k2', type: 'STRING NOT NULL' }, { id: 3, name: 'v', type: 'STRING' }],
    primaryKeys: ['dt', 'id', 'k2'], partitionKeys: ['dt'], options: { bucket: '-2' },
  } as unknown as TableSchema;
  const fields = schema.fields.map((f) => parseDataField(f));

  test('the bucket key is the trimmed primary key unless bucket-key names a part of it', () => {
    const trimmed = postponeBucketKey(schema, fields, {}, 'db.t');
    assert.deepEqual(trimmed.indexes, [0, 2]);
    assert.deepEqual(postponeBucketKey(schema, fields, { 'bucket-key': 'k2' }, 'db.t').indexes, [2]);
    assert.throws(() => postponeBucketKey(schema, fields, { 'bucket-key': 'v' }, 'db.t'), isCode('CORRUPT_METADATA'));
  });

  test('filters, buckets and lookup-dependent tables are refused, naming Flink where the table is the reason', () => {
    const o = { table: 'db.t', partitionFilter: null, buckets: null, partitionIdleTimeMs: null };
    checkPostponeCompactable(o, schema, {});
    assert.throws(() => checkPostponeCompactable({ ...o, partitionFilter: () => true }, schema, {}), isCode('NOT_SUPPORTED'));
    assert.throws(() => checkPostponeCompactable({ ...o, buckets: new Set([1]) }, schema, {}), isCode('NOT_SUPPORTED'));
    assert.throws(() => checkPostponeCompactable({ ...o, partitionIdleTimeMs: 1000 }, schema, {}), isCode('NOT_SUPPORTED'));
    const refused: Record<string, string>[] = [{ 'deletion-vectors.enabled': 'true' }, { 'merge-engine': 'first-row' }, { 'changelog-producer': 'input' }, { 'bucket-function.type': 'mod' }, { 'compaction.force-up-level-0': 'true' }];
    for (const opts of refused) {
      assert.throws(() => checkPostponeCompactable(o, schema, opts), (e: unknown) => isPaimonError(e) && e.code === 'UNSUPPORTED_TABLE' && /Flink CALL sys\.compact/.test(e.message), JSON.stringify(opts));
    }
  });
});
