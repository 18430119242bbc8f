/**
 * The commit path (`FileStoreCommitImpl.tryCommit`/`tryCommitOnce` of Paimon 1.4,
 * `ConflictDetection`, `RenamingSnapshotCommit`):
 *
 *  1. read the latest snapshot (hint, then listing);
 *  2. with conflict detection (any DELETE, any index change, COMPACT/OVERWRITE, or on request):
 *     merge the live entries of the changed partitions with the new entries; a DELETE without a
 *     live ADD, an ADD of a live file, a changed total-bucket count or overlapping key ranges at
 *     level >= 1 fail with COMMIT_CONFLICT (Java throws, it does not retry these); then the
 *     caller's `conflictCheck`, if any, against the same latest snapshot (every attempt);
 *  3. write the base list (the previous data manifests, unchanged), the delta manifests and list,
 *     the changelog manifests and list, and the index manifest when index files changed;
 *  4. build the snapshot as `tryCommitOnce` fills it (latest schema id, record counts, watermark
 *     max, statistics inherited while the schema is unchanged, indexManifest and nextRowId carried);
 *  5. create `snapshot-N` atomically (create-if-absent), then the LATEST hint;
 *  6. if the id was taken by someone else, retry from 1 with a fresh latest, up to
 *     `commit.max-retries` (10) with backoff between `commit.min-retry-wait` and
 *     `commit.max-retry-wait`; before retrying, a snapshot by the same commit user with the same
 *     identifier and kind means the commit already landed.
 *
 * Every new snapshot (and every manifest list) is written here; elsewhere snapshot files are
 * only copied as they are (a branch created from a snapshot or tag, a tagged snapshot put back by
 * rollback_to as RollbackHelper does). Besides `commit`, `rollbackToAsLatest` (Paimon 2.0's
 * `FileStoreCommitImpl.rollbackToAsLatest`) publishes an OVERWRITE snapshot whose live files are
 * an older snapshot's, through the same retry loop and publish step (5-6).
 */
import { randomUUID } from 'node:crypto';
import type { FileIO } from '../fs/file-io.js';
import { PaimonError, isPaimonError } from '../errors.js';
import { join } from '../fs/path.js';
import { branchPath, normalizeBranch } from './branch.js';
import { parseJson, isJsonObject, toBigInt } from '../spec/json.js';
import { readDuration } from '../spec/core-options.js';
import { SnapshotManager } from './snapshot-manager.js';
import {
  applyWriterStyle,
  CURRENT_SNAPSHOT_VERSION,
  FIRST_SNAPSHOT_ID,
  LONG_MAX_VALUE,
  type CommitKind,
  type Snapshot,
  type SnapshotWriterStyle,
} from '../spec/snapshot.js';
import type { BinaryFieldType, BinaryRow } from '../spec/binary-row.js';
import { compareStatsValues } from '../spec/simple-stats.js';
import { mergeEntries } from '../spec/file-entry.js';
import { toDeleteEntry, type ManifestEntry } from '../spec/manifest-entry.js';
import { diffLiveFiles } from '../maintenance/rollback-plan.js';
import { DEFAULT_MANIFEST_TARGET_FILE_SIZE, ManifestFile, metadataFileOptions } from './manifest-file.js';
import type { ManifestFileMeta } from '../spec/manifest-file-meta.js';
import { ManifestList } from './manifest-list.js';
import { DELETION_VECTORS_INDEX, IndexManifestFile, type BucketMode, type IndexManifestEntry } from './index-manifest.js';
import { FileStoreScan } from './file-store-scan.js';
import { FileStorePathFactory } from './file-store-path-factory.js';
import { partitionSpec, type PartitionField, type PartitionPathOptions } from '../spec/partition-path.js';
import { catalogSnapshotCommitOf, partitionStatistics, type SnapshotCommit } from '../catalog/snapshot-commit.js';
import { metastorePartitionsOf, type PartitionValues } from '../catalog/metastore-partitions.js';
import { FileSource, type DataFileMeta } from '../spec/data-file-meta.js';
import { ROW_ID_FIELD } from '../data/data-file-layout.js';

export interface FileStoreCommitOptions {
  fileIO: FileIO;
  tablePath: string;
  branch?: string | null;
  /** Stable per job: the idempotency key of a retried commit, with the identifier and kind. */
  commitUser: string;
  partitionFields: readonly PartitionField[];
  /** Trimmed primary-key types (for the level >= 1 key-range check); empty for append tables. */
  keyTypes?: readonly BinaryFieldType[];
  bucketMode: BucketMode;
  /** Table options (`manifest.compression`, `commit.max-retries`, ...). */
  tableOptions?: Readonly<Record<string, string>>;
  /**
   * Snapshot JSON layout to write. Default 2.0: Paimon 2.0's keys, a random `uuid` per new snapshot
   * (`Snapshot`'s constructor draws one for every commit); 1.0-1.4 readers ignore unknown keys.
   */
  writerStyle?: SnapshotWriterStyle;
  /** The latest schema id; default: the highest `schema/schema-N` of the branch. */
  latestSchemaId?: () => Promise<number>;
  /** Wall clock for `timeMillis` (tests). */
  now?: () => number;
  /** Sleep between retries (tests). */
  sleep?: (ms: number) => Promise<void>;
  /**
   * How the snapshot is published (Paimon's `SnapshotCommit`). Default: through the catalog that
   * registered the table (a REST catalog, src/paimon/catalog/snapshot-commit.ts), else `snapshot-N`
   * is created on storage as `RenamingSnapshotCommit` does.
   */
  snapshotCommit?: SnapshotCommit;
}

