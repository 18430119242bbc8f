/**
 * Partition expiration as Paimon's `PartitionExpire` (1.4.2; `NormalPartitionExpire` in 2.0.0)
 * selects it, and the drop `FileStoreCommitImpl.dropPartitions` commits for it:
 *
 *  1. options (`ProcedureUtils.fillInPartitionOptions`): the call's arguments over its `options`
 *     over the table's; `partition.expiration-time` is required and the table must be partitioned;
 *  2. partition entries of the latest snapshot (`FileStoreScan.readPartitionEntries`): every entry
 *     of its data manifests, ADD +1 / DELETE -1 file per partition, the largest file creation time
 *     over all of them; partitions left with no file are not entries;
 *  3. the strategy (`partition.expiration-strategy`):
 *     - `values-time` (PartitionValuesTimeExpireStrategy): the partition's time from its values
 *       (PartitionTimeExtractor) is before `now - expiration-time` (local wall clock); a value that
 *       does not parse, or a NULL value the pattern needs, skips the partition (Java logs a warning);
 *     - `update-time` (PartitionUpdateTimeExpireStrategy): the last file creation time is before
 *       `now - expiration-time`, both turned into instants in the local zone;
 *  4. each selected partition's values as strings (`toString()` of the internal value, NULL as
 *     `partition.default-name`), sorted by their ','-joined text, at most
 *     `partition.expiration-max-num` (100);
 *  5. batches of `partition.expiration-batch-size` (default: the max number, so one batch), each
 *     dropped by one OVERWRITE commit deleting every live file of its partitions in buckets >= 0
 *     (all buckets for a postpone-bucket table) and their index files (CommitScanner's overwrite
 *     changes).
 *
 * Where Paimon goes wrong on odd values, this follows the partition rows themselves: Java splits
 * the joined text again at ',' (a value containing ',' shifts the values to the wrong keys) and
 * turns the strings back into values (a DATE's day number fails there); here the selected rows
 * are dropped as they are.
 */
import { PaimonError } from '../errors.js';
import { parseDuration } from '../spec/core-options.js';
import type { BinaryRow } from '../spec/binary-row.js';
import { toDeleteEntry, type ManifestEntry } from '../spec/manifest-entry.js';
import { DEFAULT_PARTITION_NAME, partitionValueToString, POSTPONE_BUCKET, type PartitionField } from '../spec/partition-path.js';
import type { IndexManifestEntry } from '../table/index-manifest.js';
import { compareLocalDateTime, localDateTimeFromWallMillis, PartitionTimeExtractor, type ExtractFailure, type LocalDateTime } from './partition-time-extractor.js';

export type ExpireStrategyName = 'values-time' | 'update-time';

/** The partition options the expiry reads, as `CoreOptions` resolves them. */
export interface PartitionExpireSettings {
  expirationMs: number;
  strategy: ExpireStrategyName;
  timestampFormatter: string | null;
  timestampPattern: string | null;
  maxExpires: number;
  batchSize: number;
  defaultPartitionName: string;
}

const DEFAULT_MAX_NUM = 100;

function intOf(options: Readonly<Record<string, string>>, key: string): number | null {
  const v = options[key];
  if (v === undefined) return null;
  if (!/^\s*-?\d+\s*$/.test(v)) throw new PaimonError('INVALID_ARGUMENT', `option ${key}: '${v}' is not an integer`);
  return Number(v.trim());
}

/**
 * The settings from the effective options (dynamic over the table's). Refuses what makes Java
 * fail: no expiration time or no partition keys ("Both the partition expiration time and
 * partition field can not be null."), an unknown strategy, a chain table (2.0's segment-based
 * expiry is not implemented), a max number below 1 (Java's limit() or its empty drop throws).
 */
