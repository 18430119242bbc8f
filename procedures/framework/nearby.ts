/**
 * What exists near a missing snapshot id or tag name, for NOT_FOUND messages: a user who typed
 * snapshot 1 after it expired learns the range that is left and the ids on either side; a user
 * who misspelt a tag learns the tags spelt like it (suggest.ts).
 */
import { quote } from './quote.js';
import { closestMatches, describeSuggestion } from './suggest.js';

/** How many ids on each side, and how many similar names, a message lists. */
const NEAREST_SHOWN = 2;
const SIMILAR_NAMES_SHOWN = 3;

/**
 * ` Snapshots 5..40 exist (36 in all); the nearest are 4 and 6.` for the ids present (any
 * order), or ` The table has no snapshots.`
 */
export function describeNearbySnapshots(existing: Iterable<number>, missing: number): string {
  const ids = [...new Set(existing)].sort((a, b) => a - b);
  if (ids.length === 0) return ' The table has no snapshots.';
  const earliest = ids[0]!;
  const latest = ids[ids.length - 1]!;
  const range = earliest === latest ? `Only snapshot ${earliest} exists` : `Snapshots ${earliest}..${latest} exist (${ids.length} in all)`;
  if (missing < earliest) return ` ${range}; ${missing} is older than the earliest (it may have expired).`;
  if (missing > latest) return ` ${range}; ${missing} is newer than the latest.`;
  const below = ids.filter((i) => i < missing).slice(-NEAREST_SHOWN);
  const above = ids.filter((i) => i > missing).slice(0, NEAREST_SHOWN);
  const near = [...below, ...above];
  return ` ${range}; the nearest to ${missing} are ${near.slice(0, -1).join(', ')} and ${near[near.length - 1]!}.`;
}

/**
 * ` Tags spelt like it: eod_2026_11_27 (1 edit away). 12 tags in all.`, or the tags themselves
 * when there are few, or ` The table has no tags.`
 */
export function describeNearbyNames(existing: readonly string[], missing: string, kind: { one: string; many: string }): string {
  if (existing.length === 0) return ` The table has no ${kind.many}.`;
  const similar = closestMatches(missing, existing.map((name) => ({ name, canonical: name })), SIMILAR_NAMES_SHOWN);
  if (similar.length > 0) {
    return ` ${capitalize(kind.many)} spelt like it: ${similar.map(describeSuggestion).join(', ')}; ${existing.length} ${existing.length === 1 ? kind.one : kind.many} in all.`;
  }
  if (existing.length <= SIMILAR_NAMES_SHOWN) return ` Existing ${kind.many}: ${[...existing].sort().map((n) => quote(n)).join(', ')}.`;
  return ` None of the ${existing.length} ${kind.many} is spelt like it.`;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