export interface CommitChanges {
  kind: CommitKind;
  /** New data-file entries (ADD, and DELETE copies of live ADDs). */
  deltaEntries: readonly ManifestEntry[];
  changelogEntries?: readonly ManifestEntry[];
  /** Index file changes (ADD/DELETE); the new index manifest is their combination with the old one. */
  indexEntries?: readonly IndexManifestEntry[];
  commitIdentifier: bigint;
  watermark?: bigint | null;
  properties?: Readonly<Record<string, string>>;
  /** A statistics file written for this commit (ANALYZE); otherwise inherited. */
  statisticsFile?: string | null;
  /**
   * The snapshot the changes were planned from. With `requireBase`, any other latest snapshot is a
   * COMMIT_CONFLICT; without it, the conflict check decides (as Java does).
   */
  baseSnapshotId?: number | null;
  requireBase?: boolean;
  /** Force (true) or skip (false) conflict detection; default as Java: on for DELETE/index/COMPACT/OVERWRITE. */
  detectConflicts?: boolean;
  /**
   * A caller's own conflict rule, evaluated in every attempt against the snapshot this commit is
   * about to supersede (after the built-in checks, before any file of the attempt is written); it
   * throws (COMMIT_CONFLICT) to give up. `snapshot-N` is created atomically, so a concurrent commit
   * that lands after the check makes the attempt lose its id, and the next attempt evaluates the
   * rule again against that commit: no window is left between the check and the snapshot.
   */
  conflictCheck?: (latest: Snapshot | null) => Promise<void>;
}

export interface CommitResult {
  snapshot: Snapshot;
  /** 1 when the first attempt succeeded. */
  attempts: number;
  /** True when a previous attempt had landed already (found by commit user, identifier and kind). */
  alreadyCommitted: boolean;
}

/** What `rollbackToAsLatest` commits, planned from `latest` (see planRollbackToAsLatest). */
export interface RollbackToAsLatestPlan {
  latest: Snapshot;
  target: Snapshot;
  /** The live data files of `latest`: the new snapshot's base. */
  base: ManifestEntry[];
  /** DELETE of files live only in `latest`, then ADD of files live only in `target`. */
  delta: ManifestEntry[];
  /** Files taken out of the view (DELETE entries) and put back into it (ADD entries). */
  removed: number;
  restored: number;
}

/** Points inside a rollback attempt where the caller may stop it (they throw); nothing is published then. */
export interface RollbackHooks {
  /** Before the attempt writes its first manifest. */
  beforeWrite?: () => void;
  /** After its manifests are written, before `snapshot-N` is created. */
  beforePublish?: (snapshot: Snapshot) => void;
}

const DEFAULT_MAX_RETRIES = 10;
const DEFAULT_MIN_RETRY_WAIT = 10;
const DEFAULT_MAX_RETRY_WAIT = 10_000;

export class FileStoreCommit {
  readonly branch: string;
  readonly snapshotManager: SnapshotManager;
  readonly pathFactory: FileStorePathFactory;
  readonly manifestFile: ManifestFile;
  readonly manifestList: ManifestList;
  readonly indexManifestFile: IndexManifestFile;
  readonly scan: FileStoreScan;
  private readonly partitionTypes: BinaryFieldType[];

  constructor(readonly opts: FileStoreCommitOptions) {
    this.branch = normalizeBranch(opts.branch);
    this.snapshotManager = new SnapshotManager(opts.fileIO, opts.tablePath, this.branch);
    const to = opts.tableOptions ?? {};
    const partitionOptions: PartitionPathOptions & { dataFilePathDirectory?: string | null } = {
      defaultName: to['partition.default-name'],
      legacyName: to['partition.legacy-name'] === undefined ? true : to['partition.legacy-name'] === 'true',
      dataFilePathDirectory: to['data-file.path-directory'] ?? null,
    };
    this.pathFactory = new FileStorePathFactory(opts.tablePath, opts.partitionFields, partitionOptions);
    const meta = metadataFileOptions(to);
    this.partitionTypes = opts.partitionFields.map((f) => f.type);
    this.manifestFile = new ManifestFile(opts.fileIO, this.pathFactory, this.partitionTypes, meta);
    this.manifestList = new ManifestList(opts.fileIO, this.pathFactory, meta);
    this.indexManifestFile = new IndexManifestFile(opts.fileIO, this.pathFactory, meta);
    this.scan = new FileStoreScan(this.manifestList, this.manifestFile);
  }

