/**
 * The pure parts of mark_partition_done: the action list as CoreOptions parses it, the
 * `partitions` argument as ParameterUtils and PartitionPathUtils make paths of it (plus our
 * stricter key checks), SuccessFile's JSON and the http-report body.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPaimonError } from '../../../../src/paimon/errors.js';
import { httpReportBody, parseMarkDoneActions, parsePartitionPaths, successFileJson } from '../../../../src/paimon/partitions/partition-mark-done.js';

const invalid = (e: unknown): boolean => isPaimonError(e, 'INVALID_ARGUMENT');

test('actions: case-insensitive names with - or _, in order, once; no trimming', () => {
  assert.deepEqual(parseMarkDoneActions('success-file'), ['success-file']);
  assert.deepEqual(parseMarkDoneActions('HTTP_REPORT,success-file,http-report'), ['http-report', 'success-file']);
  assert.deepEqual(parseMarkDoneActions('done-partition,mark-event,custom'), ['done-partition', 'mark-event', 'custom']);
  assert.throws(() => parseMarkDoneActions('success-file, http-report'), invalid);
  assert.throws(() => parseMarkDoneActions('touch'), invalid);
});

test('partitions: ; between specs, , between pairs, trimmed, in partition-key order, escaped, trailing /', () => {
  const keys = ['dt', 'hour'];
  assert.deepEqual(
    parsePartitionPaths(' hour = 01 , dt=2024-01-01;dt=2024-01-02;', keys).map((p) => p.path),
    ['dt=2024-01-01/hour=01/', 'dt=2024-01-02/'],
  );
  assert.deepEqual(parsePartitionPaths('dt=a/b:c', keys).map((p) => p.path), ['dt=a%2Fb%3Ac/']);
  assert.deepEqual(parsePartitionPaths('dt=x,dt=y', keys).map((p) => p.path), ['dt=y/'], 'the last value of a key wins (HashMap.put)');
});

test('partitions: unknown keys, a non-leading key set, empty specs, empty values and no = are refused', () => {
  const keys = ['dt', 'hour'];
  for (const bad of ['dtt=1', 'hour=01', ';dt=1', '', 'dt', 'dt=', 'dt=1,,hour=2']) assert.throws(() => parsePartitionPaths(bad, keys), invalid, bad);
  assert.throws(() => parsePartitionPaths('dt=1', []), invalid);
});

test("SuccessFile JSON is Jackson's pretty layout", () => {
  assert.equal(successFileJson(1700000000000, 1700000000123), '{\n  "creationTime" : 1700000000000,\n  "modificationTime" : 1700000000123\n}');
});

test('http-report body: params, table, path, partition (null params kept)', () => {
  assert.equal(httpReportBody(null, 'db.t', '/wh/db.db/t', 'dt=1/'), '{"params":null,"table":"db.t","path":"/wh/db.db/t","partition":"dt=1/"}');
});
