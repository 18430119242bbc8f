/**
 * Timestamp and option arguments of the maintenance procedures.
 *
 * `older_than` is a STRING parsed like Paimon's DateTimeUtils.parseTimestampData(s, 3, zone):
 * `yyyy-MM-dd`, `yyyy-MM-dd HH:mm[:ss[.SSS]]` (also with `T`). Paimon uses the engine JVM's
 * default time zone; we use the proxy process's local time zone (the `TZ` environment
 * variable), which is the same rule for a proxy deployed beside the engines. A trailing `Z`
 * or `+hh:mm` offset, or a plain integer of epoch milliseconds, is taken as given.
 */
import { PaimonError } from '../../src/paimon/errors.js';
import { readDuration } from '../../src/paimon/spec/core-options.js';
import { quote } from './quote.js';

const LOCAL = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

export function parseTimestampMillis(text: string, argument: string): number {
  const s = text.trim();
  if (/^\d{10,16}$/.test(s)) {
    // Epoch milliseconds; past 2^53 a double would round them, so they are refused as written.
    if (!Number.isSafeInteger(Number(s))) throw new PaimonError('INVALID_ARGUMENT', `${argument} ${s} is past the largest epoch milliseconds accepted (${Number.MAX_SAFE_INTEGER})`);
    return Number(s);
  }
  const m = LOCAL.exec(s);
  if (!m) {
    throw new PaimonError(
      'INVALID_ARGUMENT',
      `${argument} ${quote(text)} is not a timestamp; use 'yyyy-MM-dd HH:mm:ss[.SSS]' (proxy local time) or epoch milliseconds`,
    );
  }
  const [y, mo, d, h, mi, sec] = [1, 2, 3, 4, 5, 6].map((i) => (m[i] === undefined ? 0 : Number(m[i])));
  const ms = m[7] === undefined ? 0 : Number(m[7].padEnd(3, '0').slice(0, 3));
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59) {
    throw new PaimonError('INVALID_ARGUMENT', `${argument} ${quote(text)} is not a valid date and time`);
  }
  let t: number;
  if (m[8] === undefined) {
    t = new Date(y, mo - 1, d, h, mi, sec, ms).getTime();
  } else {
    t = Date.UTC(y, mo - 1, d, h, mi, sec, ms);
    if (m[8] !== 'Z') {
      const sign = m[8][0] === '-' ? -1 : 1;
      const digits = m[8].slice(1).replace(':', '');
      t -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
    }
  }
  const check = new Date(t);
  if (Number.isNaN(check.getTime())) throw new PaimonError('INVALID_ARGUMENT', `${argument} ${quote(text)} is out of range`);
  return t;
}

/** A duration argument or option (`1 h`, `30min`, `10 s`, `100ms`, `2 d`; a bare number is ms) in milliseconds. */
export function parseDurationMillis(text: string, what: string): number {
  const d = readDuration(text);
  if ('ms' in d) return d.ms;
  throw new PaimonError('INVALID_ARGUMENT', d.error === 'unit' ? `${what} ${quote(text)} has an unknown time unit ${quote(d.unit)}` : `${what} ${quote(text)} is not a duration`);
}

/** `options => 'k1=v1,k2=v2'` (ParameterUtils.parseCommaSeparatedKeyValues). */
export function parseOptions(text: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (text === null || text.trim() === '') return out;
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw new PaimonError('INVALID_ARGUMENT', `options entry ${quote(part.trim())} is not key=value`);
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

/**
 * Where a table option's value comes from for a call: the call's `options` argument, the
 * table's own options, or the default (which the message names with its option), so that a
 * message can say which of them to change.
 */
export function optionSource(key: string, dynamicOptions: Record<string, string>, tableOptions: Record<string, string>): string {
  if (dynamicOptions[key] !== undefined) return `${key} in the options argument`;
  if (tableOptions[key] !== undefined) return `the table option ${key}`;
  return `the default of ${key}, which the table does not set`;
}

/**
 * An INT table option, or the default; a malformed value is an error naming the option and
 * `source` (where the value came from, `the table option <key>` unless told).
 */
export function intOption(options: Record<string, string>, key: string, dflt: number, source = `the table option ${key}`): number {
  const v = options[key];
  if (v === undefined) return dflt;
  if (!/^-?\d+$/.test(v.trim())) throw new PaimonError('INVALID_ARGUMENT', `${source}: ${quote(v)} is not an integer`);
  return Number(v.trim());
}
