/**
 * The snapshot-commit seam of FileStoreCommit (Paimon's `SnapshotCommit`): with a catalog's
 * commit the snapshot file is never written by us, "not committed" retries from the new latest
 * with the attempt's files removed, a failure keeps them (unknown outcome); and the
 * per-partition statistics a catalog commit carries (`PartitionEntry.merge` then
 * `toPartitionStatistics`).
 */
import { describe, test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { FileStoreCommit } from '../../../../src/paimon/table/file-store-commit.js';
import { partitionStatistics, type PartitionStatistics, type SnapshotCommit } from '../../../../src/paimon/catalog/snapshot-commit.js';
import { binaryFieldTypeFromSql, toBinaryRow } from '../../../../src/paimon/spec/binary-row.js';
import { EMPTY_STATS } from '../../../../src/paimon/spec/simple-stats.js';
import { newAppendFileMeta } from '../../../../src/paimon/spec/data-file-meta.js';
import { snapshotToJson, type Snapshot } from '../../../../src/paimon/spec/snapshot.js';
import type { ManifestEntry } from '../../../../src/paimon/spec/manifest-entry.js';
import { PaimonError, isPaimonError } from '../../../../src/paimon/errors.js';

const STRING = binaryFieldTypeFromSql('STRING');
const INT = binaryFieldTypeFromSql('INT');

function entry(name: string, dt: string | null, rows: bigint, kind: 'ADD' | 'DELETE' = 'ADD', size = 100n, created = 1n, totalBuckets = 2): ManifestEntry {
  const file = newAppendFileMeta({ fileName: name, fileSize: size, rowCount: rows, valueStats: EMPTY_STATS, minSequenceNumber: 0n, maxSequenceNumber: 1n, schemaId: 0n, level: 0, creationTime: created });
  return { kind, partition: toBinaryRow([STRING], [dt]), bucket: 0, totalBuckets, file };
}

/** A catalog stand-in: answers from a script; on "committed" it writes the snapshot as the catalog would. */
class ScriptedCommit implements SnapshotCommit {
  readonly wantsStatistics = true;
  calls: { snapshot: Snapshot; statistics: readonly PartitionStatistics[]; base: string | null }[] = [];
  constructor(
    private readonly table: string,
    private readonly script: Array<boolean | Error>,
    private readonly writes = true,
  ) {}
  async commit(snapshot: Snapshot, _branch: string, statistics: readonly PartitionStatistics[], base: string | null): Promise<boolean> {
    this.calls.push({ snapshot, statistics, base });
    const next = this.script.shift() ?? true;
    if (next instanceof Error) throw next;
    if (next && this.writes) {
      mkdirSync(join(this.table, 'snapshot'), { recursive: true });
      writeFileSync(join(this.table, 'snapshot', `snapshot-${snapshot.id}`), snapshotToJson(snapshot));
      writeFileSync(join(this.table, 'snapshot', 'LATEST'), String(snapshot.id));
    }
    return next;
  }
}

let table = '';
function committer(snapshotCommit?: SnapshotCommit): FileStoreCommit {
  return new FileStoreCommit({
    fileIO: new LocalFileIO(),
    tablePath: table,
    commitUser: 'u',
    partitionFields: [{ name: 'dt', type: STRING }],
    bucketMode: 'HASH_FIXED',
    sleep: async () => undefined,
    ...(snapshotCommit ? { snapshotCommit } : {}),
  });
}

beforeEach(() => {
  table = join(mkdtempSync(join(process.env.TEST_TMP ?? tmpdir(), 'snapshot-commit-')), 't');
  mkdirSync(join(table, 'schema'), { recursive: true });
  writeFileSync(join(table, 'schema', 'schema-0'), '{}');
});

describe('FileStoreCommit through a SnapshotCommit', () => {
  test('the catalog publishes: we never write the snapshot file or LATEST ourselves', async () => {
    const sc = new ScriptedCommit(table, [true], false);
    const r = await committer(sc).commit({ kind: 'APPEND', deltaEntries: [entry('a', 'x', 3n)], commitIdentifier: 1n });
    assert.equal(r.snapshot.id, 1);
    assert.equal(sc.calls.length, 1);
    assert.equal(existsSync(join(table, 'snapshot')), false, 'no snapshot directory: the catalog owns it');
  });

  test('"not committed" removes the attempt\'s files and retries on the new latest, with its uuid as base', async () => {
    const sc = new ScriptedCommit(table, [true, false, true]);
    const first = await committer(sc).commit({ kind: 'APPEND', deltaEntries: [entry('a', 'x', 3n)], commitIdentifier: 1n });
    const before = readdirSync(join(table, 'manifest')).length;
    const second = await committer(sc).commit({ kind: 'APPEND', deltaEntries: [entry('b', 'y', 4n)], commitIdentifier: 2n });
    assert.equal(second.attempts, 2);
    assert.equal(second.snapshot.id, 2);
    assert.equal(sc.calls[1]!.base, first.snapshot.uuid);
    assert.equal(sc.calls[2]!.base, first.snapshot.uuid);
    assert.equal(readdirSync(join(table, 'manifest')).length, before + 3, "the refused attempt's manifests were removed");
  });

  test('a failure keeps the files (the outcome may be unknown) and is rethrown as it is', async () => {
    const sc = new ScriptedCommit(table, [new PaimonError('STORAGE_ERROR', 'catalog down')]);
    await assert.rejects(committer(sc).commit({ kind: 'APPEND', deltaEntries: [entry('a', 'x', 3n)], commitIdentifier: 1n }), (e) => isPaimonError(e, 'STORAGE_ERROR'));
    assert.ok(readdirSync(join(table, 'manifest')).length >= 3, 'manifests kept for orphan cleaning');
    assert.equal(existsSync(join(table, 'snapshot')), false);
  });

  test('statistics are the delta per partition, as the catalog receives them', async () => {
    const sc = new ScriptedCommit(table, []);
    await committer(sc).commit({ kind: 'APPEND', deltaEntries: [entry('a', 'x', 3n, 'ADD', 10n), entry('b', 'x', 4n, 'ADD', 20n), entry('c', 'y', 5n, 'ADD', 30n)], commitIdentifier: 1n });
    const stats = [...sc.calls[0]!.statistics].sort((p, q) => p.spec.dt!.localeCompare(q.spec.dt!));
    assert.deepEqual(stats.map((s) => [s.spec, s.recordCount, s.fileSizeInBytes, s.fileCount]), [
      [{ dt: 'x' }, 7n, 30n, 2n],
      [{ dt: 'y' }, 5n, 30n, 1n],
    ]);
  });
});

describe('partitionStatistics (PartitionEntry.merge, toPartitionStatistics)', () => {
  test('ADD minus DELETE per partition; newest creation time; the default partition name for null', () => {
    const offset = (ms: number): bigint => BigInt(ms + new Date(ms).getTimezoneOffset() * 60_000);
    const stats = partitionStatistics(
      [entry('a', 'x', 10n, 'ADD', 100n, 5_000n), entry('b', 'x', 4n, 'DELETE', 40n, 9_000n), entry('c', null, 2n, 'ADD', 7n, 1_000n, 4)],
      [{ name: 'dt', type: STRING }],
    );
    assert.deepEqual(stats, [
      { spec: { dt: 'x' }, recordCount: 6n, fileSizeInBytes: 60n, fileCount: 0n, lastFileCreationTime: offset(9_000), totalBuckets: 2 },
      { spec: { dt: '__DEFAULT_PARTITION__' }, recordCount: 2n, fileSizeInBytes: 7n, fileCount: 1n, lastFileCreationTime: offset(1_000), totalBuckets: 4 },
    ]);
    assert.deepEqual(partitionStatistics([], [{ name: 'p', type: INT }]), []);
  });
});
