import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isPaimonError } from '../../../../src/paimon/errors.js';
import { isProcedureError } from '../../../../procedures/framework/errors.js';
import { expireSettings } from '../../../../procedures/snapshots/expire-snapshots.js';
import { orphanCutoff } from '../../../../procedures/files/remove-orphan-files.js';
import { rollbackTarget } from '../../../../procedures/snapshots/rollback-to.js';
import { compactIdRanges } from '../../../../procedures/framework/file-deleter.js';
import { parseDurationMillis, parseOptions, parseTimestampMillis } from '../../../../procedures/framework/time-args.js';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
const base = { table: 't', retain_max: null, retain_min: null, older_than: null, max_deletes: null, options: null, dry_run: false };

describe('expire_snapshots settings (ProcedureUtils.fillInSnapshotOptions)', () => {
  test('defaults come from the table options, then Paimon defaults', () => {
    const s = expireSettings(base, {}, NOW);
    assert.deepEqual([s.retainMax, s.retainMin, s.maxDeletes, s.olderThanMillis], [2147483647, 10, 50, NOW - 3_600_000]);
    const t = expireSettings(base, { 'snapshot.num-retained.min': '3', 'snapshot.time-retained': '2 h', 'snapshot.expire.limit': '7' }, NOW);
    assert.deepEqual([t.retainMin, t.maxDeletes, t.olderThanMillis], [3, 7, NOW - 7_200_000]);
  });
  test('arguments beat dynamic options, which beat table options', () => {
    const s = expireSettings({ ...base, retain_min: 2, options: 'snapshot.num-retained.min=5,snapshot.expire.limit=1' }, { 'snapshot.num-retained.min': '9' }, NOW);
    assert.equal(s.retainMin, 2);
    assert.equal(s.maxDeletes, 1);
  });
  test('an older_than in the future is refused', () => {
    assert.throws(() => expireSettings({ ...base, older_than: String(NOW + 1000) }, {}, NOW), (e) => isPaimonError(e, 'INVALID_ARGUMENT'));
  });
  test('changelog options that keep more than the snapshots mean a decoupled changelog', () => {
    assert.equal(expireSettings(base, { 'changelog.num-retained.max': '100', 'snapshot.num-retained.max': '20' }, NOW).changelogDecoupled, true);
    assert.equal(expireSettings(base, {}, NOW).changelogDecoupled, false);
    assert.equal(expireSettings(base, { 'changelog-producer': 'lookup' }, NOW).produceChangelog, true);
  });
});

describe('remove_orphan_files cutoff', () => {
  const floor = 3_600_000;
  test('default is one day ago', () => {
    assert.equal(orphanCutoff({ older_than: null, force: false }, NOW, floor), NOW - 86_400_000);
  });
  test('younger than the floor is UNSAFE_ARGUMENT unless forced; the future is always refused', () => {
    const tenMin = String(NOW - 600_000);
    assert.throws(() => orphanCutoff({ older_than: tenMin, force: false }, NOW, floor), (e) => isProcedureError(e, 'UNSAFE_ARGUMENT'));
    assert.equal(orphanCutoff({ older_than: tenMin, force: true }, NOW, floor), NOW - 600_000);
    assert.throws(() => orphanCutoff({ older_than: String(NOW + 1), force: true }, NOW, floor), /older_than '\d+' must be earlier than now/);
  });
});

describe('rollback arguments', () => {
  test("Spark's version: digits are a snapshot, anything else a tag", () => {
    assert.deepEqual(rollbackTarget({ version: '12', snapshot: null, tag: null }), { kind: 'snapshot', id: 12 });
    assert.deepEqual(rollbackTarget({ version: 'v1', snapshot: null, tag: null }), { kind: 'tag', name: 'v1' });
    assert.deepEqual(rollbackTarget({ snapshot: 5n, tag: null }), { kind: 'snapshot', id: 5 });
    assert.deepEqual(rollbackTarget({ snapshot: null, tag: '123' }), { kind: 'tag', name: '123' });
  });
  test('a snapshot id past 2^53 is refused with its exact digits, by version or by snapshot id', () => {
    for (const args of [{ version: '9223372036854775807', snapshot: null, tag: null }, { snapshot: 9223372036854775807n, tag: null }]) {
      assert.throws(
        () => rollbackTarget(args),
        (e) => isPaimonError(e, 'INVALID_ARGUMENT') && (e as Error).message.includes('9223372036854775807'),
      );
    }
    assert.deepEqual(rollbackTarget({ version: '9007199254740991', snapshot: null, tag: null }), { kind: 'snapshot', id: 9007199254740991 });
  });
  test('exactly one target', () => {
    for (const bad of [{ snapshot: null, tag: null }, { snapshot: 1n, tag: 'x' }, { version: '1', snapshot: 1n, tag: null }, { snapshot: 0n, tag: null }]) {
      assert.throws(() => rollbackTarget(bad), (e) => isPaimonError(e, 'INVALID_ARGUMENT'));
    }
  });
});

describe('argument parsing helpers', () => {
  test('timestamps: local time, explicit offset, epoch millis', () => {
    assert.equal(parseTimestampMillis('2024-01-02 03:04:05.678Z', 'x'), Date.UTC(2024, 0, 2, 3, 4, 5, 678));
    assert.equal(parseTimestampMillis('2024-01-02T03:04:05+02:00', 'x'), Date.UTC(2024, 0, 2, 1, 4, 5));
    assert.equal(parseTimestampMillis('2024-01-02', 'x'), new Date(2024, 0, 2).getTime());
    assert.equal(parseTimestampMillis('1700000000000', 'x'), 1_700_000_000_000);
    assert.equal(parseTimestampMillis('9007199254740991', 'x'), Number.MAX_SAFE_INTEGER);
    assert.throws(() => parseTimestampMillis('9007199254740993', 'older_than'), /older_than 9007199254740993 is past the largest/, 'refused as written, not rounded');
    assert.throws(() => parseTimestampMillis('yesterday', 'older_than'), /older_than 'yesterday' is not a timestamp/);
    assert.throws(() => parseTimestampMillis('2024-13-01', 'x'), /not a valid date/);
  });
  test('durations and options', () => {
    assert.equal(parseDurationMillis('1 h', 'd'), 3_600_000);
    assert.equal(parseDurationMillis('30min', 'd'), 1_800_000);
    assert.throws(() => parseDurationMillis('3 fortnights', 'd'), /unknown time unit/);
    assert.deepEqual(parseOptions('a=1, b = 2'), { a: '1', b: '2' });
    assert.throws(() => parseOptions('a'), /not key=value/);
  });
  test('id ranges', () => {
    assert.equal(compactIdRanges([5, 1, 2, 3, 7, 8]), '1-3,5,7-8');
    assert.equal(compactIdRanges([]), '');
  });
});