  /** How partition values are printed (`partition.default-name`, `partition.legacy-name`). */
  private partitionPathOptions(): PartitionPathOptions {
    return { defaultName: this.option('partition.default-name'), legacyName: this.option('partition.legacy-name') !== 'false' };
  }

  private option(key: string): string | undefined {
    return this.opts.tableOptions?.[key];
  }

  private async latestSchemaId(): Promise<number> {
    if (this.opts.latestSchemaId) return this.opts.latestSchemaId();
    const dir = join(branchPath(this.opts.tablePath, this.branch), 'schema');
    let max = -1;
    for await (const st of this.opts.fileIO.list(dir)) {
      const m = /^schema-(\d+)$/.exec(st.path.slice(st.path.lastIndexOf('/') + 1));
      if (m) max = Math.max(max, Number(m[1]));
    }
    if (max < 0) throw new PaimonError('SCHEMA_NOT_FOUND', `Cannot get latest schema for table ${this.opts.tablePath}`);
    return max;
  }

  /** Commits the changes as one snapshot, retrying only when the snapshot id was taken. */
  async commit(changes: CommitChanges): Promise<CommitResult> {
    if (changes.kind !== 'APPEND' && changes.kind !== 'COMPACT' && changes.kind !== 'OVERWRITE' && changes.kind !== 'ANALYZE') {
      throw new PaimonError('INVALID_ARGUMENT', `unknown commit kind ${String(changes.kind)}`);
    }
    // Row tracking: Java's commit gives row ids to new APPEND files that have neither a first row
    // id nor a physical _ROW_ID column (RowTrackingCommitUtils); this commit path assigns none, so
    // it takes only files that need none (compacted files carry _ROW_ID or keep their range).
    if (this.option('row-tracking.enabled') === 'true' && changes.deltaEntries.some((e) => e.kind === 'ADD' && needsRowIds(e.file))) {
      throw new PaimonError('UNSUPPORTED_TABLE', `table ${this.opts.tablePath} has row tracking enabled; adding files without row ids is not supported`);
    }
    if (
      changes.kind === 'APPEND' &&
      (changes.deltaEntries.some((e) => e.kind === 'DELETE') || (changes.indexEntries ?? []).some((e) => e.indexFile.indexType === DELETION_VECTORS_INDEX))
    ) {
      // ConflictDetection.shouldBeOverwriteCommit: Java commits such an APPEND as OVERWRITE.
      changes = { ...changes, kind: 'OVERWRITE' };
    }
    const kind = changes.kind;
    const result = await this.retryCommit(kind, changes.commitIdentifier, (latest) => this.tryCommitOnce({ ...changes, kind }, latest));
    await this.addMetastorePartitions(result.snapshot, changes.deltaEntries);
    return result;
  }

  /**
   * `AddPartitionCommitCallback`: after a commit, the partitions its ADD entries write into are
   * added to the metastore that keeps the table's partitions (if absent). The snapshot is
   * committed by then, so a failure here says so.
   */
  private async addMetastorePartitions(snapshot: Snapshot, entries: readonly ManifestEntry[]): Promise<void> {
    const metastore = metastorePartitionsOf(this.opts.tablePath);
    if (metastore === null || !metastore.keepsDataPartitions || this.opts.partitionFields.length === 0) return;
    const partitions = new Map<string, PartitionValues>();
    const options = this.partitionPathOptions();
    for (const e of entries) {
      if (e.kind !== 'ADD') continue;
      const key = e.partition.key();
      if (!partitions.has(key)) partitions.set(key, partitionSpec(e.partition, this.opts.partitionFields, options));
    }
    if (partitions.size === 0) return;
    try {
      await metastore.add([...partitions.values()]);
    } catch (e) {
      throw new PaimonError(
        'STORAGE_ERROR',
        `snapshot ${snapshot.id} of ${this.where()} is committed, but adding its ${partitions.size} partition(s) to the metastore failed (${(e as Error).message}); the next commit to those partitions adds them, or run a commit again once the metastore is back`,
        { cause: e },
      );
    }
  }

  /**
   * `tryCommit`: run attempts against a fresh latest snapshot until one publishes its snapshot,
   * up to `commit.max-retries`, with backoff between `commit.min-retry-wait` and
   * `commit.max-retry-wait`. Before a retry, a snapshot by this commit user with the same
   * identifier and kind means an earlier attempt landed after all.
   */
  private async retryCommit(
    kind: CommitKind,
    commitIdentifier: bigint,
    attempt: (latest: Snapshot | null) => Promise<Snapshot | null>,
  ): Promise<CommitResult> {
    const maxRetries = intOption(this.option('commit.max-retries'), DEFAULT_MAX_RETRIES);
    const minWait = durationMs(this.option('commit.min-retry-wait'), DEFAULT_MIN_RETRY_WAIT);
    const maxWait = durationMs(this.option('commit.max-retry-wait'), DEFAULT_MAX_RETRY_WAIT);
    const sleep = this.opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    let previousLatest: Snapshot | null | undefined;
    for (let n = 0; ; n++) {
      const latest = await this.snapshotManager.latestSnapshot();
      if (previousLatest !== undefined && latest !== null) {
        const landed = await this.findLandedCommit(previousLatest, latest, kind, commitIdentifier);
        if (landed) return { snapshot: landed, attempts: n + 1, alreadyCommitted: true };
      }
      const result = await attempt(latest);
      if (result !== null) return { snapshot: result, attempts: n + 1, alreadyCommitted: false };
      if (n >= maxRetries) {
        throw new PaimonError(
          'COMMIT_CONFLICT',
          `Commit to ${this.opts.tablePath} failed after ${n + 1} attempts: snapshot ids kept being taken by concurrent commits`,
        );
      }
      previousLatest = latest;
      const wait = Math.min(maxWait, minWait * 2 ** n);
      await sleep(wait / 2 + Math.random() * (wait / 2));
    }
  }

