import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isPaimonError } from '../../../../src/paimon/errors.js';
import {
  diffLiveFiles,
  earlierOrEqualTimeMillis,
  isNoopRollback,
  planRollback,
  type RollbackState,
} from '../../../../src/paimon/maintenance/rollback-plan.js';

function state(over: Partial<RollbackState> & { ids?: number[] } = {}): RollbackState {
  const ids = new Set(over.ids ?? [3, 4, 5, 6, 7, 8]);
  return {
    earliestId: Math.min(...ids),
    latestId: Math.max(...ids),
    snapshotExists: (id) => ids.has(id),
    tags: [],
    changelogIds: [],
    ...over,
  };
}

describe('rollback_to plan (RollbackHelper.cleanLargerThan)', () => {
  test('snapshot target: LATEST first, later snapshots newest first, later tags removed, nothing else', () => {
    const p = planRollback(
      state({
        tags: [
          { name: 'old', snapshotId: 4 },
          { name: 'same', snapshotId: 5 },
          { name: 'later', snapshotId: 7 },
          { name: 'latest', snapshotId: 8 },
        ],
      }),
      { kind: 'snapshot', id: 5 },
    );
    assert.equal(p.previousLatestId, 8);
    assert.equal(p.latestHint, 5);
    assert.deepEqual(p.deleteSnapshotIds, [8, 7, 6]);
    assert.deepEqual(p.deleteTags, ['latest', 'later']);
    assert.equal(p.restoreSnapshotFromTag, null);
    assert.equal(p.earliestHint, null);
  });

  test('missing snapshot ids in the range are skipped (apache/paimon#3733)', () => {
    const p = planRollback(state({ ids: [3, 4, 5, 7, 8] }), { kind: 'snapshot', id: 4 });
    assert.deepEqual(p.deleteSnapshotIds, [8, 7, 5]);
  });

  test('tag whose snapshot expired: restore snapshot-<id> from the tag, all later snapshots go, EARLIEST moves', () => {
    const p = planRollback(state({ tags: [{ name: 'v1', snapshotId: 2 }] }), { kind: 'tag', name: 'v1' });
    assert.equal(p.restoreSnapshotFromTag, 'v1');
    assert.deepEqual(p.deleteSnapshotIds, [8, 7, 6, 5, 4, 3]);
    assert.equal(p.earliestHint, 2);
    assert.equal(p.latestHint, 2);
  });

  test('a snapshot id that only a tag holds rolls back to that tag', () => {
    const p = planRollback(state({ tags: [{ name: 'v1', snapshotId: 2 }] }), { kind: 'snapshot', id: 2 });
    assert.equal(p.target.tagName, 'v1');
    assert.equal(p.restoreSnapshotFromTag, 'v1');
  });

  test('missing targets are errors naming them, never a fallback', () => {
    assert.throws(
      () => planRollback(state(), { kind: 'snapshot', id: 2 }),
      (e) => isPaimonError(e, 'SNAPSHOT_NOT_FOUND') && /Rollback snapshot '2' doesn't exist/.test(e.message),
    );
    assert.throws(
      () => planRollback(state(), { kind: 'tag', name: 'nope' }),
      (e) => isPaimonError(e, 'TAG_NOT_FOUND') && /Tag 'nope' doesn't exist/.test(e.message),
    );
    assert.throws(
      () => planRollback({ ...state(), earliestId: null, latestId: null }, { kind: 'snapshot', id: 1 }),
      /Latest snapshot is null/,
    );
  });

  test('long-lived changelogs after the target go, and the changelog LATEST hint steps back (-1 when all go)', () => {
    const some = planRollback(state({ changelogIds: [1, 2, 3, 4, 5, 6] }), { kind: 'snapshot', id: 4 });
    assert.deepEqual(some.deleteChangelogIds, [6, 5]);
    assert.equal(some.changelogLatestHint, 4);
    const all = planRollback(state({ changelogIds: [6, 7] }), { kind: 'snapshot', id: 4 });
    assert.deepEqual(all.deleteChangelogIds, [7, 6]);
    assert.equal(all.changelogLatestHint, -1);
  });

  test('rolling back to the latest snapshot changes nothing', () => {
    assert.equal(isNoopRollback(planRollback(state(), { kind: 'snapshot', id: 8 })), true);
    assert.equal(isNoopRollback(planRollback(state(), { kind: 'snapshot', id: 7 })), false);
  });
});

describe('rollback_to_timestamp target (earlierOrEqualTimeMills)', () => {
  const t: Record<number, number> = { 3: 100, 4: 200, 5: 300, 6: 400 };
  const at = async (id: number) => t[id];
  test('latest snapshot committed at or before the timestamp', async () => {
    assert.equal(await earlierOrEqualTimeMillis(3, 6, 250, at), 4);
    assert.equal(await earlierOrEqualTimeMillis(3, 6, 300, at), 5);
    assert.equal(await earlierOrEqualTimeMillis(3, 6, 10_000, at), 6);
  });
  test('nothing before the earliest snapshot', async () => {
    assert.equal(await earlierOrEqualTimeMillis(3, 6, 99, at), null);
    assert.equal(await earlierOrEqualTimeMillis(null, null, 99, at), null);
  });
});

describe('rollback_to_as_latest delta', () => {
  test('DELETE what only the latest has, ADD what only the target has', () => {
    const latest = new Map([
      ['a', 'A'],
      ['b', 'B'],
      ['c', 'C'],
    ]);
    const target = new Map([
      ['a', 'A'],
      ['x', 'X'],
    ]);
    const d = diffLiveFiles(latest, target);
    assert.deepEqual(d.toDelete.sort(), ['B', 'C']);
    assert.deepEqual(d.toAdd, ['X']);
  });
});
