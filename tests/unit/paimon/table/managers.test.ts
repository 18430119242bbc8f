/**
 * Snapshot, tag, consumer, changelog and branch managers on a local table directory laid out
 * the way Paimon Java lays it out (file names, hint files, temp-file names).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { SnapshotManager } from '../../../../src/paimon/table/snapshot-manager.js';
import { TagManager } from '../../../../src/paimon/table/tag-manager.js';
import { ConsumerManager } from '../../../../src/paimon/table/consumer-manager.js';
import { ChangelogManager } from '../../../../src/paimon/table/changelog-manager.js';
import { BranchManager } from '../../../../src/paimon/table/branch-manager.js';
import { SchemaManager } from '../../../../src/paimon/table/schema-manager.js';
import { snapshotToJson, type Snapshot } from '../../../../src/paimon/spec/snapshot.js';
import { durationFromMillis, durationToJson, tagToJson, localDateTimeToString, tagExpireTimeMillis } from '../../../../src/paimon/spec/tag.js';
import { isPaimonError } from '../../../../src/paimon/errors.js';
import { DataTypes } from '../../../../src/paimon/spec/data-types.js';

let root: string;
const io = new LocalFileIO();

function snap(id: number, timeMillis = 1000 * id, extra: Partial<Snapshot> = {}): Snapshot {
  return {
    version: 3,
    id,
    schemaId: 0,
    baseManifestList: `manifest-list-u-${2 * id}`,
    deltaManifestList: `manifest-list-u-${2 * id + 1}`,
    commitUser: 'user-a',
    commitIdentifier: 9223372036854775807n,
    commitKind: 'APPEND',
    timeMillis,
    totalRecordCount: BigInt(id),
    deltaRecordCount: 1n,
    ...extra,
  };
}

async function table(name: string, ids: number[], hints: { LATEST?: string; EARLIEST?: string } = {}): Promise<string> {
  const t = path.join(root, name);
  await mkdir(path.join(t, 'snapshot'), { recursive: true });
  for (const id of ids) await writeFile(path.join(t, 'snapshot', `snapshot-${id}`), snapshotToJson(snap(id)));
  for (const [k, v] of Object.entries(hints)) await writeFile(path.join(t, 'snapshot', k), v);
  return t;
}

before(async () => {
  root = await mkdtemp(path.join(process.env.TEST_TMP ?? tmpdir(), 'managers-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('SnapshotManager: EARLIEST/LATEST as Java reads them', () => {
  test('LATEST is trusted only when snapshot-(N+1) does not exist', async () => {
    const sm = new SnapshotManager(io, await table('t1', [3, 4, 5, 6], { LATEST: '5', EARLIEST: '3' }));
    assert.equal(await sm.latestSnapshotId(), 6);
    const sm2 = new SnapshotManager(io, await table('t2', [3, 4, 5], { LATEST: '4' }));
    assert.equal(await sm2.latestSnapshotId(), 5);
    const sm3 = new SnapshotManager(io, await table('t3', [3, 4, 5], { LATEST: '5' }));
    assert.equal(await sm3.latestSnapshotId(), 5);
  });

  test('a stale LATEST pointing past the end is trusted like Java does (N+1 missing)', async () => {
    // Java's findLatest only checks N+1; a LATEST of 9 over snapshots 1..3 is returned as is.
    const sm = new SnapshotManager(io, await table('t4', [1, 2, 3], { LATEST: '9' }));
    assert.equal(await sm.latestSnapshotId(), 9);
    await assert.rejects(sm.latestSnapshot(), (e) => isPaimonError(e, 'SNAPSHOT_NOT_FOUND'));
  });

  test('missing or unreadable hints fall back to the listing; temp files are ignored', async () => {
    const t = await table('t5', [2, 3, 7], { LATEST: 'garbage' });
    await writeFile(path.join(t, 'snapshot', '.snapshot-8.0f0e-uuid.tmp'), '{');
    await writeFile(path.join(t, 'snapshot', 'snapshot-x'), '{');
    const sm = new SnapshotManager(io, t);
    assert.equal(await sm.latestSnapshotId(), 7);
    assert.equal(await sm.earliestSnapshotId(), 2);
    assert.deepEqual(await sm.sortedSnapshotIds(), [2, 3, 7]);
    assert.equal(await sm.snapshotCount(), 3);
  });

  test('EARLIEST is trusted only when that snapshot exists', async () => {
    const sm = new SnapshotManager(io, await table('t6', [4, 5, 6], { EARLIEST: '2' }));
    assert.equal(await sm.earliestSnapshotId(), 4);
    const sm2 = new SnapshotManager(io, await table('t7', [4, 5, 6], { EARLIEST: '5' }));
    assert.equal(await sm2.earliestSnapshotId(), 5);
  });

  test('an empty or missing snapshot directory has no snapshots', async () => {
    const sm = new SnapshotManager(io, path.join(root, 'nothing'));
    assert.equal(await sm.latestSnapshotId(), null);
    assert.equal(await sm.earliestSnapshot(), null);
    assert.equal(await sm.latestSnapshot(), null);
  });

  test('commitSnapshot creates snapshot-N once, writes LATEST, and refuses a second writer', async () => {
    const t = await table('c1', [1], { LATEST: '1' });
    const sm = new SnapshotManager(io, t);
    assert.equal(await sm.commitSnapshot(snap(2)), true);
    assert.equal(await readFile(path.join(t, 'snapshot', 'LATEST'), 'utf8'), '2');
    assert.equal(await sm.commitSnapshot(snap(2, 5, { commitUser: 'user-b' })), false);
    assert.equal((await sm.snapshot(2)).commitUser, 'user-a');
    assert.deepEqual((await readdir(path.join(t, 'snapshot'))).sort(), ['LATEST', 'snapshot-1', 'snapshot-2']);
  });

  test('a slow committer does not leave LATEST behind a newer snapshot', async () => {
    // Writer B already published snapshot-3 (and its LATEST); writer A publishes 2 late.
    const t = await table('c2', [1, 3], { LATEST: '3' });
    const sm = new SnapshotManager(io, t);
    assert.equal(await sm.commitSnapshot(snap(2)), true);
    assert.equal(await sm.readLatestHint(), 3);
  });

  test('snapshot(id) errors: missing is SNAPSHOT_NOT_FOUND, an id mismatch is CORRUPT_METADATA', async () => {
    const t = await table('e1', [1]);
    const sm = new SnapshotManager(io, t);
    await assert.rejects(sm.snapshot(2), (e) => isPaimonError(e, 'SNAPSHOT_NOT_FOUND') && e.message.includes(t));
    await writeFile(path.join(t, 'snapshot', 'snapshot-5'), snapshotToJson(snap(4)));
    await assert.rejects(sm.snapshot(5), (e) => isPaimonError(e, 'CORRUPT_METADATA'));
  });

  test('earliestSnapshot skips a vanished earliest; time lookups binary-search like Java', async () => {
    const t = await table('time', [2, 3, 4, 5], { EARLIEST: '1' });
    const sm = new SnapshotManager(io, t);
    assert.equal((await sm.earliestSnapshot())?.id, 2);
    assert.equal((await sm.earlierOrEqualTimeMills(3500))?.id, 3);
    assert.equal((await sm.earlierOrEqualTimeMills(4000))?.id, 4);
    assert.equal(await sm.earlierOrEqualTimeMills(1999), null);
    assert.equal((await sm.laterOrEqualTimeMills(3500))?.id, 4);
    assert.equal(await sm.laterOrEqualTimeMills(5001), null);
  });

  test('watermark lookups skip snapshots without a watermark and refuse MIN_VALUE tables', async () => {
    const t = path.join(root, 'wm');
    const sm = new SnapshotManager(io, t);
    const wms: Array<bigint | undefined> = [undefined, 10n, undefined, 30n, 40n];
    for (let i = 0; i < wms.length; i++) {
      await sm.commitSnapshot(snap(i + 1, 1000 * (i + 1), wms[i] === undefined ? {} : { watermark: wms[i] }));
    }
    assert.equal((await sm.earlierOrEqualWatermark(35n))?.id, 4);
    assert.equal((await sm.earlierOrEqualWatermark(30n))?.id, 4);
    assert.equal((await sm.laterOrEqualWatermark(25n))?.id, 4);
    assert.equal((await sm.laterOrEqualWatermark(5n))?.id, 2, 'below the earliest watermark: the earliest snapshot that has one');
    assert.equal(await sm.laterOrEqualWatermark(41n), null);
    await sm.commitSnapshot(snap(6, 6000, { watermark: -9223372036854775808n }));
    assert.equal(await sm.earlierOrEqualWatermark(35n), null);
  });

  test('branch snapshots live under branch/branch-<name>/snapshot', async () => {
    const sm = new SnapshotManager(io, '/wh/db.db/t', 'dev');
    assert.equal(sm.snapshotPath(3), '/wh/db.db/t/branch/branch-dev/snapshot/snapshot-3');
    assert.equal(new SnapshotManager(io, 's3://b/wh/db.db/t', '').snapshotPath(1), 's3://b/wh/db.db/t/snapshot/snapshot-1');
  });
});

describe('tags', () => {
  test('tag with retention: Jackson layout of tagCreateTime and tagTimeRetained (TagTest.testFromSnapshotAndTagTtl)', () => {
    const text = tagToJson({
      ...snap(1),
      tagCreateTime: { year: 1969, month: 1, day: 1, hour: 0, minute: 0, second: 0, nano: 123456789 },
      tagTimeRetained: durationFromMillis(5000),
    });
    assert.ok(text.endsWith('  "deltaRecordCount" : 1,\n  "tagCreateTime" : [ 1969, 1, 1, 0, 0, 0, 123456789 ],\n  "tagTimeRetained" : 5.000000000\n}'), text);
    assert.equal(durationToJson(durationFromMillis(0)).text, '0.0');
    assert.equal(durationToJson(durationFromMillis(86_400_000)).text, '86400.000000000');
    assert.equal(durationToJson(durationFromMillis(1500)).text, '1.500000000');
    assert.equal(localDateTimeToString({ year: 2024, month: 5, day: 14, hour: 10, minute: 30, second: 0, nano: 0 }), '2024-05-14T10:30');
    assert.equal(localDateTimeToString({ year: 2024, month: 5, day: 14, hour: 10, minute: 30, second: 5, nano: 120_000_000 }), '2024-05-14T10:30:05.120');
  });

  test('create, exists, duplicate, replace, rename, list, delete', async () => {
    const t = await table('tags', [1, 2, 3]);
    const sm = new SnapshotManager(io, t);
    const tm = new TagManager(io, t);
    assert.equal(await tm.createTag(await sm.snapshot(1), 'a'), true);
    // Without retention the tag file is exactly the snapshot file.
    assert.equal(await readFile(path.join(t, 'tag', 'tag-a'), 'utf8'), await readFile(path.join(t, 'snapshot', 'snapshot-1'), 'utf8'));
    await assert.rejects(tm.createTag(await sm.snapshot(2), 'a'), (e) => isPaimonError(e, 'TAG_ALREADY_EXISTS'));
    assert.equal(await tm.createTag(await sm.snapshot(2), 'a', { ignoreIfExists: true }), false);
    await tm.createTag(await sm.snapshot(3), 'b', { timeRetainedMs: 60_000, now: new Date(2026, 0, 2, 3, 4, 5) });
    assert.match(await readFile(path.join(t, 'tag', 'tag-b'), 'utf8'), /"tagCreateTime" : \[ 2026, 1, 2, 3, 4, 5 \],\n {2}"tagTimeRetained" : 60\.000000000\n\}$/);
    assert.equal(tagExpireTimeMillis(await tm.getOrThrow('b')), new Date(2026, 0, 2, 3, 5, 5).getTime());
    assert.equal(tagExpireTimeMillis(await tm.getOrThrow('a')), null);
    await tm.replaceTag(await sm.snapshot(2), 'a');
    assert.equal((await tm.getOrThrow('a')).id, 2);
    await tm.renameTag('a', 'c');
    assert.equal(await tm.tagExists('a'), false);
    await assert.rejects(tm.renameTag('nope', 'x'), (e) => isPaimonError(e, 'TAG_NOT_FOUND'));
    await assert.rejects(tm.renameTag('b', 'c'), (e) => isPaimonError(e, 'TAG_ALREADY_EXISTS'));
    assert.deepEqual((await tm.listTags()).map((e) => [e.name, e.tag.id]), [['c', 2], ['b', 3]]);
    assert.deepEqual((await tm.taggedSnapshots()).map((s) => s.id), [2, 3]);
    assert.equal((await tm.deleteTag('c'))?.id, 2);
    assert.equal(await tm.deleteTag('c'), null);
    await assert.rejects(tm.getOrThrow('c'), (e) => isPaimonError(e, 'TAG_NOT_FOUND'));
    await assert.rejects(tm.createTag(await sm.snapshot(1), '  '), (e) => isPaimonError(e, 'INVALID_ARGUMENT'));
    await assert.rejects(tm.createTag(await sm.snapshot(1), '../x'), (e) => isPaimonError(e, 'INVALID_ARGUMENT'));
  });
});

describe('consumers', () => {
  test('file layout, reset, list, min, expire by modification time, clear by whole-id regex', async () => {
    const t = path.join(root, 'consumers');
    const cm = new ConsumerManager(io, t);
    await cm.resetConsumer('c1', { nextSnapshot: 42 });
    assert.equal(await readFile(path.join(t, 'consumer', 'consumer-c1'), 'utf8'), '{\n  "nextSnapshot" : 42\n}');
    await cm.resetConsumer('c2', { nextSnapshot: 7 });
    await cm.resetConsumer('job-x', { nextSnapshot: 9 });
    assert.equal(await cm.minNextSnapshot(), 7);
    assert.deepEqual([...(await cm.consumers())].sort(), [['c1', 42], ['c2', 7], ['job-x', 9]]);
    const old = new Date(Date.now() - 3_600_000);
    await utimes(path.join(t, 'consumer', 'consumer-c2'), old, old);
    assert.deepEqual(await cm.expire(Date.now() - 60_000), ['c2']);
    assert.deepEqual(await cm.clearConsumers(/c/), [], 'regex must match the whole id');
    assert.deepEqual((await cm.clearConsumers(/.*/, /job-.*/)).sort(), ['c1']);
    assert.equal(await cm.consumer('c1'), null);
    assert.equal((await cm.consumer('job-x'))?.nextSnapshot, 9);
    assert.equal(await cm.deleteConsumer('job-x'), true);
    assert.equal(await cm.minNextSnapshot(), null);
  });
});

