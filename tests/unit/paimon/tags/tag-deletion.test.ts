/**
 * The tag deletion planner (src/paimon/tags/tag-deletion.ts) on plain metadata: Java's rules
 * (snapshot still there, several tags on one snapshot, neighbour tags and the earliest
 * snapshot as skipping sets, manifests minus the neighbours'), and what we add: files another
 * root reaches (protection) are never planned, a sequence plans each tag against the remaining
 * ones, an unreadable skipping set cleans nothing. Plus TagTimeExpire's selection.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PaimonError } from '../../../../src/paimon/errors.js';
import type { FileLocator, MaintenanceFileEntry, MaintenanceReader, ManifestFileRef, SnapshotLike } from '../../../../src/paimon/maintenance/types.js';
import { cachingReader, emptyProtection, planTagDeletions, protectDelta, protectWhole, type TagRef } from '../../../../src/paimon/tags/tag-deletion.js';
import { selectExpiredTags } from '../../../../src/paimon/tags/tag-lifecycle.js';
import { durationFromMillis, localDateTimeOf, type Tag } from '../../../../src/paimon/spec/tag.js';

function entry(kind: 'ADD' | 'DELETE', fileName: string): MaintenanceFileEntry {
  return { kind, partition: 'p', bucket: 0, level: 0, fileName, fileSize: 10, extraFiles: [], externalPath: null, fileSource: 'APPEND' };
}

/**
 * A linear history: snapshot i's delta manifest `m<i>` holds `adds[i]` and `deletes[i]`; its base
 * list names every earlier delta manifest.
 */
function history(steps: { adds: string[]; deletes?: string[] }[]) {
  const manifests = new Map<string, MaintenanceFileEntry[]>();
  const lists = new Map<string, ManifestFileRef[]>();
  const snapshots: SnapshotLike[] = [];
  steps.forEach((s, i) => {
    const id = i + 1;
    manifests.set(`m${id}`, [...(s.deletes ?? []).map((f) => entry('DELETE', f)), ...s.adds.map((f) => entry('ADD', f))]);
    lists.set(`base${id}`, Array.from({ length: i }, (_, j) => ({ fileName: `m${j + 1}`, fileSize: 1 })));
    lists.set(`delta${id}`, [{ fileName: `m${id}`, fileSize: 1 }]);
    snapshots.push({ id, baseManifestList: `base${id}`, deltaManifestList: `delta${id}`, timeMillis: id });
  });
  const reads: string[] = [];
  const reader: MaintenanceReader = {
    async readManifestList(n) {
      reads.push(n);
      const l = lists.get(n);
      if (!l) throw new PaimonError('FILE_NOT_FOUND', n);
      return l;
    },
    async readManifest(n) {
      reads.push(n);
      const m = manifests.get(n);
      if (!m) throw new PaimonError('FILE_NOT_FOUND', n);
      return m;
    },
    async readIndexManifest(n) {
      throw new PaimonError('FILE_NOT_FOUND', n);
    },
  };
  return { snapshots, reader, lists, manifests, reads };
}

const locator: FileLocator = {
  manifestPath: (n) => `manifest/${n}`,
  indexManifestPath: (n) => `manifest/${n}`,
  indexFilePath: (r) => `index/${r.fileName}`,
  statisticsPath: (n) => `statistics/${n}`,
  dataFilePath: (e) => `data/${e.fileName}`,
  extraFilePath: (_e, x) => `data/${x}`,
};

function paths(files: { path: string }[]): string[] {
  return files.map((f) => f.path).sort();
}

// 1: a; 2: b; 3: c replaces a (compaction); 4: d; 5: e replaces b.
const FIVE = [{ adds: ['a'] }, { adds: ['b'] }, { adds: ['c'], deletes: ['a'] }, { adds: ['d'] }, { adds: ['e'], deletes: ['b'] }];