  /** After a lost race: did a snapshot by us (user, identifier, kind) land after `before`? */
  private async findLandedCommit(before: Snapshot | null, latest: Snapshot, kind: CommitKind, commitIdentifier: bigint): Promise<Snapshot | null> {
    const start = before === null ? FIRST_SNAPSHOT_ID : before.id + 1;
    for (let id = start; id <= latest.id; id++) {
      const s = id === latest.id ? latest : await this.snapshotManager.tryGetSnapshot(id);
      if (s && s.commitUser === this.opts.commitUser && s.commitIdentifier === commitIdentifier && s.commitKind === kind) return s;
    }
    return null;
  }

  /** One attempt: the committed snapshot, or null when snapshot-N already existed. */
  async tryCommitOnce(changes: CommitChanges, latest: Snapshot | null): Promise<Snapshot | null> {
    const latestId = latest?.id ?? null;
    if (changes.requireBase && (changes.baseSnapshotId ?? null) !== latestId) {
      throw new PaimonError(
        'COMMIT_CONFLICT',
        `The latest snapshot of ${this.where()} is ${latestId ?? 'none'}, but the changes were planned from snapshot ${changes.baseSnapshotId ?? 'none'}; plan again`,
      );
    }
    const delta = changes.deltaEntries;
    const changelog = changes.changelogEntries ?? [];
    const index = changes.indexEntries ?? [];
    const detect =
      changes.detectConflicts ??
      (changes.kind === 'COMPACT' || changes.kind === 'OVERWRITE' || delta.some((e) => e.kind === 'DELETE') || index.length > 0);
    if (latest !== null && detect) {
      await this.checkConflicts(latest, delta, changes.kind);
    } else if (latest === null) {
      const del = delta.find((e) => e.kind === 'DELETE');
      if (del) {
        throw new PaimonError('COMMIT_CONFLICT', `File deletion conflicts detected: ${del.file.fileName} is deleted but ${this.where()} has no snapshot`);
      }
    }
    if (changes.conflictCheck) await changes.conflictCheck(latest);

    const newId = latest === null ? FIRST_SNAPSHOT_ID : latest.id + 1;
    const written: string[] = [];
    let snapshot: Snapshot;
    try {
      const schemaId = await this.latestSchemaId();
      const previous = latest === null ? [] : await this.manifestList.readDataManifests(latest);
      const baseManifests = await this.mergeSmallManifests(previous, BigInt(schemaId), written);
      const base = await this.manifestList.write(baseManifests);
      written.push(base.fileName);

      let deltaRecordCount = 0n;
      for (const e of delta) deltaRecordCount += e.kind === 'ADD' ? e.file.rowCount : -e.file.rowCount;
      const totalRecordCount = (latest?.totalRecordCount ?? 0n) + deltaRecordCount;

      const deltaMetas = await this.manifestFile.write(delta, BigInt(schemaId));
      written.push(...deltaMetas.map((m) => m.fileName));
      const deltaList = await this.manifestList.write(deltaMetas);
      written.push(deltaList.fileName);

      let changelogList: { fileName: string; fileSize: number } | null = null;
      let changelogRecordCount: bigint | undefined;
      if (changelog.length > 0) {
        const metas = await this.manifestFile.write(changelog, BigInt(schemaId));
        written.push(...metas.map((m) => m.fileName));
        changelogList = await this.manifestList.write(metas);
        written.push(changelogList.fileName);
        changelogRecordCount = changelog.reduce((n, e) => n + e.file.rowCount, 0n);
      }

      const oldIndexManifest = latest?.indexManifest ?? null;
      const indexManifest = await this.indexManifestFile.writeIndexFiles(oldIndexManifest, index, this.opts.bucketMode);
      if (indexManifest !== null && indexManifest !== oldIndexManifest) written.push(indexManifest);

      let watermark = changes.watermark ?? undefined;
      if (latest?.watermark !== undefined && latest.watermark !== null) {
        watermark = watermark === undefined ? latest.watermark : watermark > latest.watermark ? watermark : latest.watermark;
      }

      let statistics: string | undefined;
      if (changes.statisticsFile) statistics = changes.statisticsFile;
      else if (latest?.statistics) {
        const statsSchemaId = await this.readStatisticsSchemaId(latest.statistics);
        if (statsSchemaId !== null && statsSchemaId === BigInt(schemaId)) statistics = latest.statistics;
      }

      const props = changes.properties && Object.keys(changes.properties).length > 0 ? { ...changes.properties } : undefined;
      snapshot = applyWriterStyle(
        {
          version: CURRENT_SNAPSHOT_VERSION,
          id: newId,
          schemaId,
          baseManifestList: base.fileName,
          baseManifestListSize: base.fileSize,
          deltaManifestList: deltaList.fileName,
          deltaManifestListSize: deltaList.fileSize,
          ...(changelogList ? { changelogManifestList: changelogList.fileName, changelogManifestListSize: changelogList.fileSize } : {}),
          ...(indexManifest !== null ? { indexManifest } : {}),
          commitUser: this.opts.commitUser,
          commitIdentifier: changes.commitIdentifier,
          commitKind: changes.kind,
          timeMillis: (this.opts.now ?? Date.now)(),
          totalRecordCount,
          deltaRecordCount,
          ...(changelogRecordCount !== undefined ? { changelogRecordCount } : {}),
          ...(watermark !== undefined ? { watermark } : {}),
          ...(statistics !== undefined ? { statistics } : {}),
          ...(props ? { properties: props } : {}),
          nextRowId: latest?.nextRowId ?? 0n,
        },
        this.opts.writerStyle ?? '2.0',
        randomUUID(),
      );
    } catch (e) {
      await this.cleanUp(written);
      throw e;
    }

    return this.publish(snapshot, written);
  }