export function partitionExpireSettings(options: Readonly<Record<string, string>>, partitionKeys: readonly string[]): PartitionExpireSettings {
  const time = options['partition.expiration-time'];
  if (time === undefined || time.trim() === '' || partitionKeys.length === 0) {
    throw new PaimonError(
      'INVALID_ARGUMENT',
      partitionKeys.length === 0
        ? 'Both the partition expiration time and partition field can not be null: the table is not partitioned'
        : "Both the partition expiration time and partition field can not be null: pass expiration_time (e.g. '7 d') or set the table option partition.expiration-time",
    );
  }
  if ((options['chain-table.enabled'] ?? 'false').toLowerCase() === 'true') {
    throw new PaimonError('UNSUPPORTED_TABLE', 'expire_partitions on a chain table (chain-table.enabled) is not supported by the proxy: run Paimon 2.0\'s expire_partitions from Flink or Spark');
  }
  const strategy = options['partition.expiration-strategy'] ?? 'values-time';
  if (strategy !== 'values-time' && strategy !== 'update-time') {
    throw new PaimonError('INVALID_ARGUMENT', `Unknown partitionExpireStrategy: '${strategy}'; use 'values-time' or 'update-time'`);
  }
  const maxExpires = intOf(options, 'partition.expiration-max-num') ?? DEFAULT_MAX_NUM;
  if (maxExpires < 1) throw new PaimonError('INVALID_ARGUMENT', `max_expires (partition.expiration-max-num) must be at least 1, got ${maxExpires}`);
  const batchSize = intOf(options, 'partition.expiration-batch-size') ?? maxExpires;
  return {
    expirationMs: parseDuration(time, 'partition.expiration-time'),
    strategy,
    timestampFormatter: emptyToNull(options['partition.timestamp-formatter']),
    timestampPattern: emptyToNull(options['partition.timestamp-pattern']),
    maxExpires,
    batchSize,
    defaultPartitionName: options['partition.default-name'] ?? DEFAULT_PARTITION_NAME,
  };
}

function emptyToNull(v: string | undefined): string | null {
  return v === undefined ? null : v;
}

/** `PartitionEntry` as `readPartitionEntries` aggregates it. */
export interface PartitionEntry {
  partition: BinaryRow;
  fileCount: number;
  recordCount: bigint;
  fileSizeInBytes: bigint;
  /** Largest `_CREATION_TIME` (local wall clock, millis as if UTC) of its entries; null if none carries one. */
  lastFileCreationWallMs: number | null;
}

/** `PartitionEntry.merge` over manifest entries, keeping partitions that still have files. */
export function partitionEntriesOf(entries: Iterable<ManifestEntry>): PartitionEntry[] {
  const m = new Map<string, PartitionEntry>();
  for (const e of entries) {
    const k = e.partition.key();
    let p = m.get(k);
    if (p === undefined) {
      p = { partition: e.partition, fileCount: 0, recordCount: 0n, fileSizeInBytes: 0n, lastFileCreationWallMs: null };
      m.set(k, p);
    }
    const sign = e.kind === 'ADD' ? 1 : -1;
    p.fileCount += sign;
    p.recordCount += BigInt(sign) * e.file.rowCount;
    p.fileSizeInBytes += BigInt(sign) * e.file.fileSize;
    if (e.file.creationTime !== null) {
      const c = Number(e.file.creationTime);
      if (p.lastFileCreationWallMs === null || c > p.lastFileCreationWallMs) p.lastFileCreationWallMs = c;
    }
  }
  return [...m.values()].filter((p) => p.fileCount > 0);
}

/** Wall-clock millis (as if UTC) to an instant in this process's zone (Java's `atZone(systemDefault())`). */
export function wallToEpochMillis(wallMs: number): number {
  const d = new Date(wallMs);
  return new Date(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()).getTime();
}

/** `LocalDateTime.now()` in this process's zone as wall millis. */
export function localWallMillis(epochMs: number): number {
  return epochMs - new Date(epochMs).getTimezoneOffset() * 60_000;
}

export interface ExpiredPartition {
  partition: BinaryRow;
  /** (key, value) in partition-key order, values as Paimon prints them. */
  spec: [string, string][];
  entry: PartitionEntry;
  /** values-time: the extracted time; update-time: the last file creation time (wall clock). */
  time: LocalDateTime | null;
}

export interface SkippedPartition {
  spec: [string, string][];
  reason: ExtractFailure;
  text: string | null;
}

