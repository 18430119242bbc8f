/**
 * `PartitionTimeExtractor` (paimon-core, the same in 1.4.2 and 2.0.0): the time a partition's
 * values stand for, as the `values-time` partition expiry reads it.
 *
 *  - Without `partition.timestamp-pattern` the first partition value is the timestamp text; with
 *    one, every `$<key>` in the pattern is replaced by that key's value (Java's
 *    `String.replaceAll("\\$" + key, value)`, key by key in partition-key order, so the value is a
 *    regex replacement: `\x` is `x`, `$0` the matched text, any other `$` an error).
 *  - Without `partition.timestamp-formatter` the text is parsed with Paimon's lenient default
 *    (`y-M-d[ H:m:s[.fraction]]`, 1-2 digit fields, out-of-range fields rolled over); with one, by
 *    `DateTimeFormatter.ofPattern(formatter, Locale.ROOT)` (SMART resolver: fields range-checked, a
 *    day past the month's end clamped to its last day, 24:00:00 the next midnight), first as a
 *    date-time and then as a date at midnight.
 *
 * The value strings are the internal values' `toString()` (`partitionValueToString` with the
 * legacy rule): a DATE is its day number, which no date formatter parses, so DATE partitions never
 * expire by values-time (apache/paimon#6664 fixed that and was reverted before 1.4.2/2.0.0).
 *
 * A time is a local date-time (no zone), held as the epoch day and the nanosecond of that day.
 */
import { PaimonError } from '../errors.js';

export interface LocalDateTime {
  /** Days since 1970-01-01 (proleptic Gregorian). */
  epochDay: number;
  /** Nanoseconds since midnight, 0 .. 86_399_999_999_999. */
  nanoOfDay: number;
}

/** Why a partition's values give no time: Paimon skips such a partition with a warning. */
export type ExtractFailure = 'unparseable' | 'null-value';

export type ExtractResult = { time: LocalDateTime } | { skipped: ExtractFailure; text: string | null };

const NANOS_PER_DAY = 86_400_000_000_000;

// ------------------------------------------------------------------------------- calendar

