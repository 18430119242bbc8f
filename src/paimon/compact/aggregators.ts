/**
 * Field aggregators of the `aggregation` merge engine and of aggregated fields inside
 * `partial-update` sequence groups: Paimon's `FieldAggregator` and the factories registered as
 * `FieldAggregatorFactory` (identical set in Paimon 1.4.2 and 2.0.0; there is no `count`).
 *
 * Implemented as Paimon defines them (agg, aggReversed, retract where Paimon has it, reset):
 *   sum, product, max, min, last_value, last_non_null_value, first_value, first_non_null_value
 *   (and its legacy name first_not_null_value), bool_and, bool_or, listagg, collect, merge_map,
 *   merge_map_with_keytime, primary-key.
 * Refused by name (UNSUPPORTED_TABLE, before any work): nested_update, nested_partial_update,
 *   hll_sketch, theta_sketch, rbm32, rbm64 (binary sketch/bitmap formats and nested-key updates
 *   whose options differ between 1.4 and 2.0), and `collect` with `distinct` on element types
 *   whose Java hash order is not reproduced here (strings, binary, decimal, timestamps).
 *
 * Where Paimon 1.4.2 and 2.0.0 differ, 2.0.0 is followed:
 *   - integer sum/product (and their retraction) overflow is an error (1.4.2 wraps silently);
 *   - listagg skips blank (whitespace-only) strings (1.4.2 skips only empty ones).
 * Decimal sum of a compact decimal (precision <= 18) that no longer fits its precision is an
 * error here (Java writes a value wider than the declared precision); wider decimals become
 * null as in Java.
 * `merge_map` keeps entries in first-insertion order; Java builds a HashMap, so its entry order
 * differs, while the map is the same. `collect` with `distinct` reproduces Java's HashSet
 * iteration order for boolean and numeric element types.
 */
import { PaimonError } from '../errors.js';
import { Decimal, Timestamp } from '../spec/binary-row.js';
import type { DataFieldSpec, FieldType } from '../data/field-type.js';
import { compareAtomic, compareDecimal, isComparable, type Datum } from '../data/internal-row.js';
import { optionBool as bool } from '../spec/core-options.js';

export interface FieldAggregator {
  /** Paimon's identifier, e.g. `sum`. */
  readonly name: string;
  agg(accumulator: Datum, input: Datum): Datum;
  /** Aggregates an input that is older than the accumulator (partial-update sequence groups). */
  aggReversed(accumulator: Datum, input: Datum): Datum;
  retract(accumulator: Datum, input: Datum): Datum;
  reset(): void;
}

/** Every aggregate function Paimon 1.4.2 / 2.0.0 register (`FieldAggregatorFactory` identifiers). */
export const PAIMON_AGGREGATORS = [
  'sum', 'product', 'max', 'min', 'last_value', 'last_non_null_value', 'first_value', 'first_non_null_value', 'first_not_null_value',
  'bool_and', 'bool_or', 'listagg', 'collect', 'merge_map', 'merge_map_with_keytime', 'nested_update', 'nested_partial_update',
  'hll_sketch', 'theta_sketch', 'rbm32', 'rbm64', 'primary-key',
] as const;

/** Aggregators refused by this compaction. */
export const UNSUPPORTED_AGGREGATORS = ['nested_update', 'nested_partial_update', 'hll_sketch', 'theta_sketch', 'rbm32', 'rbm64'] as const;

/** Aggregators implemented here. */
export const SUPPORTED_AGGREGATORS: readonly string[] = PAIMON_AGGREGATORS.filter((n) => !(UNSUPPORTED_AGGREGATORS as readonly string[]).includes(n));

function refuse(msg: string): PaimonError {
  return new PaimonError('UNSUPPORTED_TABLE', msg);
}

function invalid(msg: string): PaimonError {
  return new PaimonError('UNSUPPORTED_TABLE', msg);
}

// ------------------------------------------------------------------------------ base