  /**
   * The plan of `FileStoreCommitImpl.rollbackToAsLatest` against the given latest snapshot: the
   * live data files of the latest (the new base, written as fresh manifests) and the delta that
   * turns them into the target's (DELETE of files live only in the latest, ADD of files live only
   * in the target).
   */
  async planRollbackToAsLatest(latest: Snapshot, target: Snapshot): Promise<RollbackToAsLatestPlan> {
    const live = async (s: Snapshot): Promise<Map<string, ManifestEntry>> => {
      const merged = await this.scan.mergeManifests(await this.manifestList.readDataManifests(s));
      for (const [k, e] of merged) if (e.kind !== 'ADD') merged.delete(k);
      return merged;
    };
    const latestLive = await live(latest);
    const { toDelete, toAdd } = diffLiveFiles(latestLive, await live(target));
    return {
      latest,
      target,
      base: [...latestLive.values()],
      delta: [...toDelete.map(toDeleteEntry), ...toAdd.map((e) => ({ ...e, kind: 'ADD' as const }))],
      removed: toDelete.length,
      restored: toAdd.length,
    };
  }

  /**
   * `FileStoreCommitImpl.rollbackToAsLatest`: commit an OVERWRITE snapshot `latest + 1` whose
   * live files are the target's. schemaId, indexManifest, watermark, statistics, properties and
   * totalRecordCount are the target's; nextRowId is the larger of the latest's and the target's,
   * so row ids never move backwards. The plan is tied to its latest snapshot: when another commit
   * lands first (found before writing, or by losing `snapshot-N`), this is COMMIT_CONFLICT and the
   * files written for it are removed; a retry only finds out whether this commit landed after all.
   */
  async rollbackToAsLatest(plan: RollbackToAsLatestPlan, hooks: RollbackHooks = {}): Promise<CommitResult> {
    const result = await this.retryCommit('OVERWRITE', LONG_MAX_VALUE, (latest) => this.tryRollbackOnce(plan, latest, hooks));
    await this.addMetastorePartitions(result.snapshot, plan.delta);
    return result;
  }

  private async tryRollbackOnce(plan: RollbackToAsLatestPlan, latest: Snapshot | null, hooks: RollbackHooks): Promise<Snapshot | null> {
    if (latest?.id !== plan.latest.id) {
      throw new PaimonError(
        'COMMIT_CONFLICT',
        `The latest snapshot of ${this.where()} is ${latest?.id ?? 'none'}, but the rollback was planned from snapshot ${plan.latest.id}; plan again`,
      );
    }
    const { target } = plan;
    const written: string[] = [];
    let snapshot: Snapshot;
    try {
      hooks.beforeWrite?.();
      const schemaId = BigInt(target.schemaId);
      const baseMetas = await this.manifestFile.write(plan.base, schemaId);
      written.push(...baseMetas.map((m) => m.fileName));
      const base = await this.manifestList.write(baseMetas);
      written.push(base.fileName);
      const deltaMetas = await this.manifestFile.write(plan.delta, schemaId);
      written.push(...deltaMetas.map((m) => m.fileName));
      const deltaList = await this.manifestList.write(deltaMetas);
      written.push(deltaList.fileName);
      let deltaRecordCount = 0n;
      for (const e of plan.delta) deltaRecordCount += e.kind === 'ADD' ? e.file.rowCount : -e.file.rowCount;
      const nextRowId = maxBigint(latest.nextRowId, target.nextRowId);
      snapshot = applyWriterStyle(
        {
          version: CURRENT_SNAPSHOT_VERSION,
          id: latest.id + 1,
          schemaId: target.schemaId,
          baseManifestList: base.fileName,
          baseManifestListSize: base.fileSize,
          deltaManifestList: deltaList.fileName,
          deltaManifestListSize: deltaList.fileSize,
          ...(target.indexManifest !== undefined ? { indexManifest: target.indexManifest } : {}),
          commitUser: this.opts.commitUser,
          commitIdentifier: LONG_MAX_VALUE,
          commitKind: 'OVERWRITE',
          timeMillis: (this.opts.now ?? Date.now)(),
          totalRecordCount: target.totalRecordCount,
          deltaRecordCount,
          ...(target.watermark !== undefined ? { watermark: target.watermark } : {}),
          ...(target.statistics !== undefined ? { statistics: target.statistics } : {}),
          ...(target.properties !== undefined ? { properties: target.properties } : {}),
          ...(nextRowId !== undefined ? { nextRowId } : {}),
        },
        this.opts.writerStyle ?? '2.0',
        randomUUID(),
      );
      hooks.beforePublish?.(snapshot);
    } catch (e) {
      await this.cleanUp(written);
      throw e;
    }
    return this.publish(snapshot, written);
  }