/** `LocalDate.toEpochDay` (Howard Hinnant's days_from_civil). */
export function epochDayOf(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** The civil date of an epoch day. */
export function civilOf(epochDay: number): { year: number; month: number; day: number } {
  const z = epochDay + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function monthLength(y: number, m: number): number {
  return m === 2 ? (isLeap(y) ? 29 : 28) : m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

export function compareLocalDateTime(a: LocalDateTime, b: LocalDateTime): number {
  if (a.epochDay !== b.epochDay) return a.epochDay < b.epochDay ? -1 : 1;
  return a.nanoOfDay === b.nanoOfDay ? 0 : a.nanoOfDay < b.nanoOfDay ? -1 : 1;
}

/** A wall-clock time given as milliseconds "as if UTC" (what `LocalDateTime.now()` is in a zone). */
export function localDateTimeFromWallMillis(ms: number): LocalDateTime {
  const epochDay = Math.floor(ms / 86_400_000);
  return { epochDay, nanoOfDay: (ms - epochDay * 86_400_000) * 1_000_000 };
}

/** `yyyy-MM-dd HH:mm:ss[.SSS...]` of a local date-time (for results and messages). */
export function formatLocalDateTime(t: LocalDateTime): string {
  const { year, month, day } = civilOf(t.epochDay);
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  const secs = Math.floor(t.nanoOfDay / 1e9);
  const nanos = t.nanoOfDay - secs * 1e9;
  const base = `${year < 0 ? '-' + p(-year, 4) : p(year, 4)}-${p(month)}-${p(day)} ${p(Math.floor(secs / 3600))}:${p(Math.floor(secs / 60) % 60)}:${p(secs % 60)}`;
  if (nanos === 0) return base;
  const frac = p(nanos, 9).replace(/0+$/, '');
  return `${base}.${frac.length <= 3 ? frac.padEnd(3, '0') : frac}`;
}

// --------------------------------------------------------------------- the parse model

type Field = 'YEAR' | 'YEAR_OF_ERA' | 'MONTH_OF_YEAR' | 'DAY_OF_MONTH' | 'HOUR_OF_DAY' | 'MINUTE_OF_HOUR' | 'SECOND_OF_MINUTE' | 'NANO_OF_SECOND';
type SignStyle = 'NORMAL' | 'NOT_NEGATIVE' | 'EXCEEDS_PAD';

/** The printer-parsers of `DateTimeFormatterBuilder` that the supported patterns use. */
type Part =
  | { kind: 'literal'; text: string }
  | { kind: 'number'; field: Field; min: number; max: number; sign: SignStyle; subsequentWidth: number; reducedBase?: number }
  | { kind: 'fraction'; min: number; max: number; decimalPoint: boolean }
  | { kind: 'optional'; parts: Part[] };

type Resolver = 'SMART' | 'LENIENT';

export interface DateTimeFormat {
  readonly parts: readonly Part[];
  readonly resolver: Resolver;
}

/** Builds parts with Java's adjacent value parsing (`appendValue` updating the active value parser). */
class Builder {
  readonly parts: Part[] = [];
  private activeValue = -1;

  literal(text: string): void {
    this.parts.push({ kind: 'literal', text });
    this.activeValue = -1;
  }

  value(p: Extract<Part, { kind: 'number' }> | Extract<Part, { kind: 'fraction' }>): void {
    const fixed = p.min === p.max && (p.kind === 'fraction' ? !p.decimalPoint : p.sign === 'NOT_NEGATIVE');
    const adjacentCapable = p.kind === 'number' || fixed;
    if (!adjacentCapable) {
      this.parts.push(p);
      this.activeValue = -1;
      return;
    }
    if (this.activeValue >= 0) {
      const base = this.parts[this.activeValue] as Extract<Part, { kind: 'number' }>;
      if (fixed) {
        // The width joins the active parser's reserved width; the new one is fixed.
        if (base.subsequentWidth !== -1) base.subsequentWidth += p.max;
        this.parts.push(p.kind === 'number' ? { ...p, subsequentWidth: -1 } : p);
        return;
      }
      base.subsequentWidth = -1;
    }
    this.parts.push(p);
    this.activeValue = p.kind === 'number' ? this.parts.length - 1 : -1;
  }

  optional(build: (b: Builder) => void): void {
    const inner = new Builder();
    build(inner);
    this.parts.push({ kind: 'optional', parts: inner.parts });
    this.activeValue = -1;
  }
}

function num(field: Field, min: number, max: number, sign: SignStyle): Extract<Part, { kind: 'number' }> {
  return { kind: 'number', field, min, max, sign, subsequentWidth: 0 };
}

/** `PartitionTimeExtractor.TIMESTAMP_FORMATTER` (LENIENT). */
/** The `y-M-d` part both default formatters start with. */
function defaultDate(): Builder {
  const b = new Builder();
  b.value(num('YEAR', 1, 10, 'NORMAL'));
  b.literal('-');
  b.value(num('MONTH_OF_YEAR', 1, 2, 'NORMAL'));
  b.literal('-');
  b.value(num('DAY_OF_MONTH', 1, 2, 'NORMAL'));
  return b;
}

const DEFAULT_TIMESTAMP: DateTimeFormat = (() => {
  const b = defaultDate();
  b.optional((o) => {
    o.literal(' ');
    o.value(num('HOUR_OF_DAY', 1, 2, 'NORMAL'));
    o.literal(':');
    o.value(num('MINUTE_OF_HOUR', 1, 2, 'NORMAL'));
    o.literal(':');
    o.value(num('SECOND_OF_MINUTE', 1, 2, 'NORMAL'));
    o.optional((f) => f.value({ kind: 'fraction', min: 1, max: 9, decimalPoint: true }));
  });
  return { parts: b.parts, resolver: 'LENIENT' };
})();

/** `PartitionTimeExtractor.DATE_FORMATTER` (LENIENT). */
const DEFAULT_DATE: DateTimeFormat = { parts: defaultDate().parts, resolver: 'LENIENT' };

/** Pattern letters Java knows but this parser does not implement (text fields, week fields, zones, ...). */
const OTHER_JAVA_LETTERS = new Set('GLQqwWEecFaBhKkADnNVvzOXxZgYp'.split(''));

/**
 * `DateTimeFormatter.ofPattern(pattern, Locale.ROOT)` for the numeric date-time letters partition
 * values use: y, u (year), M/MM, d/dd, H/HH, m/mm, s/ss, S... (fraction), quoted text, `[...]`
 * optional sections and literal characters. Other Java letters are NOT_SUPPORTED (named); what Java
 * itself rejects (an unknown letter, `{`, `}`, `#`, an unclosed quote or section) is INVALID_ARGUMENT.
 */
export function compileFormatter(pattern: string): DateTimeFormat {
  const bad = (why: string): PaimonError => new PaimonError('INVALID_ARGUMENT', `partition.timestamp-formatter '${pattern}' is not a valid DateTimeFormatter pattern: ${why}`);
  const stack: Builder[] = [new Builder()];
  const top = (): Builder => stack[stack.length - 1];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (/[A-Za-z]/.test(c)) {
      let n = 1;
      while (i + n < pattern.length && pattern[i + n] === c) n++;
      i += n - 1;
      const b = top();
      switch (c) {
        case 'y':
        case 'u': {
          const field: Field = c === 'y' ? 'YEAR_OF_ERA' : 'YEAR';
          if (n === 2) b.value({ ...num(field, 2, 2, 'NOT_NEGATIVE'), reducedBase: 2000 });
          else if (n < 4) b.value(num(field, n, 19, 'NORMAL'));
          else b.value(num(field, n, 19, 'EXCEEDS_PAD'));
          break;
        }
        case 'M':
          if (n > 2) throw new PaimonError('UNSUPPORTED_FORMAT', `partition.timestamp-formatter '${pattern}': month names ('${c.repeat(n)}') are not supported; use 'MM'`);
          b.value(n === 1 ? num('MONTH_OF_YEAR', 1, 19, 'NORMAL') : num('MONTH_OF_YEAR', 2, 2, 'NOT_NEGATIVE'));
          break;
        case 'd':
        case 'H':
        case 'm':
        case 's': {
          if (n > 2) throw bad(`too many pattern letters: ${c}`);
          const field: Field = c === 'd' ? 'DAY_OF_MONTH' : c === 'H' ? 'HOUR_OF_DAY' : c === 'm' ? 'MINUTE_OF_HOUR' : 'SECOND_OF_MINUTE';
          b.value(n === 1 ? num(field, 1, 19, 'NORMAL') : num(field, 2, 2, 'NOT_NEGATIVE'));
          break;
        }
        case 'S':
          b.value({ kind: 'fraction', min: n, max: n, decimalPoint: false });
          break;
        default:
          if (OTHER_JAVA_LETTERS.has(c)) {
            throw new PaimonError('UNSUPPORTED_FORMAT', `partition.timestamp-formatter '${pattern}': the pattern letter '${c}' is not supported by the proxy; use the numeric letters y, M, d, H, m, s, S`);
          }
          throw bad(`unknown pattern letter: ${c}`);
      }
    } else if (c === "'") {
      let j = i + 1;
      let text = '';
      for (;;) {
        if (j >= pattern.length) throw bad('pattern ends with an incomplete string literal');
        if (pattern[j] === "'") {
          if (pattern[j + 1] === "'") {
            text += "'";
            j += 2;
            continue;
          }
          break;
        }
        text += pattern[j++];
      }
      // '' alone is one quote; a quoted text is a literal.
      top().literal(j === i + 1 ? "'" : text);
      i = j;
    } else if (c === '[') {
      stack.push(new Builder());
    } else if (c === ']') {
      if (stack.length === 1) throw bad("pattern invalid as it contains ] without previous [");
      const inner = stack.pop()!;
      top().optional((o) => o.parts.push(...inner.parts));
    } else if (c === '{' || c === '}' || c === '#') {
      throw bad(`pattern includes reserved character: '${c}'`);
    } else {
      top().literal(c);
    }
  }
  while (stack.length > 1) {
    const inner = stack.pop()!;
    top().optional((o) => o.parts.push(...inner.parts));
  }
  return { parts: stack[0].parts, resolver: 'SMART' };
}

// ----------------------------------------------------------------------------- parsing

type Fields = Map<Field, number>;

/** Returns the new position, or -1 when the text does not match (Java's `~position`). */
function parseParts(parts: readonly Part[], text: string, pos: number, fields: Fields): number {
  for (const p of parts) {
    pos = parsePart(p, text, pos, fields);
    if (pos < 0) return -1;
  }
  return pos;
}

function setField(fields: Fields, f: Field, v: number): boolean {
  const prev = fields.get(f);
  if (prev !== undefined && prev !== v) return false; // Java: conflicting values for one field
  fields.set(f, v);
  return true;
}

const isDigit = (ch: string | undefined): boolean => ch !== undefined && ch >= '0' && ch <= '9';

function parsePart(p: Part, text: string, position: number, fields: Fields): number {
  switch (p.kind) {
    case 'literal':
      return text.startsWith(p.text, position) ? position + p.text.length : -1;
    case 'optional': {
      const scratch: Fields = new Map(fields);
      const end = parseParts(p.parts, text, position, scratch);
      if (end < 0) return position;
      for (const [k, v] of scratch) fields.set(k, v);
      return end;
    }
    case 'fraction': {
      // FractionPrinterParser, strict: [.]min..max digits.
      if (position === text.length) return p.min > 0 ? -1 : position;
      if (p.decimalPoint) {
        if (text[position] !== '.') return p.min > 0 ? -1 : position;
        position++;
      }
      if (position + p.min > text.length) return -1;
      const maxEnd = Math.min(position + p.max, text.length);
      let pos = position;
      while (pos < maxEnd && isDigit(text[pos])) pos++;
      if (pos - position < p.min) return -1;
      const digits = text.slice(position, pos);
      const nanos = digits.length === 0 ? 0 : Number(digits.padEnd(9, '0').slice(0, 9));
      return setField(fields, 'NANO_OF_SECOND', nanos) ? pos : -1;
    }
    case 'number':
      return parseNumber(p, text, position, fields);
  }
}

/** `NumberPrinterParser.parse` (and `ReducedPrinterParser`) with a strict context. */
function parseNumber(p: Extract<Part, { kind: 'number' }>, text: string, position: number, fields: Fields): number {
  if (position === text.length) return -1;
  let negative = false;
  let positive = false;
  const sign = text[position];
  if (sign === '+') {
    // SignStyle.parse(positive, strict, fixedWidth): NORMAL refuses '+' when strict; NOT_NEGATIVE too.
    if (!(p.sign === 'EXCEEDS_PAD')) return -1;
    positive = true;
    position++;
  } else if (sign === '-') {
    if (!(p.sign === 'NORMAL' || p.sign === 'EXCEEDS_PAD')) return -1;
    negative = true;
    position++;
  }
  const minEnd = position + p.min;
  if (minEnd > text.length) return -1;
  let effMax = p.max + Math.max(p.subsequentWidth, 0);
  let pos = position;
  for (let pass = 0; pass < 2; pass++) {
    const maxEnd = Math.min(pos + effMax, text.length);
    while (pos < maxEnd && isDigit(text[pos])) pos++;
    if (pos < minEnd) return -1;
    if (p.subsequentWidth > 0 && pass === 0) {
      effMax = Math.max(p.min, pos - position - p.subsequentWidth);
      pos = position;
    } else break;
  }
  const digits = text.slice(position, pos);
  if (digits.length > 18) return -1; // beyond every field's range here
  let value = Number(digits);
  if (negative) {
    if (value === 0) return -1; // "-0" is refused in strict parsing
    value = -value;
  } else if (p.sign === 'EXCEEDS_PAD') {
    const len = pos - position;
    if (positive ? len <= p.min : len > p.min) return -1;
  }
  if (p.reducedBase !== undefined && digits.length === p.min && value >= 0) {
    const range = 10 ** p.min;
    const basePart = p.reducedBase - (p.reducedBase % range);
    value = basePart + value;
    if (value < p.reducedBase) value += range;
  }
  return setField(fields, p.field, value) ? pos : -1;
}

/** `Parsed.resolve` for a date and an optional time; null when the fields do not make a date. */
function resolve(fields: Fields, resolver: Resolver): { epochDay: number; nanoOfDay: number | null } | null {
  let year = fields.get('YEAR');
  const yoe = fields.get('YEAR_OF_ERA');
  if (yoe !== undefined) {
    if (resolver !== 'LENIENT' && (yoe < 1 || yoe > 999_999_999)) return null;
    const y = year === undefined || year > 0 ? yoe : 1 - yoe;
    if (year !== undefined && year !== y) return null;
    year = y;
  }
  const month = fields.get('MONTH_OF_YEAR');
  const dom = fields.get('DAY_OF_MONTH');
  if (year === undefined || month === undefined || dom === undefined) return null;
  if (year < -999_999_999 || year > 999_999_999) return null;
  let epochDay: number;
  if (resolver === 'LENIENT') {
    const months = year * 12 + (month - 1);
    const y = Math.floor(months / 12);
    const m = months - y * 12 + 1;
    epochDay = epochDayOf(y, m, 1) + (dom - 1);
  } else {
    if (month < 1 || month > 12 || dom < 1 || dom > 31) return null;
    epochDay = epochDayOf(year, month, Math.min(dom, monthLength(year, month)));
  }
  const hod = fields.get('HOUR_OF_DAY');
  if (hod === undefined) return { epochDay, nanoOfDay: null };
  const moh = fields.get('MINUTE_OF_HOUR');
  const som = fields.get('SECOND_OF_MINUTE');
  const nos = fields.get('NANO_OF_SECOND');
  // resolveTimeLenient: these combinations cannot be defaulted, so no time.
  if ((moh === undefined && (som !== undefined || nos !== undefined)) || (moh !== undefined && som === undefined && nos !== undefined)) {
    return { epochDay, nanoOfDay: null };
  }
  const mi = moh ?? 0;
  const s = som ?? 0;
  const n = nos ?? 0;
  if (resolver === 'LENIENT') {
    const total = ((hod * 60 + mi) * 60 + s) * 1e9 + n;
    const days = Math.floor(total / NANOS_PER_DAY);
    return { epochDay: epochDay + days, nanoOfDay: total - days * NANOS_PER_DAY };
  }
  if (mi < 0 || mi > 59 || n < 0 || n > 999_999_999) return null;
  if (hod === 24 && mi === 0 && s === 0 && n === 0) return { epochDay: epochDay + 1, nanoOfDay: 0 };
  if (hod < 0 || hod > 23 || s < 0 || s > 59) return null;
  return { epochDay, nanoOfDay: ((hod * 60 + mi) * 60 + s) * 1e9 + n };
}

/** Parse the whole text with the format: fields, or null when it does not match. */
function parseFields(format: DateTimeFormat, text: string): Fields | null {
  const fields: Fields = new Map();
  const end = parseParts(format.parts, text, 0, fields);
  return end === text.length ? fields : null;
}

/**
 * `toLocalDateTime(text, formatter)`: `LocalDateTime.parse`, else `LocalDate.parse` at midnight;
 * null when neither parses (Java's DateTimeParseException).
 */
export function parseLocalDateTime(text: string, formatter: DateTimeFormat | null): LocalDateTime | null {
  if (formatter === null) {
    const ts = parseFields(DEFAULT_TIMESTAMP, text);
    const r = ts === null ? null : resolve(ts, 'LENIENT');
    if (r !== null && r.nanoOfDay !== null) return { epochDay: r.epochDay, nanoOfDay: r.nanoOfDay };
    const d = parseFields(DEFAULT_DATE, text);
    const rd = d === null ? null : resolve(d, 'LENIENT');
    return rd === null ? null : { epochDay: rd.epochDay, nanoOfDay: 0 };
  }
  const f = parseFields(formatter, text);
  const r = f === null ? null : resolve(f, formatter.resolver);
  if (r === null) return null;
  return { epochDay: r.epochDay, nanoOfDay: r.nanoOfDay ?? 0 };
}

// ---------------------------------------------------------------------- the extractor

/**
 * Java's `Matcher.replaceAll` replacement rules for one literal match: `\c` is `c`, `$0` (and
 * `$0` followed by digits, since the key pattern has no groups) the matched text; anything else
 * after `$` throws in Java, and the whole expiry fails there, so it is an error here too.
 */
function javaReplacement(replacement: string, matched: string, key: string): string {
  let out = '';
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i];
    if (c === '\\') {
      if (i + 1 >= replacement.length) throw replacementError(replacement, key);
      out += replacement[++i];
    } else if (c === '$') {
      if (replacement[i + 1] !== '0') throw replacementError(replacement, key);
      out += matched;
      i++;
    } else out += c;
  }
  return out;
}

