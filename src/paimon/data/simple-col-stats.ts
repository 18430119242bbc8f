/**
 * Column statistics of a data file, computed the way Paimon Java ends up with them for a
 * Parquet file: the Parquet footer's min/max/null count per top-level column
 * (`ParquetSimpleStatsExtractor`, `ParquetUtil.extractColumnStats`), then the column's stats
 * mode (`TruncateSimpleColStatsCollector.convert`, `CountsSimpleColStatsCollector`, ...).
 *
 * What the footer gives Java, by type:
 * - CHAR/VARCHAR, BOOLEAN, TINYINT..BIGINT, FLOAT, DOUBLE, DATE, TIME, DECIMAL,
 *   TIMESTAMP(p<=6): min, max (Java compareTo order) and the null count;
 * - BINARY/VARBINARY: null min/max with the null count up to 1.4; from 2.0 on, min/max bytes
 *   (unsigned order), truncated like strings byte-wise (`binaryStats` below);
 * - TIMESTAMP(p>6) (INT96): null min/max, with the null count;
 * - ARRAY, MAP, MULTISET, ROW, VARIANT: nothing at all (their leaf paths never match the
 *   field name), so min, max and null count are all null; in dense mode the column is dropped.
 * - FLOAT/DOUBLE with a NaN: parquet-java does not report min/max, so they are null.
 */
import type { FieldType } from './field-type.js';
import { compareAtomic, type Datum } from './internal-row.js';
import type { StatsMode } from './data-file-layout.js';

export interface SimpleColStats {
  min: Datum;
  max: Datum;
  nullCount: bigint | null;
}

export const NONE_STATS: SimpleColStats = Object.freeze({ min: null, max: null, nullCount: null });

export function isNoneStats(s: SimpleColStats): boolean {
  return s.min === null && s.max === null && s.nullCount === null;
}

type Kind = 'minmax' | 'countsOnly' | 'nothing';

function footerKind(t: FieldType, binaryStats: boolean): Kind {
  switch (t.root) {
    case 'ARRAY': case 'MAP': case 'MULTISET': case 'ROW': case 'VARIANT':
      return 'nothing';
    case 'BINARY': case 'VARBINARY':
      return binaryStats ? 'minmax' : 'countsOnly';
    case 'BLOB':
      return 'countsOnly';
    case 'TIMESTAMP': case 'TIMESTAMP_LTZ':
      return (t.precision ?? 6) > 6 ? 'countsOnly' : 'minmax';
    default:
      return 'minmax';
  }
}

/** Accumulates the footer statistics of one column over the rows written. */
export class ColumnStatsAccumulator {
  private readonly kind: Kind;
  private readonly isFloat: boolean;
  nullCount = 0;
  min: Datum = null;
  max: Datum = null;
  private sawNaN = false;

  /** `binaryStats`: collect BINARY/VARBINARY min/max as Paimon 2.0 does (1.x leaves them null). */
  constructor(readonly type: FieldType, binaryStats = false) {
    this.kind = footerKind(type, binaryStats);
    this.isFloat = type.root === 'FLOAT' || type.root === 'DOUBLE';
  }

  add(v: Datum): void {
    if (v === null || v === undefined) {
      this.nullCount++;
      return;
    }
    if (this.kind !== 'minmax') return;
    if (this.isFloat && Number.isNaN(v as number)) {
      this.sawNaN = true;
      return;
    }
    if (this.min === null) {
      this.min = v;
      this.max = v;
      return;
    }
    if (compareAtomic(this.type, v, this.min) < 0) this.min = v;
    else if (compareAtomic(this.type, v, this.max) > 0) this.max = v;
  }

  /** The stats Java reads from the footer, before the stats mode is applied. */
  footerStats(): SimpleColStats {
    if (this.kind === 'nothing') return NONE_STATS;
    const nullCount = BigInt(this.nullCount);
    if (this.kind === 'countsOnly' || this.sawNaN || this.min === null) return { min: null, max: null, nullCount };
    return { min: this.min, max: this.max, nullCount };
  }

  result(mode: StatsMode): SimpleColStats {
    return applyStatsMode(mode, this.footerStats());
  }
}

/** `SimpleColStatsCollector.convert` of each mode. */
export function applyStatsMode(mode: StatsMode, s: SimpleColStats): SimpleColStats {
  switch (mode.kind) {
    case 'none':
      return NONE_STATS;
    case 'counts':
      return { min: null, max: null, nullCount: s.nullCount };
    case 'full':
      return s;
    case 'truncate': {
      const min = typeof s.min === 'string' ? truncateMin(s.min, mode.length) : s.min instanceof Uint8Array ? truncateMinBytes(s.min, mode.length) : s.min;
      const max = typeof s.max === 'string' ? truncateMax(s.max, mode.length) : s.max instanceof Uint8Array ? truncateMaxBytes(s.max, mode.length) : s.max;
      if (max === null) return { min: null, max: null, nullCount: s.nullCount };
      return { min, max, nullCount: s.nullCount };
    }
  }
}

/** The first `n` code points (`BinaryString.substring(0, n)`). */
export function truncateMin(s: string, n: number): string {
  const cps = Array.from(s);
  return cps.length <= n ? s : cps.slice(0, n).join('');
}

/**
 * A string >= every string with the same first `n` code points: the first `n` code points with
 * the last one incremented, trying earlier positions when that overflows; null when impossible.
 */
export function truncateMax(s: string, n: number): string | null {
  const cps = Array.from(s);
  if (cps.length <= n) return s;
  for (let i = n - 1; i >= 0; i--) {
    const next = cps[i].codePointAt(0)! + 1;
    if (next <= 0x10ffff) return cps.slice(0, i).join('') + String.fromCodePoint(next);
  }
  return null;
}

/** Paimon 2.0: the first `n` bytes. */
export function truncateMinBytes(b: Uint8Array, n: number): Uint8Array {
  return b.length <= n ? b : b.slice(0, n);
}

/** Paimon 2.0: the first `n` bytes with the last byte below 0xFF incremented (and cut there); null when impossible. */
export function truncateMaxBytes(b: Uint8Array, n: number): Uint8Array | null {
  if (b.length <= n) return b;
  for (let i = n - 1; i >= 0; i--) {
    if (b[i] !== 0xff) {
      const out = b.slice(0, i + 1);
      out[i] = b[i] + 1;
      return out;
    }
  }
  return null;
}

/**
 * `SimpleStatsConverter.toBinary` without the BinaryRow encoding: in dense mode the columns whose
 * stats are all null are dropped and their names listed (null when none is dropped).
 */
export function denseValueStats(
  names: readonly string[],
  stats: readonly SimpleColStats[],
  denseStore: boolean,
): { valueStatsCols: string[] | null; indexes: number[]; stats: SimpleColStats[] } {
  if (!denseStore) return { valueStatsCols: null, indexes: names.map((_, i) => i), stats: [...stats] };
  const indexes: number[] = [];
  stats.forEach((s, i) => {
    if (!isNoneStats(s)) indexes.push(i);
  });
  return {
    valueStatsCols: indexes.length === names.length ? null : indexes.map((i) => names[i]),
    indexes,
    stats: indexes.map((i) => stats[i]),
  };
}