  /**
   * `commitSnapshotImpl`: create `snapshot-N` (create-if-absent) and the LATEST hint. Returns the
   * snapshot, or null when another commit took the id (this attempt's files, named in `written`,
   * are then removed).
   */
  private async publish(snapshot: Snapshot, written: readonly string[]): Promise<Snapshot | null> {
    const catalogCommit = this.opts.snapshotCommit ?? catalogSnapshotCommitOf(this.opts.tablePath, this.branch);
    if (catalogCommit !== null) return this.publishThroughCatalog(catalogCommit, snapshot, written);
    let created: boolean;
    try {
      created = await this.snapshotManager.commitSnapshot(snapshot);
    } catch (e) {
      // Uncertain outcome: the snapshot may exist; keep the files (orphan cleaning removes leftovers).
      if (isPaimonError(e)) throw e;
      throw new PaimonError('STORAGE_ERROR', `writing snapshot ${snapshot.id} of ${this.where()} failed: ${(e as Error).message}`, { cause: e });
    }
    if (!created) {
      // "Already exists" can also mean our own write landed and its acknowledgement was lost (an
      // SDK retry of a conditional PUT that had succeeded): the snapshot then names our delta list,
      // whose name is unique to this attempt.
      let existing: Snapshot | null = null;
      try {
        existing = await this.snapshotManager.tryGetSnapshot(snapshot.id);
      } catch {
        return null; // cannot tell: keep the files (orphan cleaning removes them if unused)
      }
      if (existing !== null && existing.deltaManifestList === snapshot.deltaManifestList) {
        await this.snapshotManager.commitLatestHint(snapshot.id);
        return existing;
      }
      if (existing !== null) await this.cleanUp(written); // someone else's snapshot: ours are unreferenced
      return null;
    }
    return snapshot;
  }

  /**
   * `CatalogSnapshotCommit`: hand the snapshot, the uuid of the snapshot it was built on
   * (snapshot-(N-1), the latest this attempt read) and the per-partition statistics of its delta
   * (`PartitionEntry.merge(deltaFiles)`) to the catalog, which writes the files. A "not committed"
   * answer (the catalog's latest moved on) removes this attempt's files and lets the retry loop
   * start again from the new latest. A failure is rethrown with the files kept, as Java keeps
   * them: the outcome may be unknown, and orphan cleaning removes what stayed unreferenced.
   */
  private async publishThroughCatalog(commit: SnapshotCommit, snapshot: Snapshot, written: readonly string[]): Promise<Snapshot | null> {
    const base = snapshot.id > FIRST_SNAPSHOT_ID ? await this.snapshotManager.tryGetSnapshot(snapshot.id - 1) : null;
    const statistics = commit.wantsStatistics
      ? partitionStatistics(await this.scan.readDeltaEntries(snapshot), this.opts.partitionFields, this.partitionPathOptions())
      : [];
    if (!(await commit.commit(snapshot, this.branch, statistics, base?.uuid ?? null))) {
      await this.cleanUp(written);
      return null;
    }
    return snapshot;
  }

