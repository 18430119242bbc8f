/**
 * Partition directory names (`InternalRowPartitionComputer.generatePartValues`,
 * `PartitionPathUtils.generatePartitionPath`/`escapePathName`, `FileStorePathFactory.relativeBucketPath`).
 *
 * Values are turned into strings as Java does with `partition.legacy-name=true` (the default):
 * `toString()` of the internal value, so a DATE is its day number; with `legacy-name=false` the
 * value is cast to a string (a DATE becomes `yyyy-MM-dd`). Null, empty and whitespace-only values
 * become `partition.default-name` (`__DEFAULT_PARTITION__`).
 */
import { PaimonError } from '../errors.js';
import { BinaryRow, Decimal, Timestamp, type BinaryFieldType, type BinaryValue } from './binary-row.js';

export const DEFAULT_PARTITION_NAME = '__DEFAULT_PARTITION__';
/** `BucketMode.POSTPONE_BUCKET`. */
export const POSTPONE_BUCKET = -2;

export interface PartitionField {
  name: string;
  type: BinaryFieldType;
}

export interface PartitionPathOptions {
  /** `partition.default-name`. */
  defaultName?: string;
  /** `partition.legacy-name` (default true). */
  legacyName?: boolean;
}

function needsEscaping(code: number): boolean {
  if (code < 0x20) return true;
  switch (code) {
    case 0x22: // "
    case 0x23: // #
    case 0x25: // %
    case 0x27: // '
    case 0x2a: // *
    case 0x2f: // /
    case 0x3a: // :
    case 0x3d: // =
    case 0x3f: // ?
    case 0x5c: // \
    case 0x7f:
    case 0x7b: // {
    case 0x7d: // }
    case 0x5b: // [
    case 0x5d: // ]
    case 0x5e: // ^
      return true;
    default:
      return false;
  }
}

/** `PartitionPathUtils.escapePathName`: `%XX` (uppercase hex) for the reserved ASCII characters. */
export function escapePathName(s: string): string {
  if (s.length === 0) throw new PaimonError('INVALID_ARGUMENT', 'partition path name must not be empty');
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += needsEscaping(c) ? `%${c.toString(16).toUpperCase().padStart(2, '0')}` : s[i];
  }
  return out;
}

/** `PartitionPathUtils.unescapePathName`. */
export function unescapePathName(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '%' && i + 2 < s.length) {
      const hex = s.substring(i + 1, i + 3);
      if (/^[0-9a-fA-F]{2}$/.test(hex)) {
        out += String.fromCharCode(parseInt(hex, 16));
        i += 2;
        continue;
      }
    }
    out += c;
  }
  return out;
}

/** Java `Double.toString` / `Float.toString` for finite and special values. */
export function javaFloatingToString(v: number, isFloat: boolean): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  let digits: string;
  if (isFloat) {
    // Shortest decimal that reads back as the same float.
    digits = '';
    for (let p = 1; p <= 9; p++) {
      const s = v.toPrecision(p);
      if (Math.fround(Number(s)) === v) {
        digits = s;
        break;
      }
    }
  } else {
    digits = String(v);
  }
  const abs = Math.abs(Number(digits));
  const neg = Number(digits) < 0;
  // Decompose into significand digits and exponent.
  const exp = Number(abs.toExponential().split('e')[1]);
  const sig = Number(digits).toExponential().replace('-', '').split('e')[0].replace('.', '');
  const trimmed = sig.replace(/0+$/, '') || '0';
  if (abs >= 1e-3 && abs < 1e7) {
    let s: string;
    if (exp >= 0) {
      const intPart = trimmed.slice(0, exp + 1).padEnd(exp + 1, '0');
      const frac = trimmed.slice(exp + 1);
      s = `${intPart}.${frac || '0'}`;
    } else {
      s = `0.${'0'.repeat(-exp - 1)}${trimmed}`;
    }
    return neg ? `-${s}` : s;
  }
  const s = `${trimmed[0]}.${trimmed.slice(1) || '0'}E${exp}`;
  return neg ? `-${s}` : s;
}

function pad(n: number, w: number): string {
  return String(n).padStart(w, '0');
}

function dateString(days: number): string {
  const d = new Date(days * 86_400_000);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
}

