/**
 * MySQL's LIKE pattern (`%`, `_`, backslash escapes) as a regular expression. SHOW filters
 * compare case-insensitively, as SHOW's collations do; a SELECT's LIKE compares as Doris does,
 * case-sensitively.
 */
export function likeToRegExp(pattern: string, opts: { caseSensitive?: boolean } = {}): RegExp {
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      re += pattern[++i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    } else if (c === '%') re += '.*';
    else if (c === '_') re += '.';
    else re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(re + '$', opts.caseSensitive ? 's' : 'is');
}