  /**
   * `ManifestFileMerger.tryMinorCompaction`: walk the previous data manifests in order; a run whose
   * sizes add up to `manifest.target-file-size` is merged (FileEntry.mergeEntries, so ADD/DELETE
   * pairs cancel and unmatched DELETEs stay) into new manifests; a trailing run is merged only when
   * it has at least `manifest.merge-min-count` (30) files. New files are recorded in `written`.
   * (Java's full compaction, triggered by `manifest.full-compaction-threshold-size`, is not done:
   * leaving manifests unmerged is valid, it only costs readers time.)
   */
  private async mergeSmallManifests(input: readonly ManifestFileMeta[], latestSchemaId: bigint, written: string[]): Promise<ManifestFileMeta[]> {
    const target = BigInt(this.manifestFile.options.targetFileSize ?? DEFAULT_MANIFEST_TARGET_FILE_SIZE);
    const minCount = intOption(this.option('manifest.merge-min-count'), 30);
    const result: ManifestFileMeta[] = [];
    let candidates: ManifestFileMeta[] = [];
    let total = 0n;
    const merge = async (): Promise<void> => {
      if (candidates.length === 1) {
        result.push(candidates[0]);
        return;
      }
      const map = await this.scan.mergeManifests(candidates);
      if (map.size > 0) {
        const merged = await this.manifestFile.write([...map.values()], latestSchemaId);
        written.push(...merged.map((m) => m.fileName));
        result.push(...merged);
      }
    };
    for (const m of input) {
      total += m.fileSize;
      candidates.push(m);
      if (total >= target) {
        await merge();
        candidates = [];
        total = 0n;
      }
    }
    if (candidates.length >= minCount) await merge();
    else result.push(...candidates);
    return result;
  }

  private where(): string {
    return this.branch === 'main' ? this.opts.tablePath : `${this.opts.tablePath} (branch ${this.branch})`;
  }

  private async cleanUp(fileNames: readonly string[]): Promise<void> {
    if (fileNames.length === 0) return;
    try {
      await this.opts.fileIO.deleteMany(fileNames.map((n) => this.pathFactory.toManifestFilePath(n)));
    } catch {
      // Best effort: leftovers are unreferenced and removed by orphan cleaning.
    }
  }

  private async readStatisticsSchemaId(fileName: string): Promise<bigint | null> {
    try {
      const text = (await this.opts.fileIO.readFile(this.pathFactory.toStatsFilePath(fileName))).toString('utf8');
      const obj = parseJson(text, fileName);
      if (!isJsonObject(obj) || obj.schemaId === undefined) return null;
      return toBigInt(obj.schemaId);
    } catch (e) {
      if (isPaimonError(e, 'FILE_NOT_FOUND')) return null;
      throw e;
    }
  }

  /** `ConflictDetection.checkConflicts` for the entries of this commit against `latest`. */
  async checkConflicts(latest: Snapshot, delta: readonly ManifestEntry[], kind: CommitKind): Promise<void> {
    const changed = new Map<string, BinaryRow>();
    for (const e of delta) changed.set(e.partition.key(), e.partition);
    if (changed.size === 0) return;
    const base = await this.scan.readLiveEntriesOfPartitions(latest, [...changed.values()]);
    checkEntryConflicts(base, delta, kind, this.opts.keyTypes ?? [], latest.id);
  }

  /**
   * `FileStoreCommitImpl.compactManifest`: a COMPACT snapshot on top of the latest whose base list
   * holds `compact(latest data manifests)` and whose delta list is empty; schema id, index
   * manifest, total record count, watermark, statistics, properties and nextRowId are the
   * latest's, there is no changelog. `compact` writes the manifests it merges (naming them in
   * `written`) and returns the new list, or null when nothing would change; then nothing is
   * committed and this returns null (as it does for a table without snapshots). A lost race is
   * retried from the new latest, as Java retries.
   */
  async compactManifest(
    compact: (manifests: readonly ManifestFileMeta[], latestSchemaId: bigint, written: string[]) => Promise<ManifestFileMeta[] | null>,
  ): Promise<CommitResult | null> {
    if ((await this.snapshotManager.latestSnapshot()) === null) return null;
    let unchanged = false;
    const result = await this.retryCommit('COMPACT', LONG_MAX_VALUE, async (latest) => {
      if (latest === null) throw new PaimonError('SNAPSHOT_NOT_FOUND', `every snapshot of ${this.where()} disappeared during manifest compaction`);
      const written: string[] = [];
      let snapshot: Snapshot;
      try {
        const merged = await compact(await this.manifestList.readDataManifests(latest), BigInt(await this.latestSchemaId()), written);
        unchanged = merged === null;
        if (merged === null) return latest;
        const base = await this.manifestList.write(merged);
        written.push(base.fileName);
        const delta = await this.manifestList.write([]);
        written.push(delta.fileName);
        snapshot = applyWriterStyle(
          {
            version: CURRENT_SNAPSHOT_VERSION,
            id: latest.id + 1,
            schemaId: latest.schemaId,
            baseManifestList: base.fileName,
            baseManifestListSize: base.fileSize,
            deltaManifestList: delta.fileName,
            deltaManifestListSize: delta.fileSize,
            ...(latest.indexManifest !== undefined ? { indexManifest: latest.indexManifest } : {}),
            commitUser: this.opts.commitUser,
            commitIdentifier: LONG_MAX_VALUE,
            commitKind: 'COMPACT',
            timeMillis: (this.opts.now ?? Date.now)(),
            totalRecordCount: latest.totalRecordCount,
            deltaRecordCount: 0n,
            ...(latest.watermark !== undefined ? { watermark: latest.watermark } : {}),
            ...(latest.statistics !== undefined ? { statistics: latest.statistics } : {}),
            ...(latest.properties !== undefined ? { properties: latest.properties } : {}),
            ...(latest.nextRowId !== undefined ? { nextRowId: latest.nextRowId } : {}),
          },
          this.opts.writerStyle ?? '2.0',
          randomUUID(),
        );
      } catch (e) {
        await this.cleanUp(written);
        throw e;
      }
      return this.publish(snapshot, written);
    });
    return unchanged ? null : result;
  }
}

