/**
 * Tag files (`tag/tag-<name>`, `org.apache.paimon.tag.Tag`): the snapshot JSON, plus two keys
 * when the tag has a retention time:
 * - `tagCreateTime`: a Java LocalDateTime (local zone of the writer) as Jackson's JavaTimeModule
 *   writes it: [year, month, day, hour, minute(, second(, nanoOfSecond))], trailing zero parts
 *   dropped (second only when second or nanos are non-zero, nanos only when non-zero);
 * - `tagTimeRetained`: a Java Duration as decimal seconds with 9 fraction digits
 *   (`86400.000000000`; zero is `0.0`). An integer is also read as seconds.
 * Without retention Java writes exactly `snapshot.toJson()` (older readers choke on the extras).
 */
import { PaimonError } from '../errors.js';
import { JsonDecimal, JsonReader, orderedObject, parseJson, toJsonPretty, type JsonValue } from './json.js';
import { snapshotFromJsonObject, snapshotJsonEntries, type Snapshot } from './snapshot.js';

/** LocalDateTime parts; `nano` is 0..999999999. */
export interface LocalDateTimeParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  nano: number;
}

/** A Java Duration: whole seconds plus nanoseconds (0..999999999). */
export interface Duration {
  seconds: bigint;
  nanos: number;
}

export interface Tag extends Snapshot {
  tagCreateTime?: LocalDateTimeParts;
  tagTimeRetained?: Duration;
}

const TAG_KEYS = new Set(['tagCreateTime', 'tagTimeRetained']);

export function durationFromMillis(ms: number): Duration {
  if (!Number.isFinite(ms) || ms < 0) throw new PaimonError('INVALID_ARGUMENT', `time retained must be a non-negative duration, got ${ms} ms`);
  const whole = Math.floor(ms / 1000);
  return { seconds: BigInt(whole), nanos: Math.round((ms - whole * 1000) * 1_000_000) };
}

export function durationToMillis(d: Duration): number {
  return Number(d.seconds) * 1000 + Math.floor(d.nanos / 1_000_000);
}

/** Jackson DurationSerializer (timestamps as nanoseconds): `DecimalUtils.toBigDecimal(seconds, nanos)`. */
export function durationToJson(d: Duration): JsonDecimal {
  if (d.nanos === 0) return new JsonDecimal(d.seconds === 0n ? '0.0' : `${d.seconds}.000000000`);
  return new JsonDecimal(`${d.seconds}.${String(d.nanos).padStart(9, '0')}`);
}

export function durationFromJson(v: JsonValue, what: string): Duration {
  let text: string;
  if (v instanceof JsonDecimal) text = v.text;
  else if (typeof v === 'number' || typeof v === 'bigint') text = String(v);
  else throw new PaimonError('CORRUPT_METADATA', `${what}: tagTimeRetained must be a number of seconds`);
  const m = /^(-?\d+)(?:\.(\d{1,9})\d*)?$/.exec(text);
  if (!m) throw new PaimonError('CORRUPT_METADATA', `${what}: unsupported tagTimeRetained ${text}`);
  return { seconds: BigInt(m[1]), nanos: m[2] ? Number(m[2].padEnd(9, '0')) : 0 };
}

/** `LocalDateTime.now()` as the local wall clock of this process (Java uses the JVM's zone). */
export function localDateTimeOf(date: Date): LocalDateTimeParts {
  return {
    year: date.getFullYear(),
    month: date.getMonth() + 1,
    day: date.getDate(),
    hour: date.getHours(),
    minute: date.getMinutes(),
    second: date.getSeconds(),
    nano: date.getMilliseconds() * 1_000_000,
  };
}

export function localDateTimeToJson(t: LocalDateTimeParts): number[] {
  const out = [t.year, t.month, t.day, t.hour, t.minute];
  if (t.second > 0 || t.nano > 0) {
    out.push(t.second);
    if (t.nano > 0) out.push(t.nano);
  }
  return out;
}