export interface ExpireSelection {
  expired: ExpiredPartition[];
  /** values-time partitions whose values give no time (Paimon's warnings). */
  skipped: SkippedPartition[];
  /** `now - expiration-time` on the wall clock. */
  expireBefore: LocalDateTime;
}

/** Steps 3-4: which partitions expire, in Paimon's order, at most maxExpires. */
export function selectExpiredPartitions(entries: readonly PartitionEntry[], fields: readonly PartitionField[], s: PartitionExpireSettings, nowEpochMs: number): ExpireSelection {
  const keys = fields.map((f) => f.name);
  const expireWall = localWallMillis(nowEpochMs) - s.expirationMs;
  const expireBefore = localDateTimeFromWallMillis(expireWall);
  const extractor = s.strategy === 'values-time' ? new PartitionTimeExtractor(s.timestampPattern, s.timestampFormatter) : null;
  const expireInstant = wallToEpochMillis(expireWall);
  const candidates: { joined: string; x: ExpiredPartition }[] = [];
  const skipped: SkippedPartition[] = [];
  for (const entry of entries) {
    const values = fields.map((f, i) => partitionValueToString(f.type, entry.partition.get(i, f.type), true));
    const spec = keys.map((k, i): [string, string] => [k, values[i] ?? s.defaultPartitionName]);
    let time: LocalDateTime | null = null;
    if (extractor !== null) {
      const r = extractor.extract(keys, values);
      if ('skipped' in r) {
        skipped.push({ spec, reason: r.skipped, text: r.text });
        continue;
      }
      if (!(compareLocalDateTime(expireBefore, r.time) > 0)) continue;
      time = r.time;
    } else {
      const c = entry.lastFileCreationWallMs;
      if (c === null || !(expireInstant > wallToEpochMillis(c))) continue;
      time = localDateTimeFromWallMillis(c);
    }
    candidates.push({ joined: spec.map(([, v]) => v).join(','), x: { partition: entry.partition, spec, entry, time } });
  }
  // Java sorts the joined strings (String.compareTo: UTF-16 code units, as JS compares).
  candidates.sort((a, b) => (a.joined < b.joined ? -1 : a.joined > b.joined ? 1 : 0));
  return { expired: candidates.slice(0, s.maxExpires).map((c) => c.x), skipped, expireBefore };
}

/** `Map.toString()` without the braces, Paimon's result row: `k1=v1, k2=v2`. */
export function formatExpiredPartition(spec: readonly (readonly [string, string])[]): string {
  return spec.map(([k, v]) => `${k}=${v}`).join(', ');
}

/** Step 5's batches (`Lists.partition` when the batch size is smaller than the count). */
export function expireBatches<T>(items: readonly T[], batchSize: number): T[][] {
  if (items.length === 0) return [];
  if (batchSize > 0 && batchSize < items.length) {
    const out: T[][] = [];
    for (let i = 0; i < items.length; i += batchSize) out.push(items.slice(i, i + batchSize));
    return out;
  }
  return [items.slice()];
}

/**
 * `CommitScanner` overwrite changes for a partition drop: a DELETE for every live file of the
 * partitions (buckets >= 0 unless the table's bucket is -2) and for every index file of them.
 */
export function dropPartitionChanges(
  liveEntries: readonly ManifestEntry[],
  indexEntries: readonly IndexManifestEntry[],
  partitionKeys: ReadonlySet<string>,
  tableBucket: number,
): { deltaEntries: ManifestEntry[]; indexEntries: IndexManifestEntry[] } {
  const deltaEntries: ManifestEntry[] = [];
  for (const e of liveEntries) {
    if (e.kind !== 'ADD' || !partitionKeys.has(e.partition.key())) continue;
    if (tableBucket !== POSTPONE_BUCKET && e.bucket < 0) continue;
    deltaEntries.push(toDeleteEntry(e));
  }
  const idx: IndexManifestEntry[] = [];
  for (const e of indexEntries) if (partitionKeys.has(e.partition.key())) idx.push({ ...e, kind: 'DELETE' });
  return { deltaEntries, indexEntries: idx };
}
