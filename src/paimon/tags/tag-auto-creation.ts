/**
 * Automatic tag creation (Paimon's TagAutoCreation with TagPeriodHandler and TagTimeExtractor),
 * as `trigger_tag_automatic_creation` runs it once: which period tags are due on which
 * snapshots, and which auto-created tags `tag.num-retained-max` then drops.
 *
 * Local date-times are "wall milliseconds": the wall clock read as if it were UTC, which is how
 * Paimon's Timestamp.fromLocalDateTime normalizes periods (so a daily period starts at local
 * midnight). Options read (CoreOptions): tag.automatic-creation (process-time | watermark; none
 * and batch create nothing here, as TagTimeExtractor.createForAutoTag returns null for them),
 * tag.creation-period (daily | hourly | two-hours), tag.creation-period-duration, tag.period-formatter,
 * tag.creation-delay, tag.num-retained-max, tag.default-time-retained, tag.automatic-completion,
 * sink.process-time-zone (default: this process's zone), sink.watermark-time-zone (default UTC).
 * The progress is restored from the newest auto tag by its time, as Paimon 2.0 does.
 */
import { PaimonError } from '../errors.js';
import { readDuration } from '../spec/core-options.js';

export interface TagPeriodHandler {
  /** One period in milliseconds. */
  period: number;
  /** Wall milliseconds of an auto tag's name, or null when the name is no auto tag. */
  tagToTime(name: string): number | null;
  timeToTag(wall: number): string;
}

const p2 = (n: number) => String(n).padStart(2, '0');

function parts(wall: number): { y: string; mo: string; d: string; h: string; mi: string } {
  const t = new Date(wall);
  return { y: String(t.getUTCFullYear()).padStart(4, '0'), mo: p2(t.getUTCMonth() + 1), d: p2(t.getUTCDate()), h: p2(t.getUTCHours()), mi: p2(t.getUTCMinutes()) };
}

/** A strict (ResolverStyle.STRICT) parse of fixed-width digit groups: null when out of range. */
function strictWall(y: string, mo: string, d: string, h = '00', mi = '00'): number | null {
  const [Y, M, D, H, Mi] = [y, mo, d, h, mi].map(Number);
  if (M < 1 || M > 12 || H > 23 || Mi > 59) return null;
  const wall = Date.UTC(Y, M - 1, D, H, Mi);
  const t = new Date(wall);
  if (t.getUTCDate() !== D || t.getUTCMonth() !== M - 1) return null;
  return wall;
}

type Formatter = 'with_dashes' | 'without_dashes' | 'without_dashes_and_spaces';

function formatterOf(options: Record<string, string>): Formatter {
  const f = (options['tag.period-formatter'] ?? 'with_dashes').toLowerCase().replace(/-/g, '_');
  if (f === 'with_dashes' || f === 'without_dashes' || f === 'without_dashes_and_spaces') return f;
  throw new PaimonError('INVALID_ARGUMENT', `table option tag.period-formatter='${options['tag.period-formatter']}' is not with_dashes, without_dashes or without_dashes_and_spaces`);
}

const HOUR_FORMATS: Record<Formatter, { re: RegExp; fmt: (p: ReturnType<typeof parts>) => string }> = {
  with_dashes: { re: /^(\d{4})-(\d{2})-(\d{2}) (\d{2})$/, fmt: (p) => `${p.y}-${p.mo}-${p.d} ${p.h}` },
  without_dashes: { re: /^(\d{4})(\d{2})(\d{2}) (\d{2})$/, fmt: (p) => `${p.y}${p.mo}${p.d} ${p.h}` },
  without_dashes_and_spaces: { re: /^(\d{4})(\d{2})(\d{2})(\d{2})$/, fmt: (p) => `${p.y}${p.mo}${p.d}${p.h}` },
};

function hourly(period: number, f: Formatter): TagPeriodHandler {
  const { re, fmt } = HOUR_FORMATS[f];
  return {
    period,
    tagToTime: (name) => {
      const m = re.exec(name);
      return m ? strictWall(m[1], m[2], m[3], m[4]) : null;
    },
    timeToTag: (wall) => fmt(parts(wall)),
  };
}