export function localDateTimeFromJson(v: JsonValue, what: string): LocalDateTimeParts {
  if (typeof v === 'string') {
    // Jackson also accepts ISO text ("2024-05-14T10:30:15.123").
    const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/.exec(v);
    if (!m) throw new PaimonError('CORRUPT_METADATA', `${what}: bad tagCreateTime ${v}`);
    return {
      year: +m[1], month: +m[2], day: +m[3], hour: +m[4], minute: +m[5],
      second: m[6] ? +m[6] : 0, nano: m[7] ? Number(m[7].padEnd(9, '0')) : 0,
    };
  }
  if (!Array.isArray(v) || v.length < 5 || v.length > 7 || !v.every((x) => typeof x === 'number' && Number.isInteger(x))) {
    throw new PaimonError('CORRUPT_METADATA', `${what}: tagCreateTime must be [year, month, day, hour, minute(, second(, nano))]`);
  }
  const n = v as number[];
  return { year: n[0], month: n[1], day: n[2], hour: n[3], minute: n[4], second: n[5] ?? 0, nano: n[6] ?? 0 };
}

/** Milliseconds since the epoch of a LocalDateTime interpreted in this process's zone. */
export function localDateTimeToEpochMillis(t: LocalDateTimeParts): number {
  return new Date(t.year, t.month - 1, t.day, t.hour, t.minute, t.second, Math.floor(t.nano / 1_000_000)).getTime();
}

export function parseTag(text: string, what = 'tag'): Tag {
  const json = parseJson(text, what);
  const tag: Tag = snapshotFromJsonObject(json, what, TAG_KEYS);
  const r = JsonReader.of(json, what);
  const ct = r.raw('tagCreateTime');
  if (ct !== undefined && ct !== null) tag.tagCreateTime = localDateTimeFromJson(ct, what);
  const tr = r.raw('tagTimeRetained');
  if (tr !== undefined && tr !== null) tag.tagTimeRetained = durationFromJson(tr, what);
  return tag;
}

/** Tag JSON in Java's key order: snapshot keys, then tagCreateTime, tagTimeRetained, then unknown keys. */
export function tagToJson(tag: Tag): string {
  const entries = snapshotJsonEntries(tag);
  entries.push(['tagCreateTime', tag.tagCreateTime ? localDateTimeToJson(tag.tagCreateTime) : undefined]);
  entries.push(['tagTimeRetained', tag.tagTimeRetained ? durationToJson(tag.tagTimeRetained) : undefined]);
  if (tag.extra) for (const k of Object.keys(tag.extra)) entries.push([k, tag.extra[k]]);
  return toJsonPretty(orderedObject(entries));
}

/** `Tag.trimToSnapshot`: the snapshot without the tag-only keys. */
export function trimToSnapshot(tag: Tag): Snapshot {
  const { tagCreateTime: _c, tagTimeRetained: _r, ...snapshot } = tag;
  return snapshot;
}

/** `Tag.fromSnapshotAndTagTtl`. */
export function tagFromSnapshot(snapshot: Snapshot, timeRetained: Duration, createTime: LocalDateTimeParts): Tag {
  return { ...snapshot, tagCreateTime: createTime, tagTimeRetained: timeRetained };
}

/** Java `LocalDateTime.toString()` (ISO, seconds only when non-zero, nanos as 3, 6 or 9 digits). */
export function localDateTimeToString(t: LocalDateTimeParts): string {
  const p2 = (n: number) => String(n).padStart(2, '0');
  let s = `${String(t.year).padStart(4, '0')}-${p2(t.month)}-${p2(t.day)}T${p2(t.hour)}:${p2(t.minute)}`;
  if (t.second > 0 || t.nano > 0) {
    s += `:${p2(t.second)}`;
    if (t.nano > 0) {
      if (t.nano % 1_000_000 === 0) s += '.' + String(t.nano / 1_000_000).padStart(3, '0');
      else if (t.nano % 1000 === 0) s += '.' + String(t.nano / 1000).padStart(6, '0');
      else s += '.' + String(t.nano).padStart(9, '0');
    }
  }
  return s;
}

/**
 * When a tag with a retention expires (`TagTimeExpire`: createTime + timeRetained), as epoch
 * milliseconds in this process's zone; null for tags without retention (they never expire by time).
 */
export function tagExpireTimeMillis(tag: Tag): number | null {
  if (!tag.tagCreateTime || !tag.tagTimeRetained) return null;
  return localDateTimeToEpochMillis(tag.tagCreateTime) + durationToMillis(tag.tagTimeRetained);
}
