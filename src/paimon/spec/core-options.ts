/**
 * The table options this library and the procedures read, with Paimon's defaults
 * (`CoreOptions`, paimon-api release-1.4.2). Values are the strings of the schema's `options`
 * map; durations and memory sizes use Paimon's text forms (`1 h`, `30min`, `8mb`, `500 B`).
 */
import { PaimonError } from '../errors.js';

export type ChangelogProducer = 'none' | 'input' | 'full-compaction' | 'lookup';
export type MergeEngine = 'deduplicate' | 'partial-update' | 'aggregation' | 'first-row';

const INT_MAX = 2147483647;

/** A boolean table option as the tables in this project read it: `true` (any case, trimmed), else false. */
export function optionBool(v: string | undefined): boolean {
  return v !== undefined && v.trim().toLowerCase() === 'true';
}

/** A list option (`a, b,c`): its items trimmed, empty ones dropped; none when unset. */
export function optionList(v: string | undefined): string[] {
  return v === undefined ? [] : v.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** Milliseconds per unit label of `TimeUtils.parseDuration` (Java's TimeUnit labels and their plurals). */
const DURATION_UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1, milli: 1, millis: 1, millisecond: 1, milliseconds: 1,
  s: 1000, sec: 1000, secs: 1000, second: 1000, seconds: 1000,
  m: 60_000, min: 60_000, mins: 60_000, minute: 60_000, minutes: 60_000,
  h: 3_600_000, hour: 3_600_000, hours: 3_600_000,
  d: 86_400_000, day: 86_400_000, days: 86_400_000,
  ns: 1e-6, nano: 1e-6, nanos: 1e-6, us: 1e-3, micro: 1e-3, micros: 1e-3,
};

export type DurationReading = { ms: number } | { error: 'syntax' } | { error: 'unit'; unit: string };

/**
 * The one duration reader (`TimeUtils.parseDuration`: `<number><unit?>`, e.g. `1 h`, `30min`,
 * `100ms`), returning why a text is not a duration instead of throwing, so that each caller words
 * its own error. A bare number is in `bareUnitMs` (milliseconds, as Paimon's options; the call
 * timeout reads seconds, as Doris's query_timeout).
 */
export function readDuration(text: string, bareUnitMs = 1): DurationReading {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!m) return { error: 'syntax' };
  const f = m[2] === '' ? bareUnitMs : DURATION_UNIT_MS[m[2].toLowerCase()];
  if (f === undefined) return { error: 'unit', unit: m[2] };
  return { ms: Math.round(Number(m[1]) * f) };
}

/** A duration table option in milliseconds; INVALID_ARGUMENT naming the option otherwise. */
export function parseDuration(text: string, key = 'duration'): number {
  const d = readDuration(text);
  if ('ms' in d) return d.ms;
  throw new PaimonError(
    'INVALID_ARGUMENT',
    d.error === 'unit' ? `option ${key}: unknown time unit "${d.unit}" in "${text}"` : `option ${key}: cannot parse duration "${text}"`,
  );
}

/** `MemorySize.parse`: `<number><unit?>`; no unit means bytes. Returns bytes. */
export function parseMemorySize(text: string, key = 'size'): number {
  const m = /^\s*(\d+)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!m) throw new PaimonError('INVALID_ARGUMENT', `option ${key}: cannot parse memory size "${text}"`);
  const unit = m[2].toLowerCase();
  const mult: Record<string, number> = {
    '': 1, b: 1, bytes: 1,
    k: 1024, kb: 1024, kibibytes: 1024,
    m: 1024 ** 2, mb: 1024 ** 2, mebibytes: 1024 ** 2,
    g: 1024 ** 3, gb: 1024 ** 3, gibibytes: 1024 ** 3,
    t: 1024 ** 4, tb: 1024 ** 4, tebibytes: 1024 ** 4,
  };
  const f = mult[unit];
  if (f === undefined) throw new PaimonError('INVALID_ARGUMENT', `option ${key}: unknown size unit "${m[2]}" in "${text}"`);
  return Number(m[1]) * f;
}

