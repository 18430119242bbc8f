/**
 * The range expire_changelogs expires (ExpireChangelogImpl.expire of Paimon 2.0), on plain ids and
 * commit times: each limit in turn, the latest changelog always kept, a changelog's own commit
 * time deciding, and Paimon's "nothing to do" cases. Java's own results on real tables:
 * tests/interop/procedures-changelogs.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CHANGELOG_RETENTION_DEFAULTS, selectChangelogRange, type ChangelogSelectionInput } from '../../../../src/paimon/changelogs/expire-changelog-selection.js';

/** Snapshots 10-12, long-lived changelogs 1-9 committed at 1000 * id. */
const BASE: ChangelogSelectionInput = {
  ...CHANGELOG_RETENTION_DEFAULTS,
  earliestSnapshotId: 10,
  latestSnapshotId: 12,
  earliestChangelogId: 1,
  latestChangelogId: 9,
  minConsumerNextSnapshot: null,
};
const time = async (id: number): Promise<number | null> => (id >= 1 && id <= 9 ? id * 1000 : null);

test('without arguments nothing expires (Flink passes no table options)', async () => {
  assert.equal((await selectChangelogRange(BASE, time))?.endExclusive, 1);
});

test('retain_max keeps the changelogs of the newest retain_max snapshot ids', async () => {
  const s = await selectChangelogRange({ ...BASE, retainMax: 6 }, time);
  assert.deepEqual(s, { earliestChangelogId: 1, endExclusive: 7, stoppedBy: 'retain_max' });
});

test('older_than stops at the first changelog committed at or after it (its own time, not its successor)', async () => {
  assert.equal((await selectChangelogRange({ ...BASE, olderThanMillis: 4000 }, time))?.endExclusive, 4);
  assert.equal((await selectChangelogRange({ ...BASE, olderThanMillis: 4001 }, time))?.endExclusive, 5);
});

test('the latest changelog, a consumer, max_deletes and retain_min each cap the range', async () => {
  const now = { ...BASE, olderThanMillis: Number.MAX_SAFE_INTEGER };
  assert.deepEqual(await selectChangelogRange(now, time), { earliestChangelogId: 1, endExclusive: 9, stoppedBy: 'latest_changelog' });
  assert.equal((await selectChangelogRange({ ...now, minConsumerNextSnapshot: 5 }, time))?.stoppedBy, 'consumer');
  assert.equal((await selectChangelogRange({ ...now, minConsumerNextSnapshot: 5 }, time))?.endExclusive, 5);
  assert.equal((await selectChangelogRange({ ...now, maxDeletes: 2 }, time))?.endExclusive, 3);
  assert.equal((await selectChangelogRange({ ...now, retainMin: 6 }, time))?.endExclusive, 7);
});

test("Paimon's nothing-to-do cases: no snapshot, no changelog, a range ending at the earliest changelog", async () => {
  assert.equal(await selectChangelogRange({ ...BASE, latestSnapshotId: null }, time), null);
  assert.equal(await selectChangelogRange({ ...BASE, earliestChangelogId: null, latestChangelogId: null }, time), null);
  assert.equal(await selectChangelogRange({ ...BASE, olderThanMillis: Number.MAX_SAFE_INTEGER, minConsumerNextSnapshot: 1 }, time), null);
  assert.equal(await selectChangelogRange({ ...BASE, retainMin: 20 }, time), null);
});

test('a changelog file that vanished is passed over by the time check', async () => {
  const gappy = async (id: number): Promise<number | null> => (id === 4 ? null : time(id));
  assert.equal((await selectChangelogRange({ ...BASE, olderThanMillis: 3500 }, gappy))?.endExclusive, 5);
});