/** Java `LocalDateTime.toString()` (what `Timestamp.toString()` returns). */
function localDateTimeString(ts: Timestamp): string {
  const ms = ts.millisecond;
  const dayMs = 86_400_000n;
  let days = ms / dayMs;
  let rem = ms % dayMs;
  if (rem < 0n) {
    rem += dayMs;
    days -= 1n;
  }
  const msOfDay = Number(rem);
  const h = Math.floor(msOfDay / 3_600_000);
  const mi = Math.floor(msOfDay / 60_000) % 60;
  const s = Math.floor(msOfDay / 1000) % 60;
  const nano = (msOfDay % 1000) * 1_000_000 + ts.nanoOfMillisecond;
  let out = `${dateString(Number(days))}T${pad(h, 2)}:${pad(mi, 2)}`;
  if (s > 0 || nano > 0) {
    out += `:${pad(s, 2)}`;
    if (nano > 0) {
      if (nano % 1_000_000 === 0) out += `.${pad(nano / 1_000_000, 3)}`;
      else if (nano % 1000 === 0) out += `.${pad(nano / 1000, 6)}`;
      else out += `.${pad(nano, 9)}`;
    }
  }
  return out;
}

function timeString(msOfDay: number): string {
  const h = Math.floor(msOfDay / 3_600_000);
  const mi = Math.floor(msOfDay / 60_000) % 60;
  const s = Math.floor(msOfDay / 1000) % 60;
  const ms = msOfDay % 1000;
  return `${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}${ms ? `.${pad(ms, 3)}` : ''}`;
}

/** The string Java puts in the partition directory for one value (before escaping); null for null. */
export function partitionValueToString(type: BinaryFieldType, v: BinaryValue, legacyName = true): string | null {
  if (v === null) return null;
  switch (type.root) {
    case 'CHAR':
    case 'VARCHAR':
      return v as string;
    case 'BOOLEAN':
      return v ? 'true' : 'false';
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
      return String(v);
    case 'FLOAT':
      return javaFloatingToString(v as number, true);
    case 'DOUBLE':
      return javaFloatingToString(v as number, false);
    case 'DECIMAL':
      return (v as Decimal).toString();
    case 'DATE':
      return legacyName ? String(v) : dateString(v as number);
    case 'TIME':
      return legacyName ? String(v) : timeString(v as number);
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      if (legacyName) return localDateTimeString(v as Timestamp);
      throw new PaimonError('UNSUPPORTED_TABLE', 'timestamp partition keys with partition.legacy-name=false are not supported');
    default:
      throw new PaimonError('UNSUPPORTED_TABLE', `partition key of type ${type.root} has no stable directory name`);
  }
}

/** `generatePartValues`: ordered (key, string value) pairs of a partition row. */
export function partitionSpec(partition: BinaryRow, fields: readonly PartitionField[], options: PartitionPathOptions = {}): [string, string][] {
  if (partition.arity !== fields.length) {
    throw new PaimonError('CORRUPT_METADATA', `partition row has arity ${partition.arity}, the table has ${fields.length} partition keys`);
  }
  const dflt = options.defaultName ?? DEFAULT_PARTITION_NAME;
  return fields.map((f, i) => {
    const s = partitionValueToString(f.type, partition.get(i, f.type), options.legacyName ?? true);
    return [f.name, s === null || s.trim() === '' ? dflt : s];
  });
}

/** `k1=v1/k2=v2/` (escaped), or '' for an unpartitioned table. */
export function partitionPath(spec: readonly (readonly [string, string])[]): string {
  if (spec.length === 0) return '';
  return spec.map(([k, v]) => `${escapePathName(k)}=${escapePathName(v)}`).join('/') + '/';
}

/** `bucket-<n>`, or `bucket-postpone` for the postpone bucket. */
export function bucketDirName(bucket: number): string {
  return `bucket-${bucket === POSTPONE_BUCKET ? 'postpone' : String(bucket)}`;
}

/** `relativeBucketPath`: `[data-file.path-directory/]k1=v1/.../bucket-N` (no trailing slash). */
export function relativeBucketPath(
  partition: BinaryRow,
  bucket: number,
  fields: readonly PartitionField[],
  options: PartitionPathOptions & { dataFilePathDirectory?: string | null } = {},
): string {
  const p = partitionPath(partitionSpec(partition, fields, options)) + bucketDirName(bucket);
  return options.dataFilePathDirectory ? `${options.dataFilePathDirectory.replace(/\/+$/, '')}/${p}` : p;
}