abstract class Base implements FieldAggregator {
  constructor(readonly name: string, protected readonly field: string, protected readonly type: FieldType) {}
  abstract agg(accumulator: Datum, input: Datum): Datum;
  aggReversed(accumulator: Datum, input: Datum): Datum {
    return this.agg(input, accumulator);
  }
  retract(_accumulator: Datum, _input: Datum): Datum {
    throw new PaimonError(
      'UNSUPPORTED_TABLE',
      `Aggregate function '${this.name}' does not support retraction (field ${this.field}), If you allow this function to ignore retraction messages, you can configure 'fields.${this.field}.ignore-retract'='true'.`,
    );
  }
  reset(): void {}
}

class IgnoreRetract implements FieldAggregator {
  constructor(private readonly inner: FieldAggregator) {}
  get name(): string {
    return this.inner.name;
  }
  agg(a: Datum, i: Datum): Datum {
    return this.inner.agg(a, i);
  }
  // Paimon's FieldIgnoreRetractAgg does not forward aggReversed: the base (swapped agg) applies.
  aggReversed(a: Datum, i: Datum): Datum {
    return this.inner.agg(i, a);
  }
  retract(a: Datum): Datum {
    return a;
  }
  reset(): void {
    this.inner.reset();
  }
}

// ------------------------------------------------------------------------------ arithmetic

const INT_BITS: Record<string, number> = { TINYINT: 8, SMALLINT: 16, INT: 32 };

function exactInt(t: FieldType, v: bigint, op: string, a: Datum, b: Datum): number | bigint {
  const bits = t.root === 'BIGINT' ? 64 : INT_BITS[t.root];
  if (BigInt.asIntN(bits, v) !== v) {
    const what = t.root === 'TINYINT' ? 'byte' : t.root === 'SMALLINT' ? 'short' : t.root === 'INT' ? 'int' : 'long';
    throw invalid(`${what} overflow: ${String(a)} ${op} ${String(b)} (Paimon 2.0 refuses integer overflow in aggregation; 1.4 wrapped it silently)`);
  }
  return t.root === 'BIGINT' ? v : Number(v);
}

function decimalDigits(unscaled: bigint): number {
  const s = (unscaled < 0n ? -unscaled : unscaled).toString();
  return s === '0' ? 1 : s.length;
}

/** Paimon Decimal.fromBigDecimal for an exact value at the target scale: null when it does not fit. */
function fitDecimal(unscaled: bigint, precision: number, scale: number, field: string, compactChecked: boolean): Decimal | null {
  if (decimalDigits(unscaled) <= precision) return new Decimal(unscaled, precision, scale);
  if (precision <= 18 && compactChecked) {
    throw invalid(`decimal aggregation of field ${field} overflows DECIMAL(${precision}, ${scale})`);
  }
  return null;
}

/** round(n / d) half-up (away from zero at .5), d > 0. */
function divHalfUp(n: bigint, d: bigint): bigint {
  const neg = n < 0n;
  const m = neg ? -n : n;
  let q = m / d;
  if ((m % d) * 2n >= d) q += 1n;
  return neg ? -q : q;
}

function addNumbers(t: FieldType, field: string, a: Datum, b: Datum, sign: 1 | -1): Datum {
  switch (t.root) {
    case 'TINYINT': case 'SMALLINT': case 'INT':
      return exactInt(t, BigInt(a as number) + BigInt(sign) * BigInt(b as number), sign > 0 ? '+' : '-', a, b);
    case 'BIGINT':
      return exactInt(t, (a as bigint) + BigInt(sign) * (b as bigint), sign > 0 ? '+' : '-', a, b);
    case 'FLOAT': return Math.fround((a as number) + sign * (b as number));
    case 'DOUBLE': return (a as number) + sign * (b as number);
    case 'DECIMAL': {
      const x = a as Decimal, y = b as Decimal;
      const p = t.precision ?? x.precision, s = t.scale ?? x.scale;
      return fitDecimal(x.unscaled + BigInt(sign) * y.unscaled, p, s, field, true);
    }
    default:
      throw refuse(`type ${t.root} not supported by sum (field ${field})`);
  }
}

