import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  applyWriterStyle,
  parseSnapshot,
  snapshotToJson,
  BATCH_COMMIT_IDENTIFIER,
  type Snapshot,
} from '../../../../src/paimon/spec/snapshot.js';
import { isPaimonError } from '../../../../src/paimon/errors.js';

// Text of a snapshot as Paimon 1.4 writes it (layout of docs/content/concepts/spec/snapshot.md and
// the key set of Snapshot.java at release-1.4.2: NON_NULL keys absent, nextRowId present).
const JAVA_14 = `{
  "version" : 3,
  "id" : 2,
  "schemaId" : 0,
  "baseManifestList" : "manifest-list-3f1c0e1e-2a07-4b8e-9bcd-3c1a8f5d21aa-0",
  "baseManifestListSize" : 1045,
  "deltaManifestList" : "manifest-list-3f1c0e1e-2a07-4b8e-9bcd-3c1a8f5d21aa-1",
  "deltaManifestListSize" : 1051,
  "commitUser" : "7d758485-981d-4b1a-a0c6-d34c3eb254bf",
  "commitIdentifier" : 9223372036854775807,
  "commitKind" : "APPEND",
  "timeMillis" : 1720496663041,
  "totalRecordCount" : 12,
  "deltaRecordCount" : 2,
  "nextRowId" : 0
}`;

// 1.0-1.3 key set: changelogManifestList null, logOffsets { }, changelogRecordCount 0; plus a
// Flink watermark of Long.MIN_VALUE.
const JAVA_13 = `{
  "version" : 3,
  "id" : 7,
  "schemaId" : 1,
  "baseManifestList" : "manifest-list-a-0",
  "baseManifestListSize" : 900,
  "deltaManifestList" : "manifest-list-a-1",
  "deltaManifestListSize" : 901,
  "changelogManifestList" : null,
  "commitUser" : "u",
  "commitIdentifier" : 42,
  "commitKind" : "COMPACT",
  "timeMillis" : 1720496663041,
  "logOffsets" : { },
  "totalRecordCount" : 9007199254740993,
  "deltaRecordCount" : -3,
  "changelogRecordCount" : 0,
  "watermark" : -9223372036854775808,
  "nextRowId" : 0
}`;

describe('Snapshot JSON', () => {
  test('reads a 1.4 snapshot with exact 64-bit values and re-writes it byte for byte', () => {
    const s = parseSnapshot(JAVA_14);
    assert.equal(s.id, 2);
    assert.equal(s.commitIdentifier, BATCH_COMMIT_IDENTIFIER);
    assert.equal(s.baseManifestListSize, 1045);
    assert.equal(s.changelogManifestList, undefined);
    assert.equal(s.nextRowId, 0n);
    assert.equal(snapshotToJson(s), JAVA_14);
  });

  test('reads a 1.3 snapshot (null changelog list, logOffsets, MIN watermark) and re-writes it byte for byte', () => {
    const s = parseSnapshot(JAVA_13);
    assert.equal(s.changelogManifestList, null);
    assert.deepEqual(s.logOffsets, {});
    assert.equal(s.watermark, -9223372036854775808n);
    assert.equal(s.totalRecordCount, 9007199254740993n);
    assert.equal(s.deltaRecordCount, -3n);
    assert.equal(snapshotToJson(s), JAVA_13);
  });

  test('unknown keys survive a round trip after the known ones (2.0 files read by a 1.4-era writer)', () => {
    const text = JAVA_14.replace('"version" : 3,', '"version" : 3,\n  "futureKey" : [ 1 ],');
    const s = parseSnapshot(text);
    assert.deepEqual(s.extra, { futureKey: [1] });
    assert.ok(snapshotToJson(s).endsWith('"nextRowId" : 0,\n  "futureKey" : [ 1 ]\n}'));
  });

  test('2.0 keys uuid and operation are placed where Java puts them', () => {
    const base = parseSnapshot(JAVA_14);
    const s: Snapshot = { ...applyWriterStyle(base, '2.0', 'c0ffee00-0000-4000-8000-000000000000'), operation: 'WRITE' };
    const text = snapshotToJson(s);
    assert.ok(text.startsWith('{\n  "version" : 3,\n  "uuid" : "c0ffee00-0000-4000-8000-000000000000",\n  "id" : 2,'));
    assert.ok(text.endsWith('"nextRowId" : 0,\n  "operation" : "WRITE"\n}'));
  });

  test('writer styles: 1.3 adds the always-written keys, 1.4 drops them', () => {
    const s14 = parseSnapshot(JAVA_14);
    const as13 = snapshotToJson(applyWriterStyle(s14, '1.3'));
    assert.match(as13, /"changelogManifestList" : null,/);
    assert.match(as13, /"logOffsets" : \{ \},/);
    assert.match(as13, /"changelogRecordCount" : 0,/);
    const back = snapshotToJson(applyWriterStyle(parseSnapshot(as13), '1.4'));
    assert.equal(back, JAVA_14);
  });

  test('missing required keys and bad commit kinds are CORRUPT_METADATA', () => {
    assert.throws(() => parseSnapshot(JAVA_14.replace(/ {2}"commitUser".*\n/, ''), 'snap'), (e) =>
      isPaimonError(e, 'CORRUPT_METADATA') && /commitUser/.test(e.message),
    );
    assert.throws(() => parseSnapshot(JAVA_14.replace('"APPEND"', '"UPSERT"')), (e) => isPaimonError(e, 'CORRUPT_METADATA'));
  });
});
