/**
 * "Did you mean": the names closest to a misspelt one, by edit distance (optimal string
 * alignment, a Damerau-Levenshtein distance: insertions, deletions, substitutions and swaps of
 * two neighbouring characters cost 1 each), compared case-insensitively. Only close matches are
 * suggested: at most 1 edit for names of up to 4 characters, 2 up to 8, 3 beyond, and never
 * more than half the typed length (at least 1), so a short name is not matched to an unrelated one.
 */

/** Edit distance between two strings (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  // Three rows: two rows back are needed for a transposition.
  let prev2 = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let cur = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur[j] = d;
    }
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[b.length]!;
}

/** The largest distance still suggested for a typed name of this length. */
export function suggestionLimit(typedLength: number): number {
  const byLength = typedLength <= 4 ? 1 : typedLength <= 8 ? 2 : 3;
  return Math.min(byLength, Math.max(1, Math.floor(typedLength / 2)));
}

export interface Candidate {
  /** The spelling compared with what was typed (a name or one of its aliases). */
  name: string;
  /** The canonical name it stands for; equal to `name` unless `name` is an alias. */
  canonical: string;
}

export interface Suggestion extends Candidate {
  distance: number;
}

/**
 * The candidates within suggestionLimit of `typed` and within one edit of the nearest, nearest
 * first (then by name), one per canonical name (its nearest spelling), at most `max`.
 */
export function closestMatches(typed: string, candidates: Iterable<Candidate>, max = 3): Suggestion[] {
  const t = typed.toLowerCase();
  const limit = suggestionLimit(Array.from(t).length);
  const best = new Map<string, Suggestion>();
  for (const c of candidates) {
    const d = editDistance(t, c.name.toLowerCase());
    if (d === 0 || d > limit) continue;
    const prev = best.get(c.canonical);
    if (prev === undefined || d < prev.distance || (d === prev.distance && c.name === c.canonical)) best.set(c.canonical, { ...c, distance: d });
  }
  const sorted = [...best.values()].sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name));
  // A much farther name beside a close one is noise: keep those within one edit of the nearest.
  const nearest = sorted[0]?.distance ?? 0;
  return sorted.filter((s) => s.distance <= nearest + 1).slice(0, max);
}

/** `retain_max (1 edit away)`, `snapshotId (alias of snapshot_id, 2 edits away)`. */
export function describeSuggestion(s: Suggestion): string {
  const edits = `${s.distance} edit${s.distance === 1 ? '' : 's'} away`;
  return s.name === s.canonical ? `${s.name} (${edits})` : `${s.name} (alias of ${s.canonical}, ${edits})`;
}

/** ` Did you mean a (1 edit away) or b (2 edits away)?`, or '' when nothing is close. */
export function didYouMean(typed: string, candidates: Iterable<Candidate>, max = 3): string {
  const found = closestMatches(typed, candidates, max);
  if (found.length === 0) return '';
  const parts = found.map(describeSuggestion);
  const list = parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} or ${parts[parts.length - 1]!}`;
  return ` Did you mean ${list}?`;
}