function negate(t: FieldType, field: string, v: Datum): Datum {
  if (v === null) return null;
  switch (t.root) {
    case 'TINYINT': case 'SMALLINT': case 'INT': return exactInt(t, -BigInt(v as number), '-', 0, v);
    case 'BIGINT': return exactInt(t, -(v as bigint), '-', 0, v);
    case 'FLOAT': case 'DOUBLE': return -(v as number);
    case 'DECIMAL': {
      const d = v as Decimal;
      return new Decimal(-d.unscaled, d.precision, d.scale);
    }
    default: throw refuse(`type ${t.root} not supported by sum (field ${field})`);
  }
}

function multiply(t: FieldType, field: string, a: Datum, b: Datum): Datum {
  switch (t.root) {
    case 'TINYINT': case 'SMALLINT': case 'INT':
      return exactInt(t, BigInt(a as number) * BigInt(b as number), '*', a, b);
    case 'BIGINT': return exactInt(t, (a as bigint) * (b as bigint), '*', a, b);
    case 'FLOAT': return Math.fround((a as number) * (b as number));
    case 'DOUBLE': return (a as number) * (b as number);
    case 'DECIMAL': {
      const x = a as Decimal, y = b as Decimal;
      const p = t.precision ?? x.precision, s = t.scale ?? x.scale;
      // exact product has scale 2s; BigDecimal.setScale(s, HALF_UP), null when too wide
      return fitDecimal(divHalfUp(x.unscaled * y.unscaled, 10n ** BigInt(s)), p, s, field, false);
    }
    default: throw refuse(`type ${t.root} not supported by product (field ${field})`);
  }
}

