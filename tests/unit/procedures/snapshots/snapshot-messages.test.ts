import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isPaimonError, type PaimonErrorCode } from '../../../../src/paimon/errors.js';
import { expireSettings } from '../../../../procedures/snapshots/expire-snapshots.js';
import { makeRollbackPlan, rollbackTarget, type RollbackState } from '../../../../procedures/snapshots/rollback-to.js';
import type { TagInfo } from '../../../../src/paimon/table/maintenance-reader.js';
import type { SnapshotLike } from '../../../../src/paimon/maintenance/types.js';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
const base = { table: 't', retain_max: null, retain_min: null, older_than: null, max_deletes: null, options: null, dry_run: false };

function messageOf(code: PaimonErrorCode, fn: () => unknown): string {
  let message = '';
  assert.throws(fn, (e) => {
    assert.ok(isPaimonError(e, code), String(e));
    message = e.message;
    return true;
  });
  return message;
}

describe('expire_snapshots refusals name the arguments and where each default came from', () => {
  test('retain_max below the default retain_min: both values, the default named with its option, what to pass', () => {
    const m = messageOf('INVALID_ARGUMENT', () => expireSettings({ ...base, retain_max: 2 }, {}, NOW));
    assert.ok(m.includes('retain_max (2) must not be less than retain_min (10: '), m);
    assert.ok(m.includes('default of snapshot.num-retained.min'), m);
    assert.ok(m.includes('retain_min => 2 or lower'), m);
    assert.ok(m.includes('retain_max => 10 or higher'), m);
    assert.doesNotMatch(m, /retainMax|retainMin/);
  });
  test('a table option is named as the table option, a dynamic option as the options argument', () => {
    const t = messageOf('INVALID_ARGUMENT', () => expireSettings({ ...base, retain_max: 3 }, { 'snapshot.num-retained.min': '5' }, NOW));
    assert.ok(t.includes('retain_min (5: the table option snapshot.num-retained.min)'), t);
    const o = messageOf('INVALID_ARGUMENT', () => expireSettings({ ...base, retain_min: 4, options: 'snapshot.num-retained.max=2' }, { 'snapshot.num-retained.max': '100' }, NOW));
    assert.ok(o.includes('retain_max (2: snapshot.num-retained.max in the options argument)'), o);
    assert.ok(o.includes('retain_min (4)'), o);
  });
  test('retain_min below 1 from a table option says so', () => {
    const m = messageOf('INVALID_ARGUMENT', () => expireSettings(base, { 'snapshot.num-retained.min': '0' }, NOW));
    assert.ok(m.includes('retain_min must be at least 1, got 0: the table option snapshot.num-retained.min'), m);
  });
  test('a malformed option value names where it came from', () => {
    const m = messageOf('INVALID_ARGUMENT', () => expireSettings({ ...base, options: 'snapshot.expire.limit=lots' }, {}, NOW));
    assert.ok(m.includes("snapshot.expire.limit in the options argument: 'lots' is not an integer"), m);
  });
});

const snap = (id: number): SnapshotLike => ({ id }) as unknown as SnapshotLike;
const tag = (name: string, id: number): TagInfo => ({ name, path: `tag/tag-${name}`, snapshot: snap(id), raw: Buffer.alloc(0) });

function rollbackState(ids: number[], tags: TagInfo[] = []): RollbackState {
  return {
    generation: { latestId: Math.max(...ids), earliestId: Math.min(...ids), tags: new Map(tags.map((t) => [t.name, t.snapshot.id])), consumers: new Map() },
    tags,
    snapshotIds: new Set(ids),
    changelogIds: [],
    earliestHint: Math.min(...ids),
  };
}

describe('a missing rollback target lists what exists near it', () => {
  test('an expired snapshot id: the range left, keeping the stable code', () => {
    const m = messageOf('SNAPSHOT_NOT_FOUND', () => makeRollbackPlan(rollbackState([5, 6, 7, 8]), { kind: 'snapshot', id: 1 }));
    assert.match(m, /^Rollback snapshot '1' doesn't exist\./);
    assert.match(m, /Snapshots 5\.\.8 exist \(4 in all\); 1 is older than the earliest/);
  });
  test('a gap: the nearest ids, and a tag that still holds an older expired snapshot', () => {
    const m = messageOf('SNAPSHOT_NOT_FOUND', () => makeRollbackPlan(rollbackState([5, 6, 9, 10], [tag('keep', 2)]), { kind: 'snapshot', id: 7 }));
    assert.match(m, /the nearest to 7 are 5, 6, 9 and 10/);
    assert.match(m, /Tag 'keep' still holds expired snapshot 2/);
  });
  test('a misspelt tag: the tags spelt like it, keeping the stable code', () => {
    const m = messageOf('TAG_NOT_FOUND', () => makeRollbackPlan(rollbackState([1, 2, 3], [tag('release-1', 1), tag('release-2', 2), tag('nightly', 3)]), { kind: 'tag', name: 'relase-2' }));
    assert.match(m, /^Tag 'relase-2' doesn't exist\./);
    assert.match(m, /release-2 \(1 edit away\)/);
    assert.match(m, /3 tags in all/);
  });
});

describe('rollback argument refusals use the argument names of the procedure called', () => {
  test('rollback_to says snapshot_id, rollback says snapshot and version, each with what was given', () => {
    const to = messageOf('INVALID_ARGUMENT', () => rollbackTarget({ snapshot: 3n, tag: 'v1' }, { procedure: 'rollback_to', snapshot: 'snapshot_id', tag: 'tag' }));
    assert.match(to, /^rollback_to needs exactly one of snapshot_id, tag; got snapshot_id => 3 and tag => 'v1'\./);
    const spark = messageOf('INVALID_ARGUMENT', () => rollbackTarget({ version: null, snapshot: null, tag: null }));
    assert.match(spark, /^rollback needs exactly one of version, snapshot, tag; none was given\./);
    assert.doesNotMatch(spark, /RollbackProcedure/);
    assert.match(messageOf('INVALID_ARGUMENT', () => rollbackTarget({ snapshot: 0n, tag: null }, { procedure: 'rollback_to', snapshot: 'snapshot_id', tag: 'tag' })), /^snapshot_id 0 is not a valid snapshot id/);
  });
});
