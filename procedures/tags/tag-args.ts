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

/** A BIGINT snapshot id argument as a number (snapshot ids stay far below 2^53). */
export function snapshotIdArg(v: bigint | null): number | null {
  if (v === null) return null;
  if (v < 1n) throw new PaimonError('INVALID_ARGUMENT', `snapshot id must be positive, got ${v}`);
  return Number(v);
}
