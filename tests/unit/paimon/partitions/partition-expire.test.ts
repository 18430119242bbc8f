/**
 * The pure parts of partition expiration: the settings from options (what Java refuses), the
 * partition entries of a snapshot's entries, the strategies (values-time with skips, update-time),
 * Paimon's order and limit, batches, and the overwrite changes of a drop.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toBinaryRow, type BinaryFieldType } from '../../../../src/paimon/spec/binary-row.js';
import type { ManifestEntry } from '../../../../src/paimon/spec/manifest-entry.js';
import type { DataFileMeta } from '../../../../src/paimon/spec/data-file-meta.js';
import { isPaimonError } from '../../../../src/paimon/errors.js';
import {
  dropPartitionChanges,
  expireBatches,
  formatExpiredPartition,
  localWallMillis,
  partitionEntriesOf,
  partitionExpireSettings,
  selectExpiredPartitions,
} from '../../../../src/paimon/partitions/partition-expire.js';

const STR: BinaryFieldType = { root: 'VARCHAR' };
const FIELDS = [{ name: 'dt', type: STR }, { name: 'hour', type: STR }];

function entry(kind: 'ADD' | 'DELETE', dt: string | null, hour: string | null, name: string, creationWall: number, bucket = 0): ManifestEntry {
  const file = { fileName: name, fileSize: 100n, rowCount: 10n, creationTime: BigInt(creationWall) } as unknown as DataFileMeta;
  return { kind, partition: toBinaryRow([STR, STR], [dt, hour]), bucket, totalBuckets: 1, file };
}

test('settings: no expiration time, no partition keys, bad strategy, max below 1 and chain tables are refused', () => {
  const refused = (o: Record<string, string>, keys: string[], code = 'INVALID_ARGUMENT'): void => {
    assert.throws(() => partitionExpireSettings(o, keys), (e: unknown) => isPaimonError(e) && e.code === code);
  };
  refused({}, ['dt']);
  refused({ 'partition.expiration-time': '1 d' }, []);
  refused({ 'partition.expiration-time': '1 d', 'partition.expiration-strategy': 'Values-Time' }, ['dt']);
  refused({ 'partition.expiration-time': '1 d', 'partition.expiration-max-num': '0' }, ['dt']);
  refused({ 'partition.expiration-time': '1 d', 'chain-table.enabled': 'true' }, ['dt'], 'UNSUPPORTED_TABLE');
  const s = partitionExpireSettings({ 'partition.expiration-time': '2 h' }, ['dt']);
  assert.deepEqual(
    [s.expirationMs, s.strategy, s.maxExpires, s.batchSize, s.defaultPartitionName, s.timestampFormatter, s.timestampPattern],
    [7_200_000, 'values-time', 100, 100, '__DEFAULT_PARTITION__', null, null],
  );
  // The batch size defaults to the max number (one commit), as CoreOptions.partitionExpireBatchSize.
  assert.equal(partitionExpireSettings({ 'partition.expiration-time': '1 d', 'partition.expiration-max-num': '7' }, ['dt']).batchSize, 7);
});

test('partition entries: ADD/DELETE counted, the largest creation time over all entries, empty partitions dropped', () => {
  const es = [
    entry('ADD', 'a', '1', 'f1', 100),
    entry('ADD', 'a', '1', 'f2', 300),
    entry('DELETE', 'a', '1', 'f2', 300),
    entry('ADD', 'b', '1', 'f3', 50),
    entry('DELETE', 'b', '1', 'f3', 50),
  ];
  const p = partitionEntriesOf(es);
  assert.equal(p.length, 1);
  assert.deepEqual([p[0].fileCount, p[0].recordCount, p[0].lastFileCreationWallMs], [1, 10n, 300]);
});

test('values-time: sorted by the joined values, NULL and unparseable values skipped, at most max', () => {
  const now = Date.UTC(2024, 0, 10, 12);
  const es = partitionEntriesOf([
    entry('ADD', '2024-01-02', '05', 'x1', 0),
    entry('ADD', '2024-01-01', '23', 'x2', 0),
    entry('ADD', '2024-01-01', null, 'x3', 0),
    entry('ADD', 'garbage', '00', 'x4', 0),
    entry('ADD', '2024-01-09', '23', 'x5', 0),
    entry('ADD', '2024-01-01', '07', 'x6', 0),
  ]);
  const s = partitionExpireSettings({ 'partition.expiration-time': '3 d', 'partition.timestamp-pattern': '$dt $hour:00:00', 'partition.expiration-max-num': '2' }, ['dt', 'hour']);
  const r = selectExpiredPartitions(es, FIELDS, s, now);
  assert.deepEqual(r.expired.map((x) => formatExpiredPartition(x.spec)), ['dt=2024-01-01, hour=07', 'dt=2024-01-01, hour=23']);
  assert.deepEqual(r.skipped.map((x) => [formatExpiredPartition(x.spec), x.reason]).sort(), [
    ['dt=2024-01-01, hour=__DEFAULT_PARTITION__', 'null-value'],
    ['dt=garbage, hour=00', 'unparseable'],
  ]);
});

test('update-time: by the last file creation time, NULL partitions included as the default name', () => {
  const nowEpoch = Date.UTC(2024, 0, 10, 12);
  const wall = localWallMillis(nowEpoch);
  const es = partitionEntriesOf([
    entry('ADD', null, null, 'old', wall - 10 * 86_400_000),
    entry('ADD', 'b', '1', 'new', wall - 1000),
    entry('ADD', 'c', '1', 'mixed-old', wall - 10 * 86_400_000),
    entry('ADD', 'c', '1', 'mixed-new', wall - 1000),
  ]);
  const s = partitionExpireSettings({ 'partition.expiration-time': '1 d', 'partition.expiration-strategy': 'update-time' }, ['dt', 'hour']);
  const r = selectExpiredPartitions(es, FIELDS, s, nowEpoch);
  assert.deepEqual(r.expired.map((x) => formatExpiredPartition(x.spec)), ['dt=__DEFAULT_PARTITION__, hour=__DEFAULT_PARTITION__']);
  assert.equal(r.expired[0].partition.isNullAt(0), true);
});

test('batches follow Lists.partition only when smaller than the count', () => {
  assert.deepEqual(expireBatches([1, 2, 3], 100), [[1, 2, 3]]);
  assert.deepEqual(expireBatches([1, 2, 3], 2), [[1, 2], [3]]);
  assert.deepEqual(expireBatches([1, 2, 3], 0), [[1, 2, 3]]);
  assert.deepEqual(expireBatches([], 2), []);
});

test('the drop deletes every live file of the partitions in buckets >= 0 (all for a postpone table) and their index files', () => {
  const live = [entry('ADD', 'a', '1', 'f1', 0), entry('ADD', 'a', '1', 'p1', 0, -2), entry('ADD', 'b', '1', 'f2', 0)];
  const keys = new Set([live[0].partition.key()]);
  const index = [{ kind: 'ADD' as const, partition: live[0].partition, bucket: 0, indexFile: { indexType: 'DELETION_VECTORS', fileName: 'i1', fileSize: 1n, rowCount: 1n, dvRanges: null, externalPath: null, globalIndexMeta: null } }];
  const c = dropPartitionChanges(live, index, keys, 2);
  assert.deepEqual(c.deltaEntries.map((e) => [e.kind, e.file.fileName]), [['DELETE', 'f1']]);
  assert.deepEqual(c.indexEntries.map((e) => [e.kind, e.indexFile.fileName]), [['DELETE', 'i1']]);
  assert.deepEqual(dropPartitionChanges(live, [], keys, -2).deltaEntries.map((e) => e.file.fileName), ['f1', 'p1']);
});
