import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isPaimonError } from '../../../../src/paimon/errors.js';
import {
  isChangelogDecoupled,
  selectExpireRange,
  validateRetention,
  type ExpireSelectionInput,
} from '../../../../src/paimon/maintenance/expire-selection.js';
import { findSkippingTags, planExpire } from '../../../../src/paimon/maintenance/expire-plan.js';
import { FakeTable, baseNames, locator } from '../maintenance-fixture.js';

const times = (t: Record<number, number>) => async (id: number) => t[id] ?? null;

function sel(over: Partial<ExpireSelectionInput>): ExpireSelectionInput {
  return {
    earliestId: 1,
    latestId: 20,
    minConsumerNextSnapshot: null,
    retainMax: 2_147_483_647,
    retainMin: 1,
    maxDeletes: 2_147_483_647,
    olderThanMillis: Number.MAX_SAFE_INTEGER,
    ...over,
  };
}

describe('expire_snapshots selection (ExpireSnapshotsImpl.expire)', () => {
  test('keeps the newest retain_min snapshots', async () => {
    const r = await selectExpireRange(sel({ retainMin: 5 }), times({}));
    assert.equal(r?.endExclusive, 16);
  });

  test('retain_max expires everything older than the newest retain_max even inside the time window', async () => {
    // every snapshot is "young" (committed after olderThan), but retain_max = 3 still drops 1..17
    const t: Record<number, number> = {};
    for (let i = 1; i <= 20; i++) t[i] = 5000 + i;
    const r = await selectExpireRange(sel({ retainMax: 3, retainMin: 1, olderThanMillis: 1000 }), times(t));
    assert.equal(r?.endExclusive, 18);
  });

  test('time window: snapshot id expires only if id+1 was committed before older_than', async () => {
    const t: Record<number, number> = {};
    for (let i = 1; i <= 20; i++) t[i] = i * 100;
    // snapshot 8's successor (9) was committed at 900 >= 900: stop at 8
    const r = await selectExpireRange(sel({ retainMin: 1, olderThanMillis: 900 }), times(t));
    assert.equal(r?.endExclusive, 8);
  });

  test('a consumer pins its next snapshot and everything after it', async () => {
    const r = await selectExpireRange(sel({ retainMin: 1, minConsumerNextSnapshot: 7 }), times({}));
    assert.equal(r?.endExclusive, 7);
    assert.equal(r?.stoppedBy, 'consumer');
  });

  test('max_deletes caps one call', async () => {
    const r = await selectExpireRange(sel({ earliestId: 4, retainMin: 1, maxDeletes: 3 }), times({}));
    assert.equal(r?.endExclusive, 7);
  });

  test('a snapshot file missing in the window is ignored like Paimon does', async () => {
    const r = await selectExpireRange(sel({ retainMin: 1, olderThanMillis: 500 }), times({ 3: 600 }));
    assert.equal(r?.endExclusive, 2);
  });

  test('no snapshots: nothing to do', async () => {
    assert.equal(await selectExpireRange(sel({ earliestId: null, latestId: null }), times({})), null);
  });

  test('rejects retain_min < 1 (apache/paimon#10088) and retain_max < retain_min', () => {
    for (const bad of [
      { retainMax: 10, retainMin: 0, maxDeletes: 1 },
      { retainMax: 10, retainMin: -1, maxDeletes: 1 },
      { retainMax: 3, retainMin: 5, maxDeletes: 1 },
      { retainMax: 3, retainMin: 1, maxDeletes: -1 },
    ]) {
      assert.throws(() => validateRetention(bad), (e) => isPaimonError(e, 'INVALID_ARGUMENT'));
    }
    assert.throws(
      () => validateRetention({ retainMax: 3, retainMin: 5, maxDeletes: 1 }),
      /retain_max \(3\) must not be less than retain_min \(5\)/,
    );
  });

  test('decoupled changelog = a changelog option keeping more than the snapshot retention', () => {
    const snap = { retainMax: 10, retainMin: 5, timeRetainMs: 3_600_000 };
    const none = { changelogRetainMax: null, changelogRetainMin: null, changelogTimeRetainMs: null };
    assert.equal(isChangelogDecoupled(snap, none), false);
    assert.equal(isChangelogDecoupled(snap, { ...none, changelogRetainMax: 11 }), true);
    assert.equal(isChangelogDecoupled(snap, { ...none, changelogRetainMax: 10 }), false);
    assert.equal(isChangelogDecoupled(snap, { ...none, changelogTimeRetainMs: 7_200_000 }), true);
  });
});