describe('long-lived changelogs', () => {
  test('changelog-N with its own hints', async () => {
    const t = path.join(root, 'changelog');
    const cl = new ChangelogManager(io, t);
    for (const id of [3, 4, 5]) await cl.commitChangelog(snap(id), id);
    await cl.commitLongLivedChangelogEarliestHint(3);
    await cl.commitLongLivedChangelogLatestHint(4);
    assert.equal(await cl.latestLongLivedChangelogId(), 5, 'LATEST=4 is stale because changelog-5 exists');
    assert.equal(await cl.earliestLongLivedChangelogId(), 3);
    const ids: number[] = [];
    for await (const c of cl.changelogs()) ids.push(c.id);
    assert.deepEqual(ids, [3, 4, 5]);
  });
});

describe('branches', () => {
  test('create empty / from tag / from snapshot, validate names, list, rename, drop', async () => {
    const t = await table('branches', [1, 2]);
    const schemas = new SchemaManager(io, t);
    await schemas.createTable({ fields: [{ id: 0, name: 'id', type: DataTypes.simple('INT') }], primaryKeys: ['id'] });
    const sm = new SnapshotManager(io, t);
    await new TagManager(io, t).createTag(await sm.snapshot(2), 'v2');
    const bm = new BranchManager(io, t);

    await bm.createBranch('empty');
    assert.deepEqual(await readdir(path.join(t, 'branch', 'branch-empty')), ['schema']);
    await bm.createBranchFromTag('fromtag', 'v2');
    assert.deepEqual(await readdir(path.join(t, 'branch', 'branch-fromtag', 'snapshot')), ['snapshot-2']);
    assert.deepEqual(await readdir(path.join(t, 'branch', 'branch-fromtag', 'tag')), ['tag-v2']);
    assert.equal(
      await readFile(path.join(t, 'branch', 'branch-fromtag', 'schema', 'schema-0'), 'utf8'),
      await readFile(path.join(t, 'schema', 'schema-0'), 'utf8'),
    );
    await bm.createBranchFromSnapshot('fromsnap', 1);
    assert.deepEqual(await bm.branches(), ['empty', 'fromsnap', 'fromtag']);

    for (const bad of ['main', '123', ' ']) {
      await assert.rejects(bm.createBranch(bad), (e) => isPaimonError(e, 'INVALID_ARGUMENT'), bad);
    }
    await assert.rejects(bm.createBranch('empty'), (e) => isPaimonError(e, 'BRANCH_ALREADY_EXISTS'));
    assert.equal(await bm.createBranch('empty', { ignoreIfExists: true }), false);
    await assert.rejects(bm.createBranchFromTag('x', 'nope'), (e) => isPaimonError(e, 'TAG_NOT_FOUND'));

    await bm.renameBranch('fromsnap', 'renamed');
    await assert.rejects(bm.renameBranch('nope', 'y'), (e) => isPaimonError(e, 'BRANCH_NOT_FOUND'));
    await assert.rejects(bm.renameBranch('renamed', 'empty'), (e) => isPaimonError(e, 'BRANCH_ALREADY_EXISTS'));
    await bm.dropBranch('empty');
    await assert.rejects(bm.dropBranch('empty'), (e) => isPaimonError(e, 'BRANCH_NOT_FOUND'));
    assert.deepEqual(await bm.branches(), ['fromtag', 'renamed']);
    assert.equal((await new SnapshotManager(io, t, 'renamed').snapshot(1)).id, 1);
  });

  test('fast-forward replaces main snapshots from the branch\'s earliest on and keeps LATEST exact', async () => {
    const t = await table('ff', [1, 2, 3], { LATEST: '3' });
    await new SchemaManager(io, t).createTable({ fields: [{ id: 0, name: 'id', type: DataTypes.simple('INT') }] });
    const sm = new SnapshotManager(io, t);
    const bm = new BranchManager(io, t);
    await bm.createBranchFromSnapshot('dev', 2);
    const dev = sm.copyWithBranch('dev');
    assert.equal(await dev.commitSnapshot(snap(3, 99, { commitUser: 'dev-writer' })), true);
    assert.equal(await dev.commitSnapshot(snap(4, 100, { commitUser: 'dev-writer' })), true);
    await assert.rejects(bm.fastForward('main'), (e) => isPaimonError(e, 'INVALID_ARGUMENT'));
    await assert.rejects(bm.fastForward('nope'), (e) => isPaimonError(e, 'BRANCH_NOT_FOUND'));
    const r = await bm.fastForward('dev');
    assert.equal(r.earliestSnapshotId, 2);
    assert.deepEqual(await sm.sortedSnapshotIds(), [1, 2, 3, 4]);
    assert.equal((await sm.snapshot(3)).commitUser, 'dev-writer');
    assert.equal(await sm.readLatestHint(), 4);
  });
});
