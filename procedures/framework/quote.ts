/**
 * Quoting user input inside messages. Every message that echoes something the user typed (an
 * argument value, a name, an option string) goes through `quote`, so that a message stays
 * readable and bounded whatever was sent: a value longer than MAX_QUOTED_CHARS is cut there,
 * marked with an ellipsis and followed by its original length. Secret masking happens later, on
 * the whole message (the executor's maskMessage), and is not weakened by the cut: a key=value
 * secret keeps its key in front of it.
 */

/** The most characters of one user value a message repeats. */
export const MAX_QUOTED_CHARS = 200;

const ELLIPSIS = '…';

/** The value cut to `max` characters (code points, so a surrogate pair is never split), or as is. */
export function truncate(value: string, max = MAX_QUOTED_CHARS): { text: string; cut: boolean; length: number } {
  const points = Array.from(value);
  if (points.length <= max) return { text: value, cut: false, length: points.length };
  return { text: points.slice(0, max).join(''), cut: true, length: points.length };
}

/** The value without quotes, for names shown bare (`PROCEDURE cat.sys.<name>`), bounded like quote(). */
export function bounded(value: string, max = MAX_QUOTED_CHARS): string {
  const t = truncate(value, max);
  return t.cut ? `${t.text}${ELLIPSIS} (${t.length} characters)` : value;
}

/**
 * `'value'` in single quotes; past `max` characters `'first max characters…' (N characters)`.
 * Control characters are shown escaped, so a value cannot break a message over lines.
 */
export function quote(value: string, max = MAX_QUOTED_CHARS): string {
  const t = truncate(value, max);
  const shown = t.text.replace(/[\u0000-\u001f\u007f]/g, (c) => (c === '\n' ? '\\n' : c === '\t' ? '\\t' : c === '\r' ? '\\r' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
  return t.cut ? `'${shown}${ELLIPSIS}' (${t.length} characters)` : `'${shown}'`;
}
