import { describe, test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import type { FileIO } from '../../../../src/paimon/fs/file-io.js';
import { FileStoreCommit, checkEntryConflicts, type FileStoreCommitOptions } from '../../../../src/paimon/table/file-store-commit.js';
import { binaryFieldTypeFromSql, toBinaryRow } from '../../../../src/paimon/spec/binary-row.js';
import { EMPTY_STATS } from '../../../../src/paimon/spec/simple-stats.js';
import { newAppendFileMeta } from '../../../../src/paimon/spec/data-file-meta.js';
import { toDeleteEntry, type ManifestEntry } from '../../../../src/paimon/spec/manifest-entry.js';
import { isPaimonError } from '../../../../src/paimon/errors.js';
import type { IndexManifestEntry } from '../../../../src/paimon/table/index-manifest.js';

const STRING = binaryFieldTypeFromSql('STRING');
const BIGINT = binaryFieldTypeFromSql('BIGINT');

function entry(name: string, dt: string, rows = 10n, level = 0, keys: [bigint, bigint] | null = null, totalBuckets = 2): ManifestEntry {
  const file = newAppendFileMeta({
    fileName: name, fileSize: 100n, rowCount: rows, valueStats: EMPTY_STATS,
    minSequenceNumber: 0n, maxSequenceNumber: 9n, schemaId: 0n, level, creationTime: 1n,
  });
  if (keys) {
    file.minKey = toBinaryRow([BIGINT], [keys[0]]);
    file.maxKey = toBinaryRow([BIGINT], [keys[1]]);
  }
  return { kind: 'ADD', partition: toBinaryRow([STRING], [dt]), bucket: 0, totalBuckets, file };
}

let table = '';
const io = new LocalFileIO();

function committer(extra: Partial<FileStoreCommitOptions> = {}): FileStoreCommit {
  return new FileStoreCommit({
    fileIO: io,
    tablePath: table,
    commitUser: 'user-1',
    partitionFields: [{ name: 'dt', type: STRING }],
    keyTypes: [BIGINT],
    bucketMode: 'HASH_FIXED',
    sleep: async () => undefined,
    ...extra,
  });
}

beforeEach(() => {
  table = join(mkdtempSync(join(process.env.TEST_TMP ?? tmpdir(), 'commit-')), 't');
  mkdirSync(join(table, 'schema'), { recursive: true });
  writeFileSync(join(table, 'schema', 'schema-0'), '{}');
});

describe('FileStoreCommit', () => {
  test('first and second commits: ids, hint, base list carries the earlier manifests, counts add up', async () => {
    const c = committer();
    const r1 = await c.commit({ kind: 'APPEND', deltaEntries: [entry('a', 'x', 3n), entry('b', 'y', 4n)], commitIdentifier: 1n, watermark: 50n });
    assert.equal(r1.snapshot.id, 1);
    assert.equal(r1.snapshot.totalRecordCount, 7n);
    assert.equal(r1.snapshot.deltaRecordCount, 7n);
    assert.equal(r1.snapshot.nextRowId, 0n);
    assert.equal(r1.snapshot.changelogManifestList, undefined);
    assert.equal(readFileSync(join(table, 'snapshot', 'LATEST'), 'utf8'), '1');
    assert.deepEqual(await c.manifestList.read(r1.snapshot.baseManifestList), []);
    const delta1 = await c.manifestList.read(r1.snapshot.deltaManifestList);
    assert.equal(delta1.length, 1);
    assert.equal(BigInt(readFileSync(join(table, 'manifest', delta1[0].fileName)).length), delta1[0].fileSize);
    assert.equal(readFileSync(join(table, 'manifest', r1.snapshot.deltaManifestList)).length, r1.snapshot.deltaManifestListSize);

    const r2 = await committer().commit({ kind: 'APPEND', deltaEntries: [entry('c', 'x', 5n)], commitIdentifier: 2n, watermark: 20n, properties: {} });
    assert.equal(r2.snapshot.id, 2);
    assert.equal(r2.snapshot.totalRecordCount, 12n);
    assert.equal(r2.snapshot.watermark, 50n, 'watermark is the max of old and new');
    assert.equal(r2.snapshot.properties, undefined, 'empty properties are absent');
    const base2 = await c.manifestList.read(r2.snapshot.baseManifestList);
    assert.deepEqual(base2.map((m) => m.fileName), delta1.map((m) => m.fileName));
    const live = await c.scan.readLiveEntries(r2.snapshot);
    assert.deepEqual(live.map((e) => e.file.fileName), ['a', 'b', 'c']);
  });

  test('every new snapshot carries a uuid of its own, written after version (Paimon 2.0 Snapshot)', async () => {
    const r1 = await committer().commit({ kind: 'APPEND', deltaEntries: [entry('a', 'x')], commitIdentifier: 1n });
    const r2 = await committer().commit({ kind: 'APPEND', deltaEntries: [entry('b', 'x')], commitIdentifier: 2n });
    const json = JSON.parse(readFileSync(join(table, 'snapshot', 'snapshot-2'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json).slice(0, 3), ['version', 'uuid', 'id']);
    assert.match(String(json.uuid), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.notEqual(r1.snapshot.uuid, r2.snapshot.uuid);
    assert.equal(json.uuid, r2.snapshot.uuid);
    const old = await committer({ writerStyle: '1.4' }).commit({ kind: 'APPEND', deltaEntries: [entry('c', 'x')], commitIdentifier: 3n });
    assert.equal(old.snapshot.uuid, undefined, "the '1.4' style writes no uuid");
  });

  test('manifest.format = parquet: manifests and manifest lists are Parquet in manifest.compression, and read back', async () => {
    const c = committer({ tableOptions: { 'manifest.format': 'parquet', 'manifest.compression': 'snappy' } });
    const r = await c.commit({ kind: 'APPEND', deltaEntries: [entry('a', 'x', 3n), entry('b', 'y', 4n)], commitIdentifier: 1n });
    const delta = await c.manifestList.read(r.snapshot.deltaManifestList);
    for (const f of [r.snapshot.baseManifestList, r.snapshot.deltaManifestList, delta[0].fileName]) {
      const buf = readFileSync(join(table, 'manifest', f));
      assert.equal(buf.subarray(0, 4).toString('latin1'), 'PAR1', f);
    }
    assert.deepEqual((await c.scan.readLiveEntries(r.snapshot)).map((e) => e.file.fileName), ['a', 'b']);
    assert.throws(() => committer({ tableOptions: { 'manifest.format': 'orc' } }), (e) => isPaimonError(e, 'UNSUPPORTED_FORMAT'));
  });

  test('an empty commit still writes an empty delta list; snapshot carries index manifest and next row id', async () => {
    const c = committer();
    const idx: IndexManifestEntry = {
      kind: 'ADD', partition: toBinaryRow([STRING], ['x']), bucket: 0,
      indexFile: { indexType: 'HASH', fileName: 'index-u-0', fileSize: 4n, rowCount: 1n, dvRanges: null, externalPath: null, globalIndexMeta: null },
    };
    const r1 = await c.commit({ kind: 'APPEND', deltaEntries: [entry('a', 'x')], indexEntries: [idx], commitIdentifier: 1n });
    assert.ok(r1.snapshot.indexManifest);
    const r2 = await c.commit({ kind: 'APPEND', deltaEntries: [], commitIdentifier: 2n });
    assert.equal(r2.snapshot.indexManifest, r1.snapshot.indexManifest);
    assert.deepEqual(await c.manifestList.read(r2.snapshot.deltaManifestList), []);
    assert.equal(r2.snapshot.deltaRecordCount, 0n);
    assert.deepEqual((await c.indexManifestFile.read(r2.snapshot.indexManifest as string)).map((e) => e.indexFile.fileName), ['index-u-0']);
  });

  test('statistics are inherited only while the latest schema is the one they were computed for', async () => {
    const c = committer();
    mkdirSync(join(table, 'statistics'));
    writeFileSync(join(table, 'statistics', 'stat-1'), '{"snapshotId":1,"schemaId":0,"mergedRecordCount":1}');
    await c.commit({ kind: 'ANALYZE', deltaEntries: [], commitIdentifier: 1n, statisticsFile: 'stat-1' });
    const r2 = await c.commit({ kind: 'APPEND', deltaEntries: [entry('a', 'x')], commitIdentifier: 2n });
    assert.equal(r2.snapshot.statistics, 'stat-1');
    writeFileSync(join(table, 'schema', 'schema-1'), '{}');
    const r3 = await c.commit({ kind: 'APPEND', deltaEntries: [entry('b', 'x')], commitIdentifier: 3n });
    assert.equal(r3.snapshot.schemaId, 1);
    assert.equal(r3.snapshot.statistics, undefined);
  });

  test('an APPEND with DELETE entries is committed as OVERWRITE after checking the files are live', async () => {
    const c = committer();
    const a = entry('a', 'x');
    await c.commit({ kind: 'APPEND', deltaEntries: [a], commitIdentifier: 1n });
    const r = await c.commit({ kind: 'APPEND', deltaEntries: [toDeleteEntry(a), entry('a2', 'x')], commitIdentifier: 2n });
    assert.equal(r.snapshot.commitKind, 'OVERWRITE');
    assert.deepEqual((await c.scan.readLiveEntries(r.snapshot)).map((e) => e.file.fileName), ['a2']);
    await assert.rejects(
      c.commit({ kind: 'COMPACT', deltaEntries: [toDeleteEntry(a)], commitIdentifier: 3n }),
      (e: unknown) => isPaimonError(e, 'COMMIT_CONFLICT'),
    );
    assert.equal(await c.snapshotManager.latestSnapshotId(), 2);
  });

  test('deleting from an empty table is a conflict', async () => {
    await assert.rejects(committer().commit({ kind: 'COMPACT', deltaEntries: [toDeleteEntry(entry('a', 'x'))], commitIdentifier: 1n }), (e: unknown) => isPaimonError(e, 'COMMIT_CONFLICT'));
  });

  test('a lost race retries on the next id; the loser\'s files are removed', async () => {
    const c1 = committer();
    await c1.commit({ kind: 'APPEND', deltaEntries: [entry('a', 'x')], commitIdentifier: 1n });
    const latest = await c1.snapshotManager.latestSnapshot();
    // Two writers planned on snapshot 1; the first publishes snapshot 2.
    const won = await committer({ commitUser: 'other' }).tryCommitOnce({ kind: 'APPEND', deltaEntries: [entry('b', 'x')], commitIdentifier: 5n }, latest);
    assert.equal(won?.id, 2);
    const before = readdirSync(join(table, 'manifest')).length;
    const lost = await c1.tryCommitOnce({ kind: 'APPEND', deltaEntries: [entry('c', 'x')], commitIdentifier: 2n }, latest);
    assert.equal(lost, null, 'snapshot-2 was taken');
    assert.equal(readdirSync(join(table, 'manifest')).length, before, 'no orphan manifests from the lost attempt');
    const r = await c1.commit({ kind: 'APPEND', deltaEntries: [entry('c', 'x')], commitIdentifier: 2n });
    assert.equal(r.snapshot.id, 3);
    assert.deepEqual((await c1.scan.readLiveEntries(r.snapshot)).map((e) => e.file.fileName), ['a', 'b', 'c']);
  });

  test('a snapshot that landed although the store answered "exists" is recognised, not committed twice', async () => {
    // A store that writes the file but reports that it already existed (a lost acknowledgement).
    const liar: FileIO = Object.create(io) as FileIO;
    let lies = 1;
    liar.tryCreateAtomic = async (p, d) => {
      const ok = await io.tryCreateAtomic(p, d);
      if (ok && lies-- > 0) return false;
      return ok;
    };
    const c = committer({ fileIO: liar });
    const r = await c.commit({ kind: 'APPEND', deltaEntries: [entry('a', 'x')], commitIdentifier: 9n });
    assert.equal(r.snapshot.id, 1);
    assert.equal(r.attempts, 1);
    assert.equal(await c.snapshotManager.latestSnapshotId(), 1);
    assert.deepEqual((await c.scan.readLiveEntries(r.snapshot)).map((e) => e.file.fileName), ['a']);
  });

  test('retries are bounded by commit.max-retries', async () => {
    const full: FileIO = Object.create(io) as FileIO;
    full.tryCreateAtomic = async () => false;
    let sleeps = 0;
    const c = committer({ fileIO: full, tableOptions: { 'commit.max-retries': '2' }, sleep: async () => void sleeps++ });
    await assert.rejects(c.commit({ kind: 'APPEND', deltaEntries: [entry('a', 'x')], commitIdentifier: 1n }), (e: unknown) => isPaimonError(e, 'COMMIT_CONFLICT') && /3 attempts/.test((e as Error).message));
    assert.equal(sleeps, 2);
    assert.equal(existsSync(join(table, 'snapshot', 'snapshot-1')), false);
  });

  test('requireBase refuses a moved table', async () => {
    const c = committer();
    await c.commit({ kind: 'APPEND', deltaEntries: [entry('a', 'x')], commitIdentifier: 1n });
    await assert.rejects(
      c.commit({ kind: 'APPEND', deltaEntries: [entry('b', 'x')], commitIdentifier: 2n, baseSnapshotId: null, requireBase: true }),
      (e: unknown) => isPaimonError(e, 'COMMIT_CONFLICT') && /plan again/.test((e as Error).message),
    );
  });
});

describe('ConflictDetection', () => {
  test('level >= 1 key ranges must not overlap; level 0 may', () => {
    const base = [entry('l1a', 'x', 1n, 1, [1n, 10n])];
    assert.doesNotThrow(() => checkEntryConflicts(base, [entry('l0', 'x', 1n, 0, [5n, 6n])], 'APPEND', [BIGINT], 1));
    assert.doesNotThrow(() => checkEntryConflicts(base, [entry('l1b', 'x', 1n, 1, [11n, 20n])], 'COMPACT', [BIGINT], 1));
    assert.throws(() => checkEntryConflicts(base, [entry('l1c', 'x', 1n, 1, [10n, 20n])], 'COMPACT', [BIGINT], 1), (e: unknown) => isPaimonError(e, 'COMMIT_CONFLICT'));
  });

  test('total buckets of a partition must not change outside OVERWRITE', () => {
    const base = [entry('a', 'x', 1n, 0, null, 2)];
    assert.throws(() => checkEntryConflicts(base, [entry('b', 'x', 1n, 0, null, 4)], 'APPEND', [], 1), /Total buckets/);
    assert.doesNotThrow(() => checkEntryConflicts(base, [entry('b', 'x', 1n, 0, null, 4)], 'OVERWRITE', [], 1));
    assert.doesNotThrow(() => checkEntryConflicts(base, [entry('b', 'x', 1n, 0, null, -1)], 'APPEND', [], 1));
  });

  test('adding the same file twice in one commit is refused', () => {
    const a = entry('a', 'x');
    assert.throws(() => checkEntryConflicts([], [a, a], 'APPEND', [], 1), (e: unknown) => isPaimonError(e, 'COMMIT_CONFLICT'));
  });
});

describe('manifest merging on commit (ManifestFileMerger minor compaction)', () => {
  test('30 small manifests are merged into one; cancelled ADD/DELETE pairs disappear; live files are unchanged', async () => {
    const c = committer();
    const first = entry('f0', 'x');
    await c.commit({ kind: 'APPEND', deltaEntries: [first], commitIdentifier: 0n });
    for (let i = 1; i < 29; i++) await c.commit({ kind: 'APPEND', deltaEntries: [entry(`f${i}`, 'x')], commitIdentifier: BigInt(i) });
    const r29 = await c.commit({ kind: 'OVERWRITE', deltaEntries: [toDeleteEntry(first)], commitIdentifier: 29n });
    // Base of snapshot 30 lists 29 manifests (below the minimum of 30): not merged.
    assert.equal((await c.manifestList.read(r29.snapshot.baseManifestList)).length, 29);
    const r30 = await c.commit({ kind: 'APPEND', deltaEntries: [entry('f30', 'x')], commitIdentifier: 30n });
    const base = await c.manifestList.read(r30.snapshot.baseManifestList);
    assert.equal(base.length, 1, 'the 30 small manifests were merged');
    assert.equal(base[0].numAddedFiles, 28n, 'f0 and its DELETE cancelled out');
    assert.equal(base[0].numDeletedFiles, 0n);
    const live = await c.scan.readLiveEntries(r30.snapshot);
    assert.deepEqual(live.map((e) => e.file.fileName), [...Array.from({ length: 28 }, (_, i) => `f${i + 1}`), 'f30']);
    assert.equal(r30.snapshot.totalRecordCount, 290n);
  });
});

describe('rollbackToAsLatest (FileStoreCommitImpl.rollbackToAsLatest)', () => {
  test('commits an OVERWRITE snapshot on top whose live files are the target\'s, with the target\'s counts', async () => {
    const c = committer();
    const s1 = (await c.commit({ kind: 'APPEND', deltaEntries: [entry('a', 'x', 3n)], commitIdentifier: 1n })).snapshot;
    await c.commit({ kind: 'APPEND', deltaEntries: [entry('b', 'x', 4n)], commitIdentifier: 2n });
    const s3 = (await c.commit({ kind: 'OVERWRITE', deltaEntries: [toDeleteEntry(entry('a', 'x', 3n))], commitIdentifier: 3n })).snapshot;
    const rb = committer({ commitUser: 'rollback-user', now: () => 1234 });
    const plan = await rb.planRollbackToAsLatest(s3, s1);
    assert.equal(plan.removed, 1);
    assert.equal(plan.restored, 1);
    const r = await rb.rollbackToAsLatest(plan);
    assert.equal(r.snapshot.id, 4);
    assert.equal(r.snapshot.commitKind, 'OVERWRITE');
    assert.equal(r.snapshot.commitUser, 'rollback-user');
    assert.equal(r.snapshot.timeMillis, 1234);
    assert.equal(r.snapshot.totalRecordCount, s1.totalRecordCount);
    assert.equal(r.snapshot.deltaRecordCount, 3n - 4n);
    assert.deepEqual((await c.scan.readLiveEntries(r.snapshot)).map((e) => e.file.fileName), ['a']);
    assert.equal(readFileSync(join(table, 'snapshot', 'LATEST'), 'utf8'), '4');
  });

  test('a commit that lands after the plan is COMMIT_CONFLICT, and nothing of the rollback stays', async () => {
    const c = committer();
    const s1 = (await c.commit({ kind: 'APPEND', deltaEntries: [entry('a', 'x')], commitIdentifier: 1n })).snapshot;
    const s2 = (await c.commit({ kind: 'APPEND', deltaEntries: [entry('b', 'x')], commitIdentifier: 2n })).snapshot;
    const rb = committer({ commitUser: 'rollback-user' });
    const plan = await rb.planRollbackToAsLatest(s2, s1);
    const manifestsBefore = readdirSync(join(table, 'manifest')).sort();
    // Another writer takes snapshot 3 while the rollback writes its manifests.
    const racing = await rb.rollbackToAsLatest(plan, {
      beforePublish: () => {
        const other = readFileSync(join(table, 'snapshot', 'snapshot-2'), 'utf8').replace('"id" : 2,', '"id" : 3,');
        writeFileSync(join(table, 'snapshot', 'snapshot-3'), other);
      },
    }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(isPaimonError(racing, 'COMMIT_CONFLICT'), String(racing));
    assert.deepEqual(readdirSync(join(table, 'manifest')).sort(), manifestsBefore);
    // Planned from a snapshot that is no longer the latest: refused before writing anything.
    await assert.rejects(rb.rollbackToAsLatest(plan), (e) => isPaimonError(e, 'COMMIT_CONFLICT'));
    assert.deepEqual(readdirSync(join(table, 'manifest')).sort(), manifestsBefore);
    assert.equal(existsSync(join(table, 'snapshot', 'snapshot-4')), false);
  });
});
