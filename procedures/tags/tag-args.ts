/**
 * Arguments the tag procedures share: the retention of a new tag (Paimon's
 * TimeUtils.parseDuration syntax) and tag-name lists (Table.deleteTags: comma separated, trimmed).
 */
import { PaimonError } from '../../src/paimon/errors.js';
import { validateTagName } from '../../src/paimon/table/tag-manager.js';
import { parseDurationMillis } from '../framework/time-args.js';

/** `time_retained` in milliseconds, undefined when absent (no retention: a plain snapshot file). */
export function timeRetainedMillis(text: string | null): number | undefined {
  if (text === null || text.trim() === '') return undefined;
  return parseDurationMillis(text, 'time_retained');
}

/** The distinct names of a comma list, in order; every name non-blank (validated before anything is deleted). */
export function tagNameList(text: string): string[] {
  const names = text.split(',').map((n) => n.trim());
  for (const n of names) {
    if (n === '') throw new PaimonError('INVALID_ARGUMENT', `Tag name shouldn't be blank (in tag list '${text}').`);
    validateTagName(n);
  }
  return [...new Set(names)];
}

/**
 * A BIGINT snapshot id argument as a number. Snapshot ids count commits and stay far below
 * 2^53, so a larger id names no snapshot: it is answered as such, with the digits as written
 * (bigint to text, never through a double, which would round 2^63-1 to ...776000).
 */
export function snapshotIdArg(v: bigint | null): number | null {
  if (v === null) return null;
  if (v < 1n) throw new PaimonError('INVALID_ARGUMENT', `snapshot id must be positive, got ${v}`);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new PaimonError('SNAPSHOT_NOT_FOUND', `snapshot ${v} does not exist (snapshot ids are at most ${Number.MAX_SAFE_INTEGER})`);
  }
  return Number(v);
}