function daily(f: Formatter): TagPeriodHandler {
  const dashes = f === 'with_dashes';
  const re = dashes ? /^(\d{4})-(\d{2})-(\d{2})$/ : /^(\d{4})(\d{2})(\d{2})$/;
  return {
    period: 86_400_000,
    // DailyTagPeriodHandler.tagToTime: only the part before the first space counts.
    tagToTime: (name) => {
      const m = re.exec(name.split(' ')[0]);
      return m ? strictWall(m[1], m[2], m[3]) : null;
    },
    timeToTag: (wall) => {
      const p = parts(wall);
      return dashes ? `${p.y}-${p.mo}-${p.d}` : `${p.y}${p.mo}${p.d}`;
    },
  };
}

function durationOption(options: Record<string, string>, key: string): number | null {
  const v = options[key];
  if (v === undefined || v.trim() === '') return null;
  const d = readDuration(v);
  if (!('ms' in d)) throw new PaimonError('INVALID_ARGUMENT', `table option ${key}='${v}' is not a duration`);
  return d.ms;
}

/** TagPeriodHandler.create. */
export function tagPeriodHandler(options: Record<string, string>): TagPeriodHandler {
  const custom = durationOption(options, 'tag.creation-period-duration');
  if (custom !== null) {
    return {
      period: custom,
      tagToTime: (name) => {
        const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(name);
        return m ? strictWall(m[1], m[2], m[3], m[4], m[5]) : null;
      },
      timeToTag: (wall) => {
        const p = parts(wall);
        return `${p.y}${p.mo}${p.d}${p.h}${p.mi}`;
      },
    };
  }
  const period = (options['tag.creation-period'] ?? 'daily').toLowerCase();
  if (period === 'daily') return daily(formatterOf(options));
  if (period === 'hourly') return hourly(3_600_000, formatterOf(options));
  if (period === 'two-hours') return hourly(7_200_000, 'with_dashes');
  throw new PaimonError('INVALID_ARGUMENT', `table option tag.creation-period='${options['tag.creation-period']}' is not daily, hourly or two-hours`);
}

/** The wall clock of epoch millisecond `ms` in `zone` (an IANA name or offset; null = this process's zone). */
export function wallMillis(ms: number, zone: string | null): number {
  if (zone === null) return ms - new Date(ms).getTimezoneOffset() * 60_000;
  if (zone === 'UTC' || zone === 'Z' || zone === 'GMT') return ms;
  const fmt = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const get = (type: string) => Number(fmt.formatToParts(new Date(ms)).find((p) => p.type === type)?.value);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'), ms % 1000);
}

export interface AutoTagSettings {
  mode: 'process-time' | 'watermark';
  handler: TagPeriodHandler;
  delay: number;
  numRetainedMax: number | null;
  defaultTimeRetainedMs: number | null;
  automaticCompletion: boolean;
  processTimeZone: string | null;
  watermarkTimeZone: string;
}

/** The auto-creation settings of a table, or null when tag.automatic-creation creates nothing here. */
export function autoTagSettings(options: Record<string, string>): AutoTagSettings | null {
  const mode = (options['tag.automatic-creation'] ?? 'none').toLowerCase();
  if (mode === 'none' || mode === 'batch') return null;
  if (mode !== 'process-time' && mode !== 'watermark') {
    throw new PaimonError('INVALID_ARGUMENT', `table option tag.automatic-creation='${options['tag.automatic-creation']}' is not none, process-time, watermark or batch`);
  }
  const handler = tagPeriodHandler(options);
  const delay = durationOption(options, 'tag.creation-delay') ?? 0;
  if (!(handler.period > delay)) {
    throw new PaimonError('INVALID_ARGUMENT', `table option tag.creation-delay (${delay} ms) must be shorter than one tag period (${handler.period} ms)`);
  }
  const max = options['tag.num-retained-max'];
  if (max !== undefined && !/^\d+$/.test(max.trim())) throw new PaimonError('INVALID_ARGUMENT', `table option tag.num-retained-max='${max}' is not an integer`);
  return {
    mode,
    handler,
    delay,
    numRetainedMax: max === undefined ? null : Number(max),
    defaultTimeRetainedMs: durationOption(options, 'tag.default-time-retained'),
    automaticCompletion: (options['tag.automatic-completion'] ?? 'false').toLowerCase() === 'true',
    processTimeZone: options['sink.process-time-zone'] ?? null,
    watermarkTimeZone: options['sink.watermark-time-zone'] ?? 'UTC',
  };
}

