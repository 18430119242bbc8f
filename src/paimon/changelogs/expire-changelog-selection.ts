/**
 * Which long-lived changelogs (`changelog/changelog-<id>`) expire_changelogs may expire: Paimon
 * 2.0's ExpireChangelogImpl.expire, step for step. The values come from the call alone, as
 * Flink's ExpireChangelogsProcedure builds its ExpireConfig without the table's options:
 * retainMax = Integer.MAX_VALUE, retainMin = 1, no time window and no per-call limit when absent,
 * so a call without arguments expires nothing.
 *
 * Result: expire [earliestChangelogId, endExclusive). The changelog `endExclusive` survives,
 * and so does the latest changelog whatever the arguments ("only clean the snapshot in changelog
 * dir": the range is capped by the latest changelog id).
 */
export interface ChangelogRetention {
  retainMax: number;
  retainMin: number;
  maxDeletes: number;
  /** A changelog committed at or after this instant (epoch ms) stops the range; -Infinity: no window. */
  olderThanMillis: number;
}

export interface ChangelogSelectionInput extends ChangelogRetention {
  earliestSnapshotId: number | null;
  latestSnapshotId: number | null;
  earliestChangelogId: number | null;
  latestChangelogId: number | null;
  /** Smallest nextSnapshot over the branch's consumers; null when there are none. */
  minConsumerNextSnapshot: number | null;
}

export type ChangelogStopReason = 'retain_min' | 'consumer' | 'max_deletes' | 'latest_changelog' | 'older_than' | 'retain_max';

export interface ChangelogSelection {
  earliestChangelogId: number;
  endExclusive: number;
  stoppedBy: ChangelogStopReason;
}

/** Paimon's defaults for the values the call leaves out (ExpireConfig.Builder without snapshot options). */
export const CHANGELOG_RETENTION_DEFAULTS: ChangelogRetention = {
  retainMax: 2_147_483_647,
  retainMin: 1,
  maxDeletes: 2_147_483_647,
  olderThanMillis: Number.NEGATIVE_INFINITY,
};

/**
 * The range to expire, or null when Paimon returns 0 without touching anything (no snapshot, no
 * long-lived changelog, or a range that ends at or before the earliest changelog).
 * `commitTimeOf(id)` is changelog `id`'s timeMillis, or null when its file is gone.
 */
export async function selectChangelogRange(
  input: ChangelogSelectionInput,
  commitTimeOf: (id: number) => Promise<number | null>,
): Promise<ChangelogSelection | null> {
  const { latestSnapshotId, earliestSnapshotId, latestChangelogId, earliestChangelogId } = input;
  if (latestSnapshotId === null || earliestSnapshotId === null || latestChangelogId === null || earliestChangelogId === null) return null;
  const min = Math.max(latestSnapshotId - input.retainMax + 1, earliestChangelogId);
  let maxExclusive = latestSnapshotId - input.retainMin + 1;
  let stoppedBy: ChangelogStopReason = 'retain_min';
  const cap = (v: number, why: ChangelogStopReason): void => {
    if (v < maxExclusive) {
      maxExclusive = v;
      stoppedBy = why;
    }
  };
  if (input.minConsumerNextSnapshot !== null) cap(input.minConsumerNextSnapshot, 'consumer');
  cap(earliestChangelogId + input.maxDeletes, 'max_deletes');
  cap(latestChangelogId, 'latest_changelog');
  if (maxExclusive <= earliestChangelogId) return null;
  // Unlike snapshot expiry, a changelog's own commit time decides (not its successor's).
  for (let id = min; id <= maxExclusive; id++) {
    const time = await commitTimeOf(id);
    if (time !== null && input.olderThanMillis <= time) {
      return { earliestChangelogId, endExclusive: id, stoppedBy: id === min && min > earliestChangelogId ? 'retain_max' : 'older_than' };
    }
  }
  return { earliestChangelogId, endExclusive: maxExclusive, stoppedBy };
}
