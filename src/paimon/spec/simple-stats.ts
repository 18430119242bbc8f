/**
 * Paimon's `SimpleStats` (min values, max values, null counts) and the conversion between per-field
 * statistics and its stored form (`SimpleStatsConverter`): min and max are BinaryRows over the stats
 * fields with every type made nullable, null counts are a plain Avro array of nullable longs.
 */
import { PaimonError } from '../errors.js';
import { AvroBytes } from './avro-schemas.js';
import {
  BinaryRow,
  Decimal,
  Timestamp,
  deserializeBinaryRow,
  toBinaryRow,
  type BinaryFieldType,
  type BinaryValue,
} from './binary-row.js';

export interface SimpleStats {
  minValues: BinaryRow;
  maxValues: BinaryRow;
  /** One per stats field; null when unknown. Java always writes an array (possibly empty). */
  nullCounts: (bigint | null)[];
}

/** `SimpleStats.EMPTY_STATS`: empty rows and `[]` null counts. */
export const EMPTY_STATS: SimpleStats = Object.freeze({
  minValues: BinaryRow.EMPTY_ROW,
  maxValues: BinaryRow.EMPTY_ROW,
  nullCounts: [],
}) as SimpleStats;

/** Avro record shape of `SimpleStats.SCHEMA`. */
export interface SimpleStatsRecord {
  _MIN_VALUES: Buffer | AvroBytes;
  _MAX_VALUES: Buffer | AvroBytes;
  _NULL_COUNTS: (bigint | null)[] | null;
}

export function simpleStatsToRecord(s: SimpleStats): SimpleStatsRecord {
  return { _MIN_VALUES: s.minValues.serialize(), _MAX_VALUES: s.maxValues.serialize(), _NULL_COUNTS: s.nullCounts };
}

function isBytes(v: unknown): boolean {
  return v instanceof Uint8Array || v instanceof AvroBytes;
}

export function simpleStatsFromRecord(r: unknown, what: string): SimpleStats {
  const rec = r as Partial<SimpleStatsRecord> | null | undefined;
  if (!rec || !isBytes(rec._MIN_VALUES) || !isBytes(rec._MAX_VALUES)) {
    throw new PaimonError('CORRUPT_METADATA', `${what}: SimpleStats record lacks _MIN_VALUES/_MAX_VALUES`);
  }
  return {
    minValues: deserializeBinaryRow(rec._MIN_VALUES as Buffer | AvroBytes),
    maxValues: deserializeBinaryRow(rec._MAX_VALUES as Buffer | AvroBytes),
    nullCounts: rec._NULL_COUNTS ?? [],
  };
}

/** Statistics of one column, as collected from data. */
export interface ColumnStats {
  min: BinaryValue;
  max: BinaryValue;
  nullCount: bigint | null;
}

/** `SimpleStatsConverter.toBinary`: per-column stats over the given field types to SimpleStats. */
export function toSimpleStats(types: readonly BinaryFieldType[], cols: readonly ColumnStats[]): SimpleStats {
  if (types.length !== cols.length) {
    throw new PaimonError('INVALID_ARGUMENT', `${cols.length} column stats for ${types.length} fields`);
  }
  return {
    minValues: toBinaryRow(types, cols.map((c) => c.min)),
    maxValues: toBinaryRow(types, cols.map((c) => c.max)),
    nullCounts: cols.map((c) => c.nullCount),
  };
}

/** Inverse of `toSimpleStats`: per-column min, max and null count. */
export function fromSimpleStats(types: readonly BinaryFieldType[], s: SimpleStats): ColumnStats[] {
  const mins = s.minValues.arity === 0 && types.length > 0 ? null : s.minValues.toValues(types);
  const maxs = s.maxValues.arity === 0 && types.length > 0 ? null : s.maxValues.toValues(types);
  return types.map((_, i) => ({
    min: mins ? mins[i] : null,
    max: maxs ? maxs[i] : null,
    nullCount: s.nullCounts[i] ?? null,
  }));
}

/** Structural equality (byte equality of the rows). */
export function simpleStatsEquals(a: SimpleStats, b: SimpleStats): boolean {
  return (
    a.minValues.equals(b.minValues) &&
    a.maxValues.equals(b.maxValues) &&
    a.nullCounts.length === b.nullCounts.length &&
    a.nullCounts.every((v, i) => v === b.nullCounts[i])
  );
}

/**
 * Java's `compareTo` order for stats values (`FullSimpleColStatsCollector`): strings as unsigned
 * UTF-8 bytes, numbers numerically (`Float.compare`/`Double.compare` for NaN and -0.0), false < true,
 * decimals by value, timestamps by (millis, nanos). Returns null for types Java cannot compare
 * (BINARY/VARBINARY are `byte[]`, not Comparable).
 */
export function compareStatsValues(type: BinaryFieldType, a: Exclude<BinaryValue, null>, b: Exclude<BinaryValue, null>): number | null {
  switch (type.root) {
    case 'BINARY':
    case 'VARBINARY':
      return null;
    case 'CHAR':
    case 'VARCHAR':
      return Buffer.compare(Buffer.from(a as string, 'utf8'), Buffer.from(b as string, 'utf8'));
    case 'BOOLEAN':
      return Number(a) - Number(b);
    case 'BIGINT': {
      const x = BigInt(a as bigint | number);
      const y = BigInt(b as bigint | number);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 'FLOAT':
    case 'DOUBLE': {
      const x = a as number;
      const y = b as number;
      if (x < y) return -1;
      if (x > y) return 1;
      // Java Float.compare: -0.0 < 0.0, NaN greater than everything and equal to itself.
      const xb = Number.isNaN(x) ? 2 : Object.is(x, -0) ? -1 : 0;
      const yb = Number.isNaN(y) ? 2 : Object.is(y, -0) ? -1 : 0;
      return Math.sign(xb - yb);
    }
    case 'DECIMAL':
      return (a as Decimal).compareTo(b as Decimal);
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return (a as Timestamp).compareTo(b as Timestamp);
    default:
      return Math.sign((a as number) - (b as number));
  }
}

/** `SimpleStatsCollector` in FULL mode over rows of the given types (used for partition stats). */
export class FullStatsCollector {
  private readonly mins: BinaryValue[];
  private readonly maxs: BinaryValue[];
  private readonly nulls: bigint[];

  constructor(private readonly types: readonly BinaryFieldType[]) {
    this.mins = types.map(() => null);
    this.maxs = types.map(() => null);
    this.nulls = types.map(() => 0n);
  }

  collect(row: BinaryRow): void {
    for (let i = 0; i < this.types.length; i++) {
      const v = row.get(i, this.types[i]);
      if (v === null) {
        this.nulls[i]++;
        continue;
      }
      const t = this.types[i];
      const mn = this.mins[i];
      if (mn === null) {
        if (compareStatsValues(t, v, v) !== null) {
          this.mins[i] = v;
          this.maxs[i] = v;
        }
        continue;
      }
      if ((compareStatsValues(t, v, mn) ?? 0) < 0) this.mins[i] = v;
      if ((compareStatsValues(t, v, this.maxs[i] as Exclude<BinaryValue, null>) ?? 0) > 0) this.maxs[i] = v;
    }
  }

  /** `SimpleStatsConverter.toBinaryAllMode(extract())`. */
  result(): SimpleStats {
    return toSimpleStats(
      this.types,
      this.types.map((_, i) => ({ min: this.mins[i], max: this.maxs[i], nullCount: this.nulls[i] })),
    );
  }
}
