/**
 * A Paimon TIMESTAMP(3) value as MySQL's text protocol sends a DATETIME(3):
 * `YYYY-MM-DD HH:MM:SS.mmm`. Paimon's system tables turn epoch milliseconds into a
 * LocalDateTime in the JVM's default zone (`DateTimeUtils.toLocalDateTime`); the proxy's
 * process zone plays that part here.
 */
import { localDateTimeOf, type LocalDateTimeParts } from '../../paimon/spec/tag.js';

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** A local date-time with millisecond precision (nanoseconds below a millisecond are cut, as TIMESTAMP(3) does). */
export function localDateTimeText(t: LocalDateTimeParts): string {
  return `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)} ${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}.${pad(Math.floor(t.nano / 1_000_000), 3)}`;
}

/** Epoch milliseconds in the process's zone. */
export function epochMillisText(millis: number): string {
  return localDateTimeText(localDateTimeOf(new Date(millis)));
}