export class CoreOptions {
  constructor(
    readonly options: Readonly<Record<string, string>>,
    private readonly primaryKeyTable = false,
  ) {}

  get(key: string): string | undefined {
    const v = this.options[key];
    return v === undefined ? undefined : v;
  }

  private int(key: string, def: number): number {
    const v = this.get(key);
    if (v === undefined) return def;
    const n = Number(v.trim());
    if (!Number.isInteger(n)) throw new PaimonError('INVALID_ARGUMENT', `option ${key} must be an integer, got "${v}"`);
    return n;
  }

  private optInt(key: string): number | undefined {
    return this.get(key) === undefined ? undefined : this.int(key, 0);
  }

  private bool(key: string, def: boolean): boolean {
    const v = this.get(key);
    if (v === undefined) return def;
    const s = v.trim().toLowerCase();
    if (s === 'true') return true;
    if (s === 'false') return false;
    throw new PaimonError('INVALID_ARGUMENT', `option ${key} must be true or false, got "${v}"`);
  }

  private duration(key: string, defMs: number): number {
    const v = this.get(key);
    return v === undefined ? defMs : parseDuration(v, key);
  }

  private optDuration(key: string): number | undefined {
    const v = this.get(key);
    return v === undefined ? undefined : parseDuration(v, key);
  }

  private size(key: string, def: number): number {
    const v = this.get(key);
    return v === undefined ? def : parseMemorySize(v, key);
  }

