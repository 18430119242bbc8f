/**
 * Which snapshots expire_snapshots may expire: Paimon's ExpireSnapshotsImpl.expire, step
 * for step, with the argument checks Paimon lacks (Paimon accepts retain_min <= 0, which
 * deletes files of retained snapshots).
 *
 * Result: expire the snapshot ids [earliest, endExclusive). The snapshot `endExclusive`
 * itself always survives, and so does everything after it.
 */
import { PaimonError } from '../errors.js';

export interface ExpireRetention {
  /** snapshot.num-retained.max: everything older than the newest retainMax is expired. */
  retainMax: number;
  /** snapshot.num-retained.min: the newest retainMin are always kept. */
  retainMin: number;
  /** snapshot.expire.limit: at most this many ids per call. */
  maxDeletes: number;
  /**
   * Snapshot `id` may expire only if snapshot `id + 1` was committed before this instant
   * (epoch ms): `now - snapshot.time-retained`, or the parsed `older_than` argument.
   */
  olderThanMillis: number;
  /**
   * Where each value came from when the caller did not pass it as an argument (for messages):
   * e.g. `the table option snapshot.num-retained.min`. Absent: the argument of the same name.
   */
  sources?: RetentionSources;
}

/** Where retainMax, retainMin and maxDeletes came from, when not from their arguments. */
export interface RetentionSources {
  retainMax?: string;
  retainMin?: string;
  maxDeletes?: string;
}

export interface ExpireSelectionInput extends ExpireRetention {
  earliestId: number | null;
  latestId: number | null;
  /** Smallest `nextSnapshot` over this branch's consumers; null when there are none. */
  minConsumerNextSnapshot: number | null;
}

export type ExpireStopReason =
  | 'no_snapshots'
  | 'retain_min'
  | 'consumer'
  | 'max_deletes'
  | 'time_retained'
  | 'retain_max';

export interface ExpireSelection {
  earliestId: number;
  latestId: number;
  /** Expire [earliestId, endExclusive); nothing expires when endExclusive <= earliestId. */
  endExclusive: number;
  /** Which limit decided endExclusive (for the result and the logs). */
  stoppedBy: ExpireStopReason;
}

const INT_MAX = 2_147_483_647;

/** `10` when the argument gave it, `10: the table option snapshot.num-retained.min` otherwise. */
function valueWithSource(v: number, source: string | undefined): string {
  return source === undefined ? String(v) : `${v}: ${source}`;
}

/**
 * Argument checks, stricter than Paimon's (which only checks retainMax >= retainMin). Messages
 * use the procedure's argument names and say where a value that was not passed came from.
 */
export function validateRetention(r: Pick<ExpireRetention, 'retainMax' | 'retainMin' | 'maxDeletes' | 'sources'>): void {
  const src = r.sources ?? {};
  for (const [name, v, source] of [
    ['retain_max', r.retainMax, src.retainMax],
    ['retain_min', r.retainMin, src.retainMin],
    ['max_deletes', r.maxDeletes, src.maxDeletes],
  ] as const) {
    if (!Number.isInteger(v) || v > INT_MAX) {
      throw new PaimonError('INVALID_ARGUMENT', `${name} must be an INT, got ${valueWithSource(v, source)}.`);
    }
  }
  if (r.retainMin < 1) {
    throw new PaimonError(
      'INVALID_ARGUMENT',
      `retain_min must be at least 1, got ${valueWithSource(r.retainMin, src.retainMin)}: expiring the latest snapshot would delete files ` +
        `that the retained snapshots still use (apache/paimon#10088). Pass retain_min => 1 or more.`,
    );
  }
  if (r.retainMax < r.retainMin) {
    throw new PaimonError(
      'INVALID_ARGUMENT',
      `retain_max (${valueWithSource(r.retainMax, src.retainMax)}) must not be less than retain_min (${valueWithSource(r.retainMin, src.retainMin)}); ` +
        `pass retain_min => ${r.retainMax} or lower, or retain_max => ${r.retainMin} or higher.`,
    );
  }
  if (r.maxDeletes < 0) {
    throw new PaimonError('INVALID_ARGUMENT', `max_deletes must not be negative, got ${valueWithSource(r.maxDeletes, src.maxDeletes)}.`);
  }
}

/**
 * Compute the range to expire. `commitTimeOf(id)` returns snapshot `id`'s timeMillis, or
 * null if the snapshot file is gone (another expirer may have deleted it; Paimon ignores it).
 */
export async function selectExpireRange(
  input: ExpireSelectionInput,
  commitTimeOf: (id: number) => Promise<number | null>,
): Promise<ExpireSelection | null> {
  validateRetention(input);
  const { latestId, earliestId } = input;
  if (latestId === null || earliestId === null) return null;

  // Below `min` everything is a candidate: retain_max is a hard cap.
  const min = Math.max(latestId - input.retainMax + 1, earliestId);

  let maxExclusive = latestId - input.retainMin + 1;
  let stoppedBy: ExpireStopReason = 'retain_min';
  // A consumer's next snapshot (and everything after it) must stay readable.
  if (input.minConsumerNextSnapshot !== null && input.minConsumerNextSnapshot < maxExclusive) {
    maxExclusive = input.minConsumerNextSnapshot;
    stoppedBy = 'consumer';
  }
  if (earliestId + input.maxDeletes < maxExclusive) {
    maxExclusive = earliestId + input.maxDeletes;
    stoppedBy = 'max_deletes';
  }

  for (let id = min; id < maxExclusive; id++) {
    // Snapshot `id` may go only once its successor has been alive longer than the window.
    const nextTime = await commitTimeOf(id + 1);
    if (nextTime !== null && input.olderThanMillis <= nextTime) {
      return { earliestId, latestId, endExclusive: id, stoppedBy: id === min && min > earliestId ? 'retain_max' : 'time_retained' };
    }
  }
  return { earliestId, latestId, endExclusive: maxExclusive, stoppedBy };
}

export interface ChangelogRetentionOptions {
  /** changelog.num-retained.max, if set on the table. */
  changelogRetainMax: number | null;
  /** changelog.num-retained.min, if set. */
  changelogRetainMin: number | null;
  /** changelog.time-retained in ms, if set. */
  changelogTimeRetainMs: number | null;
}

/**
 * Whether the changelog lifecycle is decoupled from the snapshots (ExpireConfig): a changelog
 * option that keeps more than the effective snapshot retention. Paimon's expire_snapshots
 * procedure never passes these options and therefore always acts as if coupled, deleting
 * changelog files the table was configured to keep. We honour them, as Paimon's writer-side
 * expiry (CoreOptions.expireConfig) does: see paimon-procedures.md §5 and our README.
 */
export function isChangelogDecoupled(
  snapshot: { retainMax: number; retainMin: number; timeRetainMs: number },
  changelog: ChangelogRetentionOptions,
): boolean {
  return (
    (changelog.changelogRetainMax !== null && changelog.changelogRetainMax > snapshot.retainMax) ||
    (changelog.changelogRetainMin !== null && changelog.changelogRetainMin > snapshot.retainMin) ||
    (changelog.changelogTimeRetainMs !== null && changelog.changelogTimeRetainMs > snapshot.timeRetainMs)
  );
}