/**
 * The pure part of `ConflictDetection.checkConflicts`: merge live entries with the new ones, then
 * refuse deletes of missing files, double adds, changed bucket counts and level >= 1 overlaps.
 */
export function checkEntryConflicts(
  base: readonly ManifestEntry[],
  delta: readonly ManifestEntry[],
  kind: CommitKind,
  keyTypes: readonly BinaryFieldType[],
  latestId: number,
): void {
  if (kind !== 'OVERWRITE') {
    // checkBucketKeepSame: over base + delta, unmerged, ignoring totalBuckets <= 0.
    const buckets = new Map<string, number>();
    for (const e of [...base, ...delta]) {
      if (e.totalBuckets <= 0) continue;
      const k = e.partition.key();
      const prev = buckets.get(k);
      if (prev === undefined) buckets.set(k, e.totalBuckets);
      else if (prev !== e.totalBuckets) {
        throw new PaimonError('COMMIT_CONFLICT', `Total buckets of a partition changed from ${prev} to ${e.totalBuckets} (file ${e.file.fileName}) without overwrite. Give up committing.`);
      }
    }
  }
  try {
    // The delta alone must not add and delete the same file, nor add it twice.
    mergeEntries(delta);
  } catch (e) {
    throw new PaimonError('COMMIT_CONFLICT', `The changes add the same file twice: ${(e as Error).message}`, { cause: e });
  }
  let merged: Map<string, ManifestEntry>;
  try {
    merged = mergeEntries([...base, ...delta]);
  } catch (e) {
    throw new PaimonError('COMMIT_CONFLICT', `File deletion conflicts detected against snapshot ${latestId}: ${(e as Error).message}. Give up committing.`, { cause: e });
  }
  for (const e of merged.values()) {
    if (e.kind === 'DELETE') {
      throw new PaimonError(
        'COMMIT_CONFLICT',
        `File deletion conflicts detected: ${e.file.fileName} (bucket ${e.bucket}, level ${e.file.level}) is no longer live in snapshot ${latestId}. Give up committing.`,
      );
    }
  }
  if (keyTypes.length > 0) checkKeyRanges([...merged.values()], keyTypes);
}

/** Java's key comparator on BinaryRow keys of the given types (field by field). */
export function compareKeys(a: BinaryRow, b: BinaryRow, types: readonly BinaryFieldType[]): number {
  for (let i = 0; i < types.length; i++) {
    const x = a.get(i, types[i]);
    const y = b.get(i, types[i]);
    if (x === null || y === null) {
      if (x === y) continue;
      return x === null ? -1 : 1;
    }
    let c = compareStatsValues(types[i], x, y);
    if (c === null) c = Buffer.compare(Buffer.from(x as Uint8Array), Buffer.from(y as Uint8Array));
    if (c !== 0) return c;
  }
  return 0;
}

/** `ConflictDetection.checkKeyRange`: files of one level >= 1 in a bucket must not overlap. */
export function checkKeyRanges(entries: readonly ManifestEntry[], keyTypes: readonly BinaryFieldType[]): void {
  const groups = new Map<string, ManifestEntry[]>();
  for (const e of entries) {
    if (e.kind !== 'ADD' || e.file.level < 1) continue;
    const k = `${e.partition.key()}|${e.bucket}|${e.file.level}`;
    const l = groups.get(k) ?? [];
    l.push(e);
    groups.set(k, l);
  }
  for (const list of groups.values()) {
    list.sort((x, y) => compareKeys(x.file.minKey, y.file.minKey, keyTypes));
    for (let i = 0; i + 1 < list.length; i++) {
      const a = list[i];
      const b = list[i + 1];
      if (compareKeys(a.file.maxKey, b.file.minKey, keyTypes) >= 0) {
        throw new PaimonError(
          'COMMIT_CONFLICT',
          `LSM conflicts detected: files ${a.file.fileName} and ${b.file.fileName} overlap in level ${a.file.level} of bucket ${a.bucket}. Give up committing.`,
        );
      }
    }
  }
}

function intOption(v: string | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  return Number.isInteger(n) && n >= 0 ? n : dflt;
}

/** A duration option in milliseconds; the default when absent or unreadable (Paimon's commit retries never fail on it). */
function durationMs(v: string | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  const d = readDuration(v);
  return 'ms' in d ? d.ms : dflt;
}

function maxBigint(a: bigint | undefined, b: bigint | undefined): bigint | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a > b ? a : b;
}

/** An APPEND file without a first row id or a physical `_ROW_ID` column: Java's commit would assign it row ids. */
function needsRowIds(f: DataFileMeta): boolean {
  return (f.fileSource ?? FileSource.APPEND) === FileSource.APPEND && f.firstRowId === null && !(f.writeCols ?? []).includes(ROW_ID_FIELD.name);
}
