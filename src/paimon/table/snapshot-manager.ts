/**
 * Snapshots of one branch of a table (`SnapshotManager`): `<branch path>/snapshot/snapshot-N`
 * plus the EARLIEST/LATEST hints. Lookup follows Java (hint, then listing); commit publishes
 * `snapshot-N` with create-if-absent and then makes LATEST exact, because pypaimon trusts it.
 */
import { BranchScopedManager } from './branch-scoped-manager.js';
import { PaimonError, isPaimonError } from '../errors.js';
import {
  EARLIEST,
  LATEST,
  commitHint,
  deleteHint,
  findEarliest,
  findLatest,
  listVersionedFileStatus,
  readHint,
} from './hint-file.js';
import { join } from '../fs/path.js';
import { LONG_MIN_VALUE as LONG_MIN, parseSnapshot, snapshotToJson, type Snapshot } from '../spec/snapshot.js';

export const SNAPSHOT_PREFIX = 'snapshot-';
/** `SnapshotManager.EARLIEST_SNAPSHOT_DEFAULT_RETRY_NUM`. */
const EARLIEST_RETRY = 3;
/** Readers retry a parse failure (a file caught mid-write on stores without atomic publish). */
const PARSE_RETRIES = 5;
const PARSE_RETRY_MS = 100;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export class SnapshotManager extends BranchScopedManager {
  copyWithBranch(branch: string): SnapshotManager {
    return new SnapshotManager(this.fileIO, this.tablePath, branch);
  }

  snapshotDirectory(): string {
    return this.branchDirectory('snapshot');
  }

  snapshotPath(id: number): string {
    return join(this.snapshotDirectory(), SNAPSHOT_PREFIX + id);
  }

  /** The snapshot, or null when its file does not exist. */
  async tryGetSnapshot(id: number): Promise<Snapshot | null> {
    const path = this.snapshotPath(id);
    for (let attempt = 1; ; attempt++) {
      let text: string;
      try {
        text = (await this.fileIO.readFile(path)).toString('utf8');
      } catch (e) {
        if (isPaimonError(e, 'FILE_NOT_FOUND')) return null;
        throw e;
      }
      try {
        const s = parseSnapshot(text, path);
        if (s.id !== id) {
          throw new PaimonError('CORRUPT_METADATA', `${path}: file name says snapshot ${id} but its id is ${s.id}`);
        }
        return s;
      } catch (e) {
        if (attempt >= PARSE_RETRIES || !isPaimonError(e, 'CORRUPT_METADATA') || text.trim().endsWith('}')) throw e;
        await sleep(PARSE_RETRY_MS);
      }
    }
  }

  /** The snapshot; SNAPSHOT_NOT_FOUND when it does not exist (e.g. expired). */
  async snapshot(id: number): Promise<Snapshot> {
    const s = await this.tryGetSnapshot(id);
    if (s === null) {
      throw new PaimonError(
        'SNAPSHOT_NOT_FOUND',
        `snapshot ${id} does not exist in ${this.where()} (it may have expired)`,
      );
    }
    return s;
  }

  async snapshotExists(id: number): Promise<boolean> {
    return this.fileIO.exists(this.snapshotPath(id));
  }

  async latestSnapshotId(): Promise<number | null> {
    return findLatest(this.fileIO, this.snapshotDirectory(), SNAPSHOT_PREFIX, (id) => this.snapshotPath(id));
  }

  async earliestSnapshotId(): Promise<number | null> {
    return findEarliest(this.fileIO, this.snapshotDirectory(), SNAPSHOT_PREFIX, (id) => this.snapshotPath(id));
  }

  async latestSnapshot(): Promise<Snapshot | null> {
    const id = await this.latestSnapshotId();
    return id === null ? null : this.snapshot(id);
  }

  /** Like Java: if the earliest disappears under us (expired meanwhile), try the next few ids. */
  async earliestSnapshot(): Promise<Snapshot | null> {
    const first = await this.earliestSnapshotId();
    if (first === null) return null;
    for (let id = first; id <= first + EARLIEST_RETRY; id++) {
      const s = await this.tryGetSnapshot(id);
      if (s !== null) return s;
    }
    return null;
  }

  /** Raw hint values (null when absent or unreadable). */
  async readLatestHint(): Promise<number | null> {
    return readHint(this.fileIO, this.snapshotDirectory(), LATEST);
  }

  async readEarliestHint(): Promise<number | null> {
    return readHint(this.fileIO, this.snapshotDirectory(), EARLIEST);
  }

  /** Every snapshot id in the directory, streamed in listing order (not sorted). */
  async *snapshotIds(): AsyncIterable<number> {
    for await (const { version } of listVersionedFileStatus(this.fileIO, this.snapshotDirectory(), SNAPSHOT_PREFIX)) {
      yield version;
    }
  }

  async sortedSnapshotIds(): Promise<number[]> {
    const ids: number[] = [];
    for await (const id of this.snapshotIds()) ids.push(id);
    return ids.sort((a, b) => a - b);
  }

  async snapshotCount(): Promise<number> {
    let n = 0;
    for await (const _ of this.snapshotIds()) n++;
    return n;
  }

  /**
   * Every snapshot, ascending by id, read with bounded parallelism. Snapshots that vanish while
   * we read (expired concurrently) are skipped, as `safelyGetAllSnapshots` does.
   */
  async *snapshots(concurrency = 16): AsyncIterable<Snapshot> {
    const ids = await this.sortedSnapshotIds();
    for (let i = 0; i < ids.length; i += concurrency) {
      const batch = await Promise.all(ids.slice(i, i + concurrency).map((id) => this.tryGetSnapshot(id)));
      for (const s of batch) if (s !== null) yield s;
    }
  }

  /**
   * Publish `snapshot-N` if nobody has (create-if-absent), then make LATEST exact.
   * Returns false when snapshot-N already exists (a concurrent commit won); the commit layer turns
   * that into a retry or a COMMIT_CONFLICT.
   */
  async commitSnapshot(snapshot: Snapshot): Promise<boolean> {
    const path = this.snapshotPath(snapshot.id);
    const created = await this.fileIO.tryCreateAtomic(path, snapshotToJson(snapshot));
    if (!created) return false;
    try {
      await this.commitLatestHintExact(snapshot.id);
    } catch (e) {
      throw new PaimonError(
        'STORAGE_ERROR',
        `snapshot ${snapshot.id} of ${this.where()} was committed, but the LATEST hint could not be updated: ${(e as Error).message}`,
        { cause: e },
      );
    }
    return true;
  }

  /**
   * Write LATEST=id, then guard against a slower committer overwriting a newer value: if
   * snapshot-(id+1) exists, recompute the latest id by listing and write that (bounded).
   */
  private async commitLatestHintExact(id: number): Promise<void> {
    let target = id;
    for (let round = 0; round < 3; round++) {
      await commitHint(this.fileIO, this.snapshotDirectory(), LATEST, target);
      if (!(await this.snapshotExists(target + 1))) return;
      let max = target;
      for await (const v of this.snapshotIds()) if (v > max) max = v;
      target = max;
    }
  }

  /**
   * `RollbackHelper.createSnapshotFileIfNeeded`: put back the file of a snapshot that only a tag
   * still holds (rolling back to that tag), create-if-absent. False when the file exists.
   */
  async createSnapshotFileIfNeeded(snapshot: Snapshot): Promise<boolean> {
    return this.fileIO.tryCreateAtomic(this.snapshotPath(snapshot.id), snapshotToJson(snapshot));
  }

  async commitLatestHint(id: number): Promise<void> {
    await commitHint(this.fileIO, this.snapshotDirectory(), LATEST, id);
  }

  async commitEarliestHint(id: number): Promise<void> {
    await commitHint(this.fileIO, this.snapshotDirectory(), EARLIEST, id);
  }

  async deleteLatestHint(): Promise<void> {
    await deleteHint(this.fileIO, this.snapshotDirectory(), LATEST);
  }

  async deleteEarliestHint(): Promise<void> {
    await deleteHint(this.fileIO, this.snapshotDirectory(), EARLIEST);
  }

  async deleteSnapshot(id: number): Promise<boolean> {
    return this.fileIO.delete(this.snapshotPath(id));
  }

  /** Latest snapshot with timeMillis <= t (binary search between earliest and latest, like Java). */
  async earlierOrEqualTimeMills(t: number): Promise<Snapshot | null> {
    const latestId = await this.latestSnapshotId();
    if (latestId === null) return null;
    let latest: number = latestId;
    const earliestSnap = await this.earliestSnapshot();
    if (earliestSnap === null || earliestSnap.timeMillis > t) return null;
    let earliest = earliestSnap.id;
    let found: Snapshot | null = null;
    while (earliest <= latest) {
      const mid: number = earliest + Math.floor((latest - earliest) / 2);
      const s = await this.snapshot(mid);
      if (s.timeMillis > t) latest = mid - 1;
      else if (s.timeMillis < t) {
        earliest = mid + 1;
        found = s;
      } else return s;
    }
    return found;
  }

  /** Earliest snapshot with timeMillis >= t. */
  async laterOrEqualTimeMills(t: number): Promise<Snapshot | null> {
    const e0 = await this.earliestSnapshotId();
    const l0 = await this.latestSnapshotId();
    if (e0 === null || l0 === null) return null;
    let earliest: number = e0;
    let latest: number = l0;
    if ((await this.snapshot(latest)).timeMillis < t) return null;
    let found: Snapshot | null = null;
    while (earliest <= latest) {
      const mid: number = earliest + Math.floor((latest - earliest) / 2);
      const s = await this.snapshot(mid);
      if (s.timeMillis > t) {
        latest = mid - 1;
        found = s;
      } else if (s.timeMillis < t) earliest = mid + 1;
      else return s;
    }
    return found;
  }

  /**
   * Latest snapshot whose watermark is <= `watermark` (`earlierOrEqualWatermark`): null when the
   * latest snapshot's watermark is Long.MIN_VALUE (no watermarks) or none qualifies. Snapshots
   * without a watermark are skipped over as Java does.
   */
  async earlierOrEqualWatermark(watermark: bigint): Promise<Snapshot | null> {
    return this.searchWatermark(watermark, 'earlier');
  }

  /** Earliest snapshot whose watermark is >= `watermark` (`laterOrEqualWatermark`). */
  async laterOrEqualWatermark(watermark: bigint): Promise<Snapshot | null> {
    return this.searchWatermark(watermark, 'later');
  }

  private async searchWatermark(watermark: bigint, mode: 'earlier' | 'later'): Promise<Snapshot | null> {
    const latestId = await this.latestSnapshotId();
    if (latestId === null) return null;
    if ((await this.snapshot(latestId)).watermark === LONG_MIN) return null;
    const earliestSnap = await this.earliestSnapshot();
    if (earliestSnap === null) return null;
    let earliest = earliestSnap.id;
    let latest = latestId;
    let earliestWatermark = earliestSnap.watermark;
    while (earliestWatermark === undefined && earliest < latest) {
      earliest++;
      earliestWatermark = (await this.snapshot(earliest)).watermark;
    }
    if (earliestWatermark === undefined) return null;
    if (earliestWatermark >= watermark) return this.snapshot(earliest);
    let found: Snapshot | null = null;
    while (earliest <= latest) {
      let mid: number = earliest + Math.floor((latest - earliest) / 2);
      let snap = await this.snapshot(mid);
      let wm = snap.watermark;
      while (wm === undefined && mid > earliest) {
        mid--;
        snap = await this.snapshot(mid);
        wm = snap.watermark;
      }
      if (wm === undefined) {
        earliest = mid + 1;
        continue;
      }
      if (wm > watermark) {
        latest = mid - 1;
        if (mode === 'later') found = snap;
      } else if (wm < watermark) {
        earliest = mid + 1;
        if (mode === 'earlier') found = snap;
      } else {
        return snap;
      }
    }
    return found;
  }

  /** Newest snapshot committed by `user`, scanning back from latest (stops at a gap, like Java). */
  async latestSnapshotOfUser(user: string): Promise<Snapshot | null> {
    const latest = await this.latestSnapshotId();
    if (latest === null) return null;
    for (let id = latest; id >= 1; id--) {
      const s = await this.tryGetSnapshot(id);
      if (s === null) return null;
      if (s.commitUser === user) return s;
    }
    return null;
  }
}
