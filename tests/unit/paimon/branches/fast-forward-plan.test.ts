/**
 * The fast-forward plan (src/paimon/branches/fast-forward-plan.ts): Paimon's end state, what the
 * target would lose, and the remainder a rerun plans after a partial execution.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hasLosses, planFastForward, sameMetadata, type BranchFiles } from '../../../../src/paimon/branches/fast-forward-plan.js';

const b = (s: string) => Buffer.from(s);
function files(snaps: Record<number, string | null>, schemas: Record<number, string>, tags: Record<string, [number, string]> = {}, hasEarliestHint = false): BranchFiles {
  return {
    snapshots: new Map(Object.entries(snaps).map(([k, v]) => [Number(k), v === null ? null : b(v)])),
    schemas: new Map(Object.entries(schemas).map(([k, v]) => [Number(k), b(v)])),
    tags: new Map(Object.entries(tags).map(([k, [id, v]]) => [k, { snapshotId: id, bytes: b(v) }])),
    hasEarliestHint,
  };
}

describe('planFastForward', () => {
  test('a branch forked at tag 3 that main did not move past: only additions, nothing lost', () => {
    const main = files({ 1: null, 2: null, 3: '{"id":3}' }, { 0: 's0' }, { t3: [3, 'tag3'] });
    const branch = files({ 3: '{"id":3}', 4: '{"id":4}', 5: '{"id":5}' }, { 0: 's0', 1: 's1' }, { t3: [3, 'tag3'] });
    const p = planFastForward(main, branch, 0);
    assert.equal(p.earliestSnapshotId, 3);
    assert.deepEqual(p.writeSnapshots, [4, 5]);
    assert.deepEqual(p.deleteSnapshots, []);
    assert.deepEqual(p.writeSchemas, [1]);
    assert.deepEqual(p.deleteSchemas, []);
    assert.deepEqual(p.writeTags, []);
    assert.equal(hasLosses(p.losses), false);
    assert.equal(p.latestSnapshotId, 5);
    assert.equal(p.noop, false);
  });

  test('main commits after the fork are losses; the plan deletes them newest first and falls back to the fork point', () => {
    const main = files({ 1: null, 2: null, 3: '{"id":3}', 4: '{"id":4,"m":1}', 5: '{"id":5,"m":1}' }, { 0: 's0', 1: 'm1' }, { t3: [3, 'tag3'], t5: [5, 'tag5'] });
    const branch = files({ 3: '{"id":3}', 4: '{"id":4}' }, { 0: 's0' }, { t3: [3, 'tag3'] });
    const p = planFastForward(main, branch, 0);
    assert.deepEqual(p.deleteSnapshots, [5, 4]);
    assert.equal(p.latestBeforeDelete, 3);
    assert.deepEqual(p.writeSnapshots, [4]);
    assert.deepEqual(p.deleteSchemas, [1]);
    assert.deepEqual(p.deleteTags, ['t5']);
    assert.deepEqual(p.losses, { snapshots: [4, 5], schemas: [1], tags: ['t5'] });
  });

  test('an empty-created branch (its own history from snapshot 1) would replace all of main', () => {
    const main = files({ 1: '{"id":1}', 2: '{"id":2}' }, { 0: 's0' }, {}, true);
    const branch = files({ 1: '{"id":1,"b":1}' }, { 0: 's0' });
    const p = planFastForward(main, branch, 0);
    assert.deepEqual(p.losses.snapshots, [1, 2]);
    assert.equal(p.latestBeforeDelete, null);
    assert.equal(p.earliestHint, 1);
  });

  test('after a partial run the plan is the remainder, and after a full one it is a no-op', () => {
    const branch = files({ 3: '{"id":3}', 4: '{"id":4}', 5: '{"id":5}' }, { 0: 's0', 1: 's1' }, { t3: [3, 'tag3'], b5: [5, 'tag5'] });
    const partial = files({ 1: null, 2: null, 3: '{"id":3}', 4: '{"id":4}' }, { 0: 's0', 1: 's1' }, { t3: [3, 'tag3'] });
    const p = planFastForward(partial, branch, 0);
    assert.deepEqual(p.writeSnapshots, [5]);
    assert.deepEqual(p.writeSchemas, []);
    assert.deepEqual(p.writeTags, ['b5']);
    assert.equal(hasLosses(p.losses), false);
    const done = files({ 1: null, 2: null, 3: '{"id":3}', 4: '{"id":4}', 5: '{"id":5}' }, { 0: 's0', 1: 's1' }, { t3: [3, 'tag3'], b5: [5, 'tag5'] });
    assert.equal(planFastForward(done, branch, 0).noop, true);
  });

  test('a tag of main below the fork with the same name as a branch tag but other content is a loss', () => {
    const main = files({ 1: null, 2: '{"id":2}' }, { 0: 's0' }, { x: [1, 'main-x'] });
    const branch = files({ 2: '{"id":2}', 3: '{"id":3}' }, { 0: 's0' }, { x: [3, 'branch-x'] });
    assert.deepEqual(planFastForward(main, branch, 0).losses.tags, ['x']);
  });

  test('sameMetadata: same bytes or same JSON', () => {
    assert.equal(sameMetadata(b('{"a":1,"b":2}'), b('{ "a" : 1, "b" : 2 }')), true);
    assert.equal(sameMetadata(b('{"a":1}'), b('{"a":2}')), false);
    assert.equal(sameMetadata(b('x'), b('y')), false);
  });
});