function divide(t: FieldType, field: string, a: Datum, b: Datum): Datum {
  switch (t.root) {
    case 'TINYINT': case 'SMALLINT': case 'INT': case 'BIGINT': {
      const x = typeof a === 'bigint' ? a : BigInt(a as number);
      const y = typeof b === 'bigint' ? b : BigInt(b as number);
      if (y === 0n) throw invalid(`/ by zero retracting product of field ${field}`);
      return exactInt(t, x / y, '/', a, b); // BigInt division truncates toward zero, as Java does
    }
    case 'FLOAT': return Math.fround((a as number) / (b as number));
    case 'DOUBLE': return (a as number) / (b as number);
    case 'DECIMAL': {
      const x = a as Decimal, y = b as Decimal;
      const p = t.precision ?? x.precision, s = t.scale ?? x.scale;
      if (y.unscaled === 0n) throw invalid(`Division by zero retracting product of field ${field}`);
      // BigDecimal.divide (exact; refuses non-terminating quotients), then setScale(s, HALF_UP)
      let den = y.unscaled < 0n ? -y.unscaled : y.unscaled;
      const g = gcd(x.unscaled < 0n ? -x.unscaled : x.unscaled, den);
      den /= g === 0n ? 1n : g;
      while (den % 2n === 0n) den /= 2n;
      while (den % 5n === 0n) den /= 5n;
      if (den !== 1n) throw invalid(`Non-terminating decimal expansion; no exact representable decimal result (retracting product of field ${field})`);
      const n = x.unscaled * 10n ** BigInt(s), d = y.unscaled;
      return fitDecimal(d < 0n ? divHalfUp(-n, -d) : divHalfUp(n, d), p, s, field, false);
    }
    default: throw refuse(`type ${t.root} not supported by product (field ${field})`);
  }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

const NUMERIC = new Set(['TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'FLOAT', 'DOUBLE', 'DECIMAL']);

class SumAgg extends Base {
  agg(a: Datum, i: Datum): Datum {
    if (a === null || i === null) return a === null ? i : a;
    return addNumbers(this.type, this.field, a, i, 1);
  }
  override retract(a: Datum, i: Datum): Datum {
    if (a === null || i === null) return a === null ? negate(this.type, this.field, i) : a;
    return addNumbers(this.type, this.field, a, i, -1);
  }
}

class ProductAgg extends Base {
  agg(a: Datum, i: Datum): Datum {
    if (a === null || i === null) return a === null ? i : a;
    return multiply(this.type, this.field, a, i);
  }
  override retract(a: Datum, i: Datum): Datum {
    if (a === null || i === null) return a;
    return divide(this.type, this.field, a, i);
  }
}

class MaxAgg extends Base {
  agg(a: Datum, i: Datum): Datum {
    if (a === null || i === null) return a === null ? i : a;
    return compareValues(this.type, a, i) < 0 ? i : a;
  }
}

class MinAgg extends Base {
  agg(a: Datum, i: Datum): Datum {
    if (a === null || i === null) return a === null ? i : a;
    return compareValues(this.type, a, i) < 0 ? a : i;
  }
}

function compareValues(t: FieldType, a: Datum, b: Datum): number {
  if (t.root === 'DECIMAL') return compareDecimal(a as Decimal, b as Decimal);
  return compareAtomic(t, a, b);
}

class LastValueAgg extends Base {
  agg(_a: Datum, i: Datum): Datum {
    return i;
  }
  override retract(): Datum {
    return null;
  }
}

class LastNonNullValueAgg extends Base {
  agg(a: Datum, i: Datum): Datum {
    return i === null ? a : i;
  }
  override retract(a: Datum, i: Datum): Datum {
    return i !== null ? null : a;
  }
}

class FirstValueAgg extends Base {
  private initialized = false;
  agg(a: Datum, i: Datum): Datum {
    if (!this.initialized) {
      this.initialized = true;
      return i;
    }
    return a;
  }
  override reset(): void {
    this.initialized = false;
  }
}

class FirstNonNullValueAgg extends Base {
  private initialized = false;
  agg(a: Datum, i: Datum): Datum {
    if (!this.initialized && i !== null) {
      this.initialized = true;
      return i;
    }
    return a;
  }
  override reset(): void {
    this.initialized = false;
  }
}

class BoolAndAgg extends Base {
  agg(a: Datum, i: Datum): Datum {
    if (a === null || i === null) return a === null ? i : a;
    return (a as boolean) && (i as boolean);
  }
}

class BoolOrAgg extends Base {
  agg(a: Datum, i: Datum): Datum {
    if (a === null || i === null) return a === null ? i : a;
    return (a as boolean) || (i as boolean);
  }
}

class PrimaryKeyAgg extends Base {
  agg(_a: Datum, i: Datum): Datum {
    return i;
  }
  override retract(_a: Datum, i: Datum): Datum {
    return i;
  }
}

/** Java's Character.isWhitespace over a whole string (Paimon StringUtils.isBlank). */
function isBlank(s: string): boolean {
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    const ws = (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c === 0x1680 || (c >= 0x2000 && c <= 0x2006) || (c >= 0x2008 && c <= 0x200a) ||
      c === 0x2028 || c === 0x2029 || c === 0x205f || c === 0x3000;
    if (!ws) return false;
  }
  return true;
}

class ListaggAgg extends Base {
  constructor(name: string, field: string, type: FieldType, private readonly delimiter: string, private readonly distinct: boolean) {
    super(name, field, type);
  }
  agg(a: Datum, i: Datum): Datum {
    if (i === null || isBlank(i as string)) return a;
    if (a === null || isBlank(a as string)) return i;
    const acc = a as string, input = i as string;
    if (this.distinct) {
      const existing = new Set(split(acc, this.delimiter));
      let out = acc;
      for (const tok of split(input, this.delimiter)) {
        if (isBlank(tok) || existing.has(tok)) continue;
        existing.add(tok);
        out += this.delimiter + tok;
      }
      return out;
    }
    return acc + this.delimiter + input;
  }
}

/** commons-lang splitByWholeSeparatorPreserveAllTokens (empty separator: split on whitespace). */
function split(s: string, sep: string): string[] {
  if (s.length === 0) return [];
  if (sep.length === 0) return s.split(/\s/);
  return s.split(sep);
}

// ------------------------------------------------------------------------------ collections

/** Deep equality of two values of a type (Paimon's InternalRowUtils.equals / RecordEqualiser). */
export function datumEquals(t: FieldType, a: Datum, b: Datum): boolean {
  if (a === null || b === null) return a === b;
  switch (t.root) {
    case 'ARRAY': case 'MULTISET': {
      if (t.root === 'MULTISET') return mapEquals(t.element, { root: 'INT', nullable: false }, a as Array<[Datum, Datum]>, b as Array<[Datum, Datum]>);
      const x = a as Datum[], y = b as Datum[];
      return x.length === y.length && x.every((v, k) => datumEquals(t.element, v, y[k]));
    }
    case 'MAP': return mapEquals(t.key, t.value, a as Array<[Datum, Datum]>, b as Array<[Datum, Datum]>);
    case 'ROW': {
      const x = a as Datum[], y = b as Datum[];
      return t.fields.every((f, k) => datumEquals(f.type, x[k], y[k]));
    }
    case 'DECIMAL': {
      const x = a as Decimal, y = b as Decimal;
      return x.unscaled === y.unscaled && x.scale === y.scale;
    }
    case 'FLOAT': case 'DOUBLE':
      return Object.is(a, b); // Float.equals: NaN equals NaN, 0.0 differs from -0.0
    case 'TIMESTAMP': case 'TIMESTAMP_LTZ': case 'BINARY': case 'VARBINARY':
      return compareAtomic(t, a, b) === 0;
    case 'VARIANT': case 'BLOB':
      throw refuse(`values of type ${t.root} cannot be compared by collect/merge_map`);
    default:
      return a === b;
  }
}

function mapEquals(kt: FieldType, vt: FieldType, x: Array<[Datum, Datum]>, y: Array<[Datum, Datum]>): boolean {
  if (x.length !== y.length) return false;
  return x.every(([k, v]) => y.some(([k2, v2]) => datumEquals(kt, k, k2) && datumEquals(vt, v, v2)));
}

/** Element types whose Java hashCode (and so HashSet order) is reproduced. */
const HASHED_ELEMENTS = new Set(['BOOLEAN', 'TINYINT', 'SMALLINT', 'INT', 'DATE', 'TIME', 'BIGINT', 'FLOAT', 'DOUBLE']);

/** Java `hashCode()` of a boxed value, for the element types whose HashSet order is reproduced. */
function javaHash(t: FieldType, v: Datum): number | undefined {
  if (v === null) return 0;
  switch (t.root) {
    case 'BOOLEAN': return v ? 1231 : 1237;
    case 'TINYINT': case 'SMALLINT': case 'INT': case 'DATE': case 'TIME': return (v as number) | 0;
    case 'BIGINT': {
      const x = BigInt.asUintN(64, v as bigint);
      return Number(BigInt.asIntN(32, x ^ (x >> 32n)));
    }
    case 'FLOAT': {
      const dv = new DataView(new ArrayBuffer(4));
      dv.setFloat32(0, Number.isNaN(v as number) ? NaN : (v as number));
      return Number.isNaN(v as number) ? 0x7fc00000 : dv.getInt32(0);
    }
    case 'DOUBLE': {
      const dv = new DataView(new ArrayBuffer(8));
      if (Number.isNaN(v as number)) return 0x7ff80000;
      dv.setFloat64(0, v as number);
      return dv.getInt32(0) ^ dv.getInt32(4);
    }
    default: return undefined;
  }
}

/**
 * The iteration order of `new HashSet<>()` after adding `values` in order (java.util.HashMap:
 * table 16, load factor 0.75, doubling; spread hash h ^ (h >>> 16); a bucket keeps insertion order).
 */
function javaHashSetOrder(t: FieldType, values: Datum[], field: string): Datum[] {
  const distinct: Array<{ v: Datum; h: number }> = [];
  const seen = new Set<string>();
  for (const v of values) {
    const key = atomKey(v);
    if (seen.has(key)) continue;
    seen.add(key);
    const h = javaHash(t, v)!;
    distinct.push({ v, h: (h ^ (h >>> 16)) | 0 });
  }
  let cap = 16;
  while (distinct.length > cap * 0.75) cap *= 2;
  const buckets = new Map<number, number>();
  for (const d of distinct) {
    const b = d.h & (cap - 1);
    const n = (buckets.get(b) ?? 0) + 1;
    // Java turns a bin of 8+ entries into a tree (table >= 64), whose order this does not model.
    if (n >= 8) throw refuse(`collect with 'fields.${field}.distinct': too many hash collisions to reproduce Java's element order; use Paimon's own compaction`);
    buckets.set(b, n);
  }
  return distinct.map((d, k) => ({ ...d, k })).sort((x, y) => (x.h & (cap - 1)) - (y.h & (cap - 1)) || x.k - y.k).map((d) => d.v);
}

class CollectAgg extends Base {
  constructor(name: string, field: string, type: FieldType & { root: 'ARRAY' }, private readonly distinct: boolean) {
    super(name, field, type);
  }
  private get element(): FieldType {
    return (this.type as FieldType & { root: 'ARRAY' }).element;
  }
  override aggReversed(a: Datum, i: Datum): Datum {
    return this.agg(a, i);
  }
  agg(a: Datum, i: Datum): Datum {
    if (a === null && i === null) return null;
    if ((a === null || i === null) && !this.distinct) return a === null ? i : a;
    const all = [...((a as Datum[] | null) ?? []), ...((i as Datum[] | null) ?? [])];
    if (!this.distinct) return all;
    if (isConstructed(this.element)) {
      const out: Datum[] = [...((a as Datum[] | null) ?? [])];
      for (const v of (i as Datum[] | null) ?? []) if (!out.some((o) => datumEquals(this.element, o, v))) out.push(v);
      return out;
    }
    return javaHashSetOrder(this.element, all, this.field);
  }
  override retract(a: Datum, i: Datum): Datum {
    if (a === null) return null;
    if (i === null || (i as Datum[]).length === 0) return a;
    const pending = [...(i as Datum[])];
    const out: Datum[] = [];
    for (const c of a as Datum[]) {
      const k = pending.findIndex((r) => datumEquals(this.element, r, c));
      if (k >= 0) pending.splice(k, 1);
      else out.push(c);
    }
    return out;
  }
}

function isConstructed(t: FieldType): boolean {
  return t.root === 'ARRAY' || t.root === 'MAP' || t.root === 'MULTISET' || t.root === 'ROW';
}

type MapType = FieldType & { root: 'MAP' };

/**
 * A string that is equal for two atomic values exactly when Java's equals() is (floats: NaN equals
 * NaN, 0.0 differs from -0.0; decimals by value and scale); undefined for nested values.
 */
function atomKey(v: Datum): string {
  if (v === null) return 'n';
  switch (typeof v) {
    case 'string': return `s${v}`;
    case 'number': return Object.is(v, -0) ? 'd-0' : `d${String(v)}`;
    case 'bigint': return `b${v.toString()}`;
    case 'boolean': return v ? 't' : 'f';
    default:
      if (v instanceof Decimal) return `D${v.unscaled.toString()}/${v.scale}`;
      if (v instanceof Uint8Array) return `x${Buffer.from(v).toString('hex')}`;
      if (v instanceof Timestamp) return `T${v.millisecond.toString()}.${v.nanoOfMillisecond}`;
      return `j${JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x.toString()}n` : x instanceof Uint8Array ? Buffer.from(x).toString('hex') : x))}`;
  }
}

/** Puts the entries into the map (Java HashMap.put: a present key keeps its place and takes the value). */
function putAll(kt: FieldType, out: Array<[Datum, Datum]>, entries: Array<[Datum, Datum]>, index?: Map<string, number>): void {
  if (isConstructed(kt)) {
    for (const [k, v] of entries) {
      const at = out.findIndex(([k2]) => datumEquals(kt, k, k2));
      if (at >= 0) out[at] = [out[at][0], v];
      else out.push([k, v]);
    }
    return;
  }
  const idx = index ?? new Map(out.map(([k], i) => [atomKey(k), i]));
  for (const [k, v] of entries) {
    const key = atomKey(k);
    const at = idx.get(key);
    if (at !== undefined) out[at] = [out[at][0], v];
    else {
      idx.set(key, out.length);
      out.push([k, v]);
    }
  }
}

class MergeMapAgg extends Base {
  agg(a: Datum, i: Datum): Datum {
    if (a === null || i === null) return a === null ? i : a;
    const out: Array<[Datum, Datum]> = [];
    putAll((this.type as MapType).key, out, a as Array<[Datum, Datum]>);
    putAll((this.type as MapType).key, out, i as Array<[Datum, Datum]>);
    return out;
  }
  override retract(a: Datum, i: Datum): Datum {
    if (a === null) return null;
    if (i === null || (i as Array<[Datum, Datum]>).length === 0) return a;
    const kt = (this.type as MapType).key;
    const gone = (i as Array<[Datum, Datum]>).map(([k]) => k);
    if (!isConstructed(kt)) {
      const keys = new Set(gone.map(atomKey));
      return (a as Array<[Datum, Datum]>).filter(([k]) => !keys.has(atomKey(k)));
    }
    return (a as Array<[Datum, Datum]>).filter(([k]) => !gone.some((g) => datumEquals(kt, g, k)));
  }
}

class MergeMapWithKeyTimeAgg extends Base {
  constructor(name: string, field: string, type: FieldType, private readonly tsIndex: number) {
    super(name, field, type);
  }
  agg(a: Datum, i: Datum): Datum {
    if (a === null) return i;
    if (i === null) return a;
    const kt = (this.type as MapType).key;
    const out: Array<[Datum, Datum]> = [];
    putAll(kt, out, a as Array<[Datum, Datum]>);
    for (const [k, v] of i as Array<[Datum, Datum]>) {
      const at = out.findIndex(([k2]) => datumEquals(kt, k, k2));
      if (v === null) {
        if (at >= 0) out.splice(at, 1);
        continue;
      }
      const ts = (v as Datum[])[this.tsIndex];
      if (ts === null) continue;
      if (at < 0) {
        out.push([k, v]);
        continue;
      }
      const old = out[at][1] as Datum[] | null;
      const oldTs = old === null ? null : old[this.tsIndex];
      // Java String.compareTo: UTF-16 code units, as JS string comparison
      if (oldTs === null || (ts as string) > (oldTs as string)) out[at] = [out[at][0], v];
    }
    return out;
  }
}

// ------------------------------------------------------------------------------ factory

/**
 * `FieldAggregatorFactory.create`: the aggregator `name` for `field`, with `ignore-retract`;
 * validates types and options as Paimon's factories do, and refuses the unsupported ones.
 */
export function createFieldAggregator(field: DataFieldSpec, name: string, options: Readonly<Record<string, string>>): FieldAggregator {
  const f = field.name;
  const t = field.type;
  if (!(PAIMON_AGGREGATORS as readonly string[]).includes(name)) {
    throw invalid(`Use unsupported aggregation: ${name} or spell aggregate function incorrectly! (field ${f}; Paimon's aggregate functions: ${PAIMON_AGGREGATORS.join(', ')})`);
  }
  if ((UNSUPPORTED_AGGREGATORS as readonly string[]).includes(name)) {
    throw refuse(
      `aggregate function '${name}' (field ${f}) is not supported by this compaction; supported: ${SUPPORTED_AGGREGATORS.join(', ')}; not supported: ${UNSUPPORTED_AGGREGATORS.join(', ')}. Use Paimon's own (Flink/Spark) compaction for this table.`,
    );
  }
  const removeOnDelete = bool(options['aggregation.remove-record-on-delete']);
  const ignoreRetract = bool(options[`fields.${f}.ignore-retract`]);
  if (removeOnDelete && ignoreRetract) {
    throw invalid(`aggregation.remove-record-on-delete and fields.${f}.ignore-retract have conflicting behavior so should not be enabled at the same time.`);
  }
  const typeIs = (ok: boolean, what: string): void => {
    if (!ok) throw invalid(`Data type for ${what} column must be ${whatType(name)} but was '${t.root}' (field ${f}).`);
  };
  let a: FieldAggregator;
  switch (name) {
    case 'sum': typeIs(NUMERIC.has(t.root), 'sum'); a = new SumAgg(name, f, t); break;
    case 'product': typeIs(NUMERIC.has(t.root), 'product'); a = new ProductAgg(name, f, t); break;
    case 'max': case 'min':
      if (!isComparable(t) || t.root === 'BOOLEAN') throw invalid(`Incomparable type: ${t.root} for aggregate function '${name}' (field ${f})`);
      a = name === 'max' ? new MaxAgg(name, f, t) : new MinAgg(name, f, t);
      break;
    case 'last_value': a = new LastValueAgg(name, f, t); break;
    case 'last_non_null_value': a = new LastNonNullValueAgg(name, f, t); break;
    case 'first_value': a = new FirstValueAgg(name, f, t); break;
    case 'first_non_null_value': case 'first_not_null_value': a = new FirstNonNullValueAgg(name, f, t); break;
    case 'bool_and': typeIs(t.root === 'BOOLEAN', 'bool and'); a = new BoolAndAgg(name, f, t); break;
    case 'bool_or': typeIs(t.root === 'BOOLEAN', 'bool or'); a = new BoolOrAgg(name, f, t); break;
    case 'primary-key': a = new PrimaryKeyAgg(name, f, t); break;
    case 'listagg': {
      typeIs(t.root === 'VARCHAR', 'list agg');
      if (t.root === 'VARCHAR' && t.length !== 2147483647) {
        throw invalid(`Data type for list agg column must be STRING (unbounded VARCHAR), but was VARCHAR(${String(t.length)}) (field ${f}).`);
      }
      a = new ListaggAgg(name, f, t, options[`fields.${f}.list-agg-delimiter`] ?? ',', bool(options[`fields.${f}.distinct`]));
      break;
    }
    case 'collect': {
      if (t.root !== 'ARRAY') throw invalid(`Data type for collect column must be 'Array' but was '${t.root}' (field ${f}).`);
      const distinct = bool(options[`fields.${f}.distinct`]);
      if (distinct && !isConstructed(t.element) && !HASHED_ELEMENTS.has(t.element.root)) {
        throw refuse(
          `collect with 'fields.${f}.distinct' = true over ${t.element.root} elements is not supported by this compaction (Java's HashSet element order is reproduced for boolean and numeric elements only); use Paimon's own compaction`,
        );
      }
      a = new CollectAgg(name, f, t, distinct);
      break;
    }
    case 'merge_map':
      if (t.root !== 'MAP') throw invalid(`Data type for merge map column must be 'MAP' but was '${t.root}' (field ${f}).`);
      a = new MergeMapAgg(name, f, t);
      break;
    case 'merge_map_with_keytime': {
      if (t.root !== 'MAP') throw invalid(`Data type for field '${f}' must be 'MAP' but was '${t.root}'`);
      const vt = t.value;
      if (vt.root !== 'ROW') throw invalid(`Value type of MAP for field '${f}' must be ROW but was '${vt.root}'`);
      if (vt.fields.length < 2) throw invalid(`ROW type for field '${f}' must have at least 2 fields, but found ${vt.fields.length}`);
      const tsName = options[`fields.${f}.ts-field`];
      const tsIndex = tsName === undefined ? vt.fields.length - 1 : vt.fields.findIndex((x) => x.name === tsName);
      if (tsIndex < 0) throw invalid(`Timestamp field '${String(tsName)}' not found in ROW type for field '${f}'. Available fields: [${vt.fields.map((x) => x.name).join(', ')}]`);
      const tsType = vt.fields[tsIndex].type.root;
      if (tsType !== 'VARCHAR' && tsType !== 'CHAR') throw refuse(`merge_map_with_keytime of field '${f}': timestamp field '${vt.fields[tsIndex].name}' is ${tsType}; Paimon reads it as a string, only CHAR/VARCHAR is supported`);
      a = new MergeMapWithKeyTimeAgg(name, f, t, tsIndex);
      break;
    }
    default:
      throw refuse(`aggregate function '${name}' (field ${f}) is not supported by this compaction`);
  }
  return ignoreRetract ? new IgnoreRetract(a) : a;
}

function whatType(name: string): string {
  if (name === 'sum' || name === 'product') return "'NumericType'";
  if (name === 'bool_and' || name === 'bool_or') return "'BooleanType'";
  if (name === 'listagg') return "'VarCharType'";
  return 'of another type';
}