function replacementError(value: string, key: string): PaimonError {
  return new PaimonError(
    'INVALID_ARGUMENT',
    `partition value '${value}' of ${key} cannot be substituted into partition.timestamp-pattern: Paimon's substitution treats '$' and '\\' in values as regex replacement syntax and fails the whole expiry; use expire_strategy => 'update-time' or drop that partition by hand`,
  );
}

function keyRegex(key: string): RegExp {
  try {
    return new RegExp('\\$' + key, 'g');
  } catch {
    return new RegExp('\\$' + key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g');
  }
}

export class PartitionTimeExtractor {
  private readonly formatter: DateTimeFormat | null;

  constructor(
    readonly pattern: string | null,
    formatter: string | null,
  ) {
    // Java builds the formatter per partition and fails there; compiling once fails the call first.
    this.formatter = formatter === null ? null : compileFormatter(formatter);
  }

  /** The text the pattern makes of the values (null values: Java's NullPointerException, skipped). */
  timestampText(keys: readonly string[], values: readonly (string | null)[]): string | null {
    if (this.pattern === null) return values[0] ?? null;
    let text = this.pattern;
    for (let i = 0; i < keys.length; i++) {
      const v = values[i];
      if (v === null) return null;
      const re = keyRegex(keys[i]);
      text = text.replace(re, (m) => javaReplacement(v, m, keys[i]));
    }
    return text;
  }

  extract(keys: readonly string[], values: readonly (string | null)[]): ExtractResult {
    const text = this.timestampText(keys, values);
    if (text === null) return { skipped: 'null-value', text: null };
    const time = parseLocalDateTime(text, this.formatter);
    return time === null ? { skipped: 'unparseable', text } : { time };
  }
}