  /** -1 dynamic (PK) / unaware (append); -2 postpone; >0 fixed. */
  bucket(): number {
    return this.int('bucket', -1);
  }
  bucketKey(): string[] {
    const v = this.get('bucket-key');
    return v === undefined || v.trim() === '' ? [] : v.split(',').map((s) => s.trim());
  }
  fileFormat(): string {
    return (this.get('file.format') ?? 'parquet').toLowerCase();
  }
  fileCompression(): string {
    return this.get('file.compression') ?? 'zstd';
  }
  zstdLevel(): number {
    return this.int('file.compression.zstd-level', 1);
  }
  manifestFormat(): string {
    return (this.get('manifest.format') ?? 'avro').toLowerCase();
  }
  manifestCompression(): string {
    return this.get('manifest.compression') ?? 'zstd';
  }
  manifestTargetFileSize(): number {
    return this.size('manifest.target-file-size', 8 * 1024 * 1024);
  }
  manifestMergeMinCount(): number {
    return this.int('manifest.merge-min-count', 30);
  }
  manifestFullCompactionThresholdSize(): number {
    return this.size('manifest.full-compaction-threshold-size', 16 * 1024 * 1024);
  }
  targetFileSize(): number {
    return this.size('target-file-size', this.primaryKeyTable ? 128 * 1024 * 1024 : 256 * 1024 * 1024);
  }
  snapshotNumRetainMin(): number {
    return this.int('snapshot.num-retained.min', 10);
  }
  snapshotNumRetainMax(): number {
    return this.int('snapshot.num-retained.max', INT_MAX);
  }
  snapshotTimeRetainedMs(): number {
    return this.duration('snapshot.time-retained', 3_600_000);
  }
  snapshotExpireLimit(): number {
    return this.int('snapshot.expire.limit', 50);
  }
  snapshotCleanEmptyDirectories(): boolean {
    return this.bool('snapshot.clean-empty-directories', false);
  }
  /** Falls back to the snapshot value, as `CoreOptions.changelogNumRetainMin`. */
  changelogNumRetainMin(): number {
    return this.optInt('changelog.num-retained.min') ?? this.snapshotNumRetainMin();
  }
  changelogNumRetainMax(): number {
    return this.optInt('changelog.num-retained.max') ?? this.snapshotNumRetainMax();
  }
  changelogTimeRetainedMs(): number {
    return this.optDuration('changelog.time-retained') ?? this.snapshotTimeRetainedMs();
  }
  /** Changelog lifecycle decoupled from snapshots when any changelog retention exceeds the snapshot one. */
  changelogLifecycleDecoupled(): boolean {
    return (
      this.changelogNumRetainMax() > this.snapshotNumRetainMax() ||
      this.changelogTimeRetainedMs() > this.snapshotTimeRetainedMs() ||
      this.changelogNumRetainMin() > this.snapshotNumRetainMin()
    );
  }
  partitionDefaultName(): string {
    return this.get('partition.default-name') ?? '__DEFAULT_PARTITION__';
  }
  partitionLegacyName(): boolean {
    return this.bool('partition.legacy-name', true);
  }
  changelogProducer(): ChangelogProducer {
    return (this.get('changelog-producer') ?? 'none').toLowerCase() as ChangelogProducer;
  }
  mergeEngine(): MergeEngine {
    return (this.get('merge-engine') ?? 'deduplicate').toLowerCase() as MergeEngine;
  }
  deletionVectorsEnabled(): boolean {
    return this.bool('deletion-vectors.enabled', false);
  }
  rowTrackingEnabled(): boolean {
    return this.bool('row-tracking.enabled', false);
  }
  dataEvolutionEnabled(): boolean {
    return this.bool('data-evolution.enabled', false);
  }
  commitMaxRetries(): number {
    return this.int('commit.max-retries', 10);
  }
  commitTimeoutMs(): number | undefined {
    return this.optDuration('commit.timeout');
  }
  commitMinRetryWaitMs(): number {
    return this.duration('commit.min-retry-wait', 10);
  }
  commitMaxRetryWaitMs(): number {
    return this.duration('commit.max-retry-wait', 10_000);
  }
  consumerExpirationTimeMs(): number | undefined {
    return this.optDuration('consumer.expiration-time');
  }
  consumerIgnoreProgress(): boolean {
    return this.bool('consumer.ignore-progress', false);
  }
  numSortedRunCompactionTrigger(): number {
    return this.int('num-sorted-run.compaction-trigger', 5);
  }
  /** `CoreOptions.numLevels`: explicit, else trigger + 1. */
  numLevels(): number {
    return this.optInt('num-levels') ?? this.numSortedRunCompactionTrigger() + 1;
  }
  dataFilePrefix(): string {
    return this.get('data-file.prefix') ?? 'data-';
  }
  changelogFilePrefix(): string {
    return this.get('changelog-file.prefix') ?? 'changelog-';
  }
  fileSuffixIncludeCompression(): boolean {
    return this.bool('file.suffix.include.compression', false);
  }
  dataFilePathDirectory(): string | undefined {
    return this.get('data-file.path-directory');
  }
  dataFileExternalPaths(): string[] {
    const v = this.get('data-file.external-paths');
    return v === undefined || v.trim() === '' ? [] : v.split(',').map((s) => s.trim());
  }
  dataFileThinMode(): boolean {
    return this.bool('data-file.thin-mode', false);
  }
  metadataStatsMode(): string {
    return this.get('metadata.stats-mode') ?? 'truncate(16)';
  }
  metadataStatsDenseStore(): boolean {
    return this.bool('metadata.stats-dense-store', true);
  }
  sequenceField(): string[] {
    const v = this.get('sequence.field');
    return v === undefined || v.trim() === '' ? [] : v.split(',').map((s) => s.trim());
  }
  writeOnly(): boolean {
    return this.bool('write-only', false);
  }
  tagNumRetainedMax(): number | undefined {
    return this.optInt('tag.num-retained-max');
  }
  tagDefaultTimeRetainedMs(): number | undefined {
    return this.optDuration('tag.default-time-retained');
  }
  /** `branch` option (set on branch tables by the catalog). */
  branch(): string {
    return this.get('branch') ?? 'main';
  }
  /** The table's own path when the catalog put it into the options (`path`). */
  path(): string | undefined {
    return this.get('path');
  }
}