describe('planTagDeletions (TagManager.deleteTag / TagDeletion)', () => {
  test('a tag whose snapshot still exists: nothing but the tag file', async () => {
    const h = history(FIVE);
    const tags: TagRef[] = [{ name: 't2', snapshot: h.snapshots[1] }];
    const plan = await planTagDeletions(['t2'], { tags, snapshotIds: new Set([1, 2, 3, 4, 5]), earliest: h.snapshots[0] }, emptyProtection(), h.reader, locator);
    assert.equal(plan.steps[0].keptFilesBecause, 'snapshot 2 still exists');
    assert.deepEqual(plan.steps[0].files, []);
  });

  test('an expired tag: its files minus the left tag and the right neighbour (earliest snapshot); its own lists and manifests', async () => {
    const h = history(FIVE);
    // Snapshots 1-4 expired, 5 remains. Tags: t1@1, t2@2.
    const tags: TagRef[] = [
      { name: 't1', snapshot: h.snapshots[0] },
      { name: 't2', snapshot: h.snapshots[1] },
    ];
    const plan = await planTagDeletions(['t2'], { tags, snapshotIds: new Set([5]), earliest: h.snapshots[4] }, emptyProtection(), h.reader, locator);
    // t2 holds a, b. Left t1 holds a; the earliest (5) holds c, d, e. So b goes.
    assert.deepEqual(paths(plan.steps[0].files.filter((f) => f.kind === 'data')), ['data/b']);
    // t2's lists base2, delta2 and manifest m2 go (m1 is in t1's and 5's base list).
    assert.deepEqual(paths(plan.steps[0].files.filter((f) => f.kind !== 'data')), ['manifest/base2', 'manifest/delta2']);
  });

  test('the right neighbour is the next tag when it is older than the earliest snapshot', async () => {
    const h = history(FIVE);
    const tags: TagRef[] = [
      { name: 't1', snapshot: h.snapshots[0] },
      { name: 't2', snapshot: h.snapshots[1] },
    ];
    const plan = await planTagDeletions(['t1'], { tags, snapshotIds: new Set([5]), earliest: h.snapshots[4] }, emptyProtection(), h.reader, locator);
    // t1 holds a; t2 (right neighbour) holds a too: nothing of data goes.
    assert.deepEqual(plan.steps[0].files.filter((f) => f.kind === 'data'), []);
    assert.deepEqual(paths(plan.steps[0].files), ['manifest/base1', 'manifest/delta1']);
  });

  test('two tags on one snapshot: the first deletion keeps the files, the second cleans them; a sequence plans against the remaining tags', async () => {
    const h = history(FIVE);
    const tags: TagRef[] = [
      { name: 'x', snapshot: h.snapshots[1] },
      { name: 'y', snapshot: h.snapshots[1] },
      { name: 't1', snapshot: h.snapshots[0] },
    ];
    const plan = await planTagDeletions(['x', 'missing', 'y', 't1'], { tags, snapshotIds: new Set([5]), earliest: h.snapshots[4] }, emptyProtection(), h.reader, locator);
    assert.equal(plan.steps[0].keptFilesBecause, "tag 'y' holds snapshot 2 too");
    assert.equal(plan.steps[1].snapshotId, null);
    assert.deepEqual(paths(plan.steps[2].files.filter((f) => f.kind === 'data')), ['data/b']);
    // With y gone, t1 has no right tag: the earliest snapshot (c, d, e) is its neighbour, so a goes too.
    assert.deepEqual(paths(plan.steps[3].files.filter((f) => f.kind === 'data')), ['data/a']);
    assert.ok(!paths(plan.steps[3].files).includes('manifest/m1'), "m1 stays: the earliest snapshot's base list names it");
    assert.ok(paths(plan.steps[3].files).includes('manifest/delta1'));
  });

  test('protection: a file a later snapshot re-adds (rollback to an old state) is never planned, though neither neighbour has it', async () => {
    // 1: a; 2: b replaces a; 3: rollback-as-latest re-adds a (delete b).
    const h = history([{ adds: ['a'] }, { adds: ['b'], deletes: ['a'] }, { adds: ['x'] }, { adds: ['a'], deletes: ['b', 'x'] }]);
    const tags: TagRef[] = [{ name: 't1', snapshot: h.snapshots[0] }];
    const state = { tags, snapshotIds: new Set([2, 3, 4]), earliest: h.snapshots[1] };
    const bare = await planTagDeletions(['t1'], state, emptyProtection(), h.reader, locator);
    assert.deepEqual(paths(bare.steps[0].files.filter((f) => f.kind === 'data')), ['data/a'], "Java's neighbour rule alone would delete a");
    const p = emptyProtection();
    await protectWhole(h.reader, h.snapshots[1], p);
    for (const s of h.snapshots.slice(2)) await protectDelta(h.reader, s, p);
    const safe = await planTagDeletions(['t1'], state, p, h.reader, locator);
    assert.deepEqual(safe.steps[0].files.filter((f) => f.kind === 'data'), []);
    assert.ok(!paths(safe.steps[0].files).includes('manifest/m1'), 'm1 is in the later base lists');
  });

  test('an unreadable neighbour manifest: no data file of that tag is planned, with a warning (manifests still are)', async () => {
    const h = history(FIVE);
    h.manifests.delete('m5');
    const tags: TagRef[] = [{ name: 't2', snapshot: h.snapshots[1] }];
    const plan = await planTagDeletions(['t2'], { tags, snapshotIds: new Set([5]), earliest: h.snapshots[4] }, emptyProtection(), h.reader, locator);
    assert.deepEqual(plan.steps[0].files.filter((f) => f.kind === 'data'), []);
    assert.equal(plan.warnings.length, 1);
    assert.match(plan.warnings[0], /data files of tagged snapshot 2 kept/);
  });

  test('cachingReader reads each manifest once', async () => {
    const h = history(FIVE);
    const r = cachingReader(h.reader);
    await r.readManifest('m1');
    await r.readManifest('m1');
    assert.equal(h.reads.filter((n) => n === 'm1').length, 1);
  });
});

describe('selectExpiredTags (TagTimeExpire)', () => {
  const snap: Tag = { id: 1, baseManifestList: 'b', deltaManifestList: 'd', timeMillis: 0 } as Tag;
  const at = (ms: number) => localDateTimeOf(new Date(ms));
  test('retention passed, older_than, and tags without retention only through older_than (by file time)', () => {
    const now = Date.UTC(2026, 0, 10);
    const tags = [
      { name: 'passed', tag: { ...snap, tagCreateTime: at(now - 2 * 3_600_000), tagTimeRetained: durationFromMillis(3_600_000) }, modificationTime: 0 },
      { name: 'kept', tag: { ...snap, tagCreateTime: at(now - 1000), tagTimeRetained: durationFromMillis(86_400_000) }, modificationTime: 0 },
      { name: 'plain', tag: snap, modificationTime: now - 5000 },
    ];
    assert.deepEqual(selectExpiredTags(tags, now, null), ['passed']);
    assert.deepEqual(selectExpiredTags(tags, now, now - 3000), ['passed', 'plain']);
    assert.deepEqual(selectExpiredTags(tags, now, now), ['passed', 'kept', 'plain']);
  });
});
