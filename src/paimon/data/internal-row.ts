/**
 * The in-memory value model of rows read from and written to data files (Paimon's
 * `InternalRow` with its `Timestamp` and `Decimal`). One JS value per Paimon type:
 *
 * | Paimon type                      | JS value                                         |
 * |----------------------------------|--------------------------------------------------|
 * | BOOLEAN                          | boolean                                          |
 * | TINYINT, SMALLINT, INT           | number                                           |
 * | BIGINT                           | bigint                                           |
 * | FLOAT, DOUBLE                    | number                                           |
 * | DECIMAL(p, s)                    | {@link Decimal} of binary-row.ts (unscaled, p, s)|
 * | CHAR, VARCHAR                    | string                                           |
 * | BINARY, VARBINARY                | Uint8Array                                       |
 * | DATE                             | number, days since 1970-01-01                    |
 * | TIME                             | number, milliseconds of the day                  |
 * | TIMESTAMP, TIMESTAMP_LTZ         | {@link Timestamp} of binary-row.ts (ms + nanos)  |
 * | ARRAY, MULTISET                  | Datum[] (MULTISET: a Map of element -> count)    |
 * | MAP                              | Array of [key, value] pairs, in file order       |
 * | ROW                              | Datum[] (positional, like the row type)          |
 * | NULL                             | null                                             |
 */
import type { FieldType } from './field-type.js';
import { Decimal, Timestamp } from '../spec/binary-row.js';

export { Decimal, Timestamp };

export type Datum =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | Timestamp
  | Decimal
  | Datum[]
  | Array<[Datum, Datum]>;

/** A row: one Datum per field of the row type, in order. */
export type InternalRow = Datum[];

/** Paimon RowKind bytes as stored in `_VALUE_KIND`. */
export const RowKind = { INSERT: 0, UPDATE_BEFORE: 1, UPDATE_AFTER: 2, DELETE: 3 } as const;
export type RowKindByte = 0 | 1 | 2 | 3;

export function isRetract(kind: number): boolean {
  return kind === RowKind.UPDATE_BEFORE || kind === RowKind.DELETE;
}

/** A primary-key table record (`KeyValue.java`). */
export interface KeyValue {
  key: InternalRow;
  sequenceNumber: bigint;
  valueKind: RowKindByte;
  value: InternalRow;
}

const utf8 = new TextEncoder();

/** Compares two strings as Java's BinaryString.compareTo does: unsigned UTF-8 bytes. */
export function compareUtf8(a: string, b: string): number {
  // Fast path: for code units below the surrogate range, UTF-16 order equals UTF-8 byte order.
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x < 0xd800 && y < 0xd800) return x - y;
    // Compare the rest as UTF-8, starting at a whole code point (both strings share the
    // high surrogate before i when they differ in a low surrogate).
    const j = i > 0 && (a.charCodeAt(i - 1) & 0xfc00) === 0xd800 ? i - 1 : i;
    return compareBytes(utf8.encode(a.slice(j)), utf8.encode(b.slice(j)));
  }
  return a.length - b.length;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i] - b[i];
  }
  return a.length - b.length;
}

/**
 * Java `compareTo` order of two non-null values of one atomic type. Returns undefined for types
 * that are not Comparable in Paimon (binary, nested), where stats stay null.
 */
export function compareAtomic(t: FieldType, a: Datum, b: Datum): number {
  switch (t.root) {
    case 'BOOLEAN':
      return (a ? 1 : 0) - (b ? 1 : 0);
    case 'TINYINT': case 'SMALLINT': case 'INT': case 'DATE': case 'TIME':
      return (a as number) - (b as number);
    case 'FLOAT': case 'DOUBLE':
      return javaDoubleCompare(a as number, b as number);
    case 'BIGINT': {
      const x = a as bigint, y = b as bigint;
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 'CHAR': case 'VARCHAR':
      return compareUtf8(a as string, b as string);
    case 'DECIMAL':
      return compareDecimal(a as Decimal, b as Decimal);
    case 'TIMESTAMP': case 'TIMESTAMP_LTZ': {
      return (a as Timestamp).compareTo(b as Timestamp);
    }
    case 'BINARY': case 'VARBINARY':
      return compareBytes(a as Uint8Array, b as Uint8Array);
    default:
      throw new TypeError(`values of type ${t.root} are not comparable`);
  }
}

function javaDoubleCompare(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  // Double.compare: -0.0 < 0.0, NaN greatest and equal to itself
  const an = Number.isNaN(a), bn = Number.isNaN(b);
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;
  if (a === 0 && b === 0) return (Object.is(a, -0) ? 0 : 1) - (Object.is(b, -0) ? 0 : 1);
  return 0;
}

export function compareDecimal(a: Decimal, b: Decimal): number {
  if (a.scale === b.scale) return a.unscaled < b.unscaled ? -1 : a.unscaled > b.unscaled ? 1 : 0;
  const s = Math.max(a.scale, b.scale);
  const x = a.unscaled * 10n ** BigInt(s - a.scale);
  const y = b.unscaled * 10n ** BigInt(s - b.scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** One field of two rows, nulls first (Paimon's generated RecordComparator). */
export function compareNullsFirst(t: FieldType, x: Datum, y: Datum): number {
  if (x === null || y === null) return x === y ? 0 : x === null ? -1 : 1;
  return compareAtomic(t, x, y);
}

/**
 * Compares two keys field by field (nulls first), as Paimon's generated RecordComparator does
 * for primary keys (which are NOT NULL, so the null rule only matters for partial keys).
 */
export function compareRows(types: FieldType[], a: InternalRow, b: InternalRow): number {
  for (let i = 0; i < types.length; i++) {
    const c = compareNullsFirst(types[i], a[i], b[i]);
    if (c !== 0) return c;
  }
  return 0;
}

export function isComparable(t: FieldType): boolean {
  return !['ARRAY', 'MULTISET', 'MAP', 'ROW', 'VARIANT', 'BLOB'].includes(t.root);
}