describe('expire_snapshots deletion plan (innerExpireUntil)', () => {
  function history(): FakeTable {
    const t = new FakeTable();
    t.commit({ add: ['a', 'b'] }); // 1
    t.commit({ add: ['c'], changelog: ['cl2'] }); // 2
    t.commit({ del: ['a', 'b'], add: ['ab'], compact: true, changelog: ['cl3'] }); // 3 compaction
    t.commit({ add: ['d'] }); // 4
    t.commit({ del: ['c'] }); // 5
    return t;
  }
  const input = (t: FakeTable, end: number, extra: Partial<Parameters<typeof planExpire>[0]> = {}) => ({
    earliestId: 1,
    endExclusive: end,
    snapshots: [...t.snapshots.values()].filter((s) => s.id <= end),
    taggedSnapshots: t.sortedTags(),
    changelogDecoupled: false,
    produceChangelog: true,
    ...extra,
  });

  test('deletes files removed by later deltas, changelog files, and metadata not used by the end snapshot', async () => {
    const t = history();
    const plan = await planExpire(input(t, 4), t, locator);
    assert.deepEqual(plan.snapshotIds, [1, 2, 3]);
    assert.deepEqual(baseNames(plan.dataFiles), ['a', 'b']);
    assert.deepEqual(baseNames(plan.changelogFiles), ['cl2', 'cl3']);
    // manifest-d1..d3 are still in snapshot 4's base list: they stay
    assert.deepEqual(baseNames(plan.metadataFiles!), [
      'manifest-c2',
      'manifest-c3',
      'manifest-list-b1',
      'manifest-list-b2',
      'manifest-list-b3',
      'manifest-list-c2',
      'manifest-list-c3',
      'manifest-list-d1',
      'manifest-list-d2',
      'manifest-list-d3',
    ]);
    assert.equal(plan.earliestHint, 4);
    // c is deleted by snapshot 5, which is not expired: c stays
    assert.ok(!baseNames(plan.dataFiles).includes('c'));
  });

  test('a tag protects the data files and manifests it still uses', async () => {
    const t = history();
    t.tag('t2', 2);
    const plan = await planExpire(input(t, 4), t, locator);
    assert.deepEqual(plan.dataFiles, []); // a, b are live in tag t2
    const meta = baseNames(plan.metadataFiles!);
    assert.ok(!meta.includes('manifest-list-b2') && !meta.includes('manifest-list-d2'));
    assert.ok(meta.includes('manifest-list-b1'));
  });

  test('a DELETE followed by an ADD of the same file in one delta (upgrade) is not deleted', async () => {
    const t = new FakeTable();
    t.commit({ add: ['x'] });
    const s2 = t.commit({ add: ['y'] });
    // hand-made upgrade: DELETE x then ADD x at another level in snapshot 2's delta
    const d = t.manifests.get('manifest-d2')!;
    d.push({ ...t.entry('DELETE', 'x') }, { ...t.entry('ADD', 'x') });
    t.commit({ add: ['z'] });
    const plan = await planExpire(
      { earliestId: 1, endExclusive: 3, snapshots: [t.snapshots.get(1)!, s2, t.snapshots.get(3)!], taggedSnapshots: [], changelogDecoupled: false, produceChangelog: false },
      t,
      locator,
    );
    assert.deepEqual(plan.dataFiles, []);
  });

  test('extra files (file index) of a deleted data file go with it', async () => {
    const t = new FakeTable();
    t.commit({ add: ['a'], extra: { a: ['a.index'] } });
    t.commit({ del: ['a'] });
    t.commit({ add: ['b'] });
    const plan = await planExpire(input(t, 3), t, locator);
    assert.deepEqual(baseNames(plan.dataFiles), ['a', 'a.index']);
  });

  test('decoupled changelog without a producer keeps APPEND files, changelog files and data manifest lists', async () => {
    const t = history();
    const plan = await planExpire(input(t, 4, { changelogDecoupled: true, produceChangelog: false }), t, locator);
    assert.deepEqual(plan.dataFiles, []); // a, b were APPEND files: they double as changelog
    assert.deepEqual(plan.changelogFiles, []);
    assert.deepEqual(plan.metadataFiles, []);
    assert.equal(plan.writeLongLivedChangelogs, true);
  });

  test('an unreadable tag keeps the data files of the snapshots it covers', async () => {
    const t = history();
    t.tag('t1', 1);
    t.lists.delete('manifest-list-b1'); // the tag's base list is gone
    const plan = await planExpire(input(t, 4), t, locator);
    assert.deepEqual(plan.dataFiles, []);
    assert.ok(plan.warnings.some((w) => w.includes('tag')));
  });

  test('the end snapshot vanished meanwhile: no metadata or snapshot files are touched', async () => {
    const t = history();
    const snaps = [...t.snapshots.values()].filter((s) => s.id < 4);
    const plan = await planExpire({ ...input(t, 4), snapshots: snaps }, t, locator);
    assert.deepEqual(plan.snapshotIds, []);
    assert.deepEqual(plan.metadataFiles, []);
    assert.equal(plan.earliestHint, null);
  });

  test('findSkippingTags picks the tags overlapping [begin, end)', () => {
    const tags = [2, 5, 9, 12].map((id) => ({ id, timeMillis: 0, baseManifestList: '', deltaManifestList: '' }));
    assert.deepEqual(findSkippingTags(tags, 4, 10).map((s) => s.id), [2, 5, 9]);
    assert.deepEqual(findSkippingTags(tags, 1, 2).map((s) => s.id), []);
    assert.deepEqual(findSkippingTags(tags, 5, 6).map((s) => s.id), [5]);
  });

  test('property: never plans to delete a file that a surviving snapshot or a tag reaches', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ add: fc.nat(3), del: fc.nat(3), cl: fc.boolean(), idx: fc.boolean(), tag: fc.boolean() }), {
          minLength: 2,
          maxLength: 25,
        }),
        fc.nat(30),
        fc.boolean(),
        async (ops, endRaw, decoupled) => {
          const t = new FakeTable();
          let counter = 0;
          for (const op of ops) {
            const live = [...t.live.keys()];
            const del = live.slice(0, Math.min(op.del, live.length));
            const add = Array.from({ length: op.add }, () => `f${counter++}`);
            const s = t.commit({
              add,
              del,
              changelog: op.cl ? [`cl${counter++}`] : [],
              index: op.idx ? [`dv${counter++}`] : undefined,
              compact: del.length > 0,
            });
            if (op.tag) t.tag(`tag${s.id}`, s.id);
          }
          const latest = t.snapshots.size;
          const end = 1 + (endRaw % latest); // retain at least the latest
          const plan = await planExpire(
            {
              earliestId: 1,
              endExclusive: end,
              snapshots: [...t.snapshots.values()].filter((s) => s.id <= end),
              taggedSnapshots: t.sortedTags(),
              changelogDecoupled: decoupled,
              produceChangelog: true,
            },
            t,
            locator,
          );
          const keep = new Set<string>();
          for (const s of t.snapshots.values()) if (s.id >= end) for (const f of t.reachable(s)) keep.add(f);
          for (const s of t.tags.values()) for (const f of t.liveFiles(s)) keep.add(f);
          // Paimon's expiry does not let tags protect their snapshot's changelog (files or lists)
          const changelogOnly = (f: string) => f.startsWith('cl') || f.startsWith('manifest-c') || f.startsWith('manifest-list-c');
          for (const s of t.tags.values()) for (const f of t.reachable(s)) if (!changelogOnly(f)) keep.add(f);
          const deleted = [...plan.dataFiles, ...plan.changelogFiles, ...(plan.metadataFiles ?? [])];
          for (const name of baseNames(deleted)) {
            assert.ok(!keep.has(name), `planned to delete ${name}, still reachable (end=${end})`);
          }
          // everything expired snapshots alone held (their delta lists) is deleted
          for (const id of plan.snapshotIds) {
            assert.ok(baseNames(plan.metadataFiles ?? []).includes(`manifest-list-d${id}`) || keep.has(`manifest-list-d${id}`));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