export interface AutoTagSnapshot {
  id: number;
  timeMillis: number;
  watermark: bigint | null;
}

export interface AutoTagState {
  /** Every tag name of the branch with its snapshot id. */
  tags: readonly { name: string; snapshotId: number }[];
  earliestId: number | null;
  /** The snapshot of an id, or null when it does not exist. */
  snapshot(id: number): Promise<AutoTagSnapshot | null>;
}

export interface AutoTagPlan {
  /** Tags to create (create-if-absent), in order. */
  create: { name: string; snapshotId: number }[];
  /** Auto-created tags tag.num-retained-max drops, oldest snapshot first. */
  drop: string[];
}

const LONG_MIN = -9223372036854775808n;

/** TagAutoCreation.run (constructor state, tryToCreateTags per snapshot, then num-retained-max). */
export async function planAutoTags(s: AutoTagSettings, state: AutoTagState): Promise<AutoTagPlan> {
  const h = s.handler;
  const autoTags = state.tags.filter((t) => h.tagToTime(t.name) !== null);
  let nextSnapshot: number;
  let nextTag: number | null = null;
  if (autoTags.length === 0) nextSnapshot = state.earliestId ?? 1;
  else {
    const newest = [...autoTags].sort((a, b) => h.tagToTime(b.name)! - h.tagToTime(a.name)!)[0];
    nextSnapshot = newest.snapshotId + 1;
    nextTag = h.tagToTime(newest.name)! + h.period;
  }
  const create: AutoTagPlan['create'] = [];
  for (;;) {
    const snap = await state.snapshot(nextSnapshot);
    if (snap === null) {
      if (state.earliestId !== null && state.earliestId > nextSnapshot) {
        nextSnapshot = state.earliestId;
        continue;
      }
      break;
    }
    let time: number | null;
    if (s.mode === 'process-time') time = wallMillis(snap.timeMillis, s.processTimeZone);
    else time = snap.watermark === null || snap.watermark === LONG_MIN ? null : wallMillis(Number(snap.watermark), s.watermarkTimeZone);
    if (time !== null && (nextTag === null || time - s.delay >= nextTag + h.period)) {
      // normalizeToPreviousTag: the start of the period before the one `time` is in.
      let thisTag = Math.floor(time / h.period) * h.period - h.period;
      if (s.automaticCompletion && nextTag !== null) thisTag = nextTag;
      create.push({ name: h.timeToTag(thisTag), snapshotId: snap.id });
      nextTag = thisTag + h.period;
    }
    nextSnapshot++;
  }
  const drop: string[] = [];
  // Java checks the retention right after creating a tag: without a new tag nothing is dropped.
  if (s.numRetainedMax !== null && create.length > 0) {
    const all = [...autoTags, ...create.filter((c) => !state.tags.some((t) => t.name === c.name))];
    const bySnapshot = new Map<number, string[]>();
    for (const t of all) bySnapshot.set(t.snapshotId, [...(bySnapshot.get(t.snapshotId) ?? []), t.name]);
    const ids = [...bySnapshot.keys()].sort((a, b) => a - b);
    for (const id of ids.slice(0, Math.max(0, ids.length - s.numRetainedMax))) {
      const names = bySnapshot.get(id)!;
      if (names.length !== 1) {
        throw new PaimonError('CORRUPT_METADATA', `There are more than 1 auto-created tags of the same snapshot: ${names.join(',')}. This is unexpected.`);
      }
      drop.push(names[0]);
    }
  }
  return { create, drop };
}
