/**
 * Java `Pattern` syntax as JavaScript `RegExp`, for the name filters Paimon's procedures take
 * (compact_database's including_databases / including_tables / excluding_tables:
 * `Pattern.compile(x).matcher(name).matches()`, a full match). The translation is exact for what
 * both engines express and refuses the rest by name, so a filter never silently selects other
 * tables than Paimon would:
 *
 * - kept as is: literals, `[...]` classes, groups, look-arounds, named groups, back-references,
 *   greedy and lazy quantifiers, `\d \w \b \t \n \r \f \uXXXX \xhh`, `|`;
 * - rewritten: `\Q...\E` (quoted literal), a leading `(?i)` (the `i` flag), `\A`, `\z`, `\Z`,
 *   `.` and `$` (Java's line terminators include U+0085), `\s` (Java's is ASCII), `\e`, `\a`,
 *   `\x{h...}`, `\0ooo` (octal), Java's POSIX classes `\p{Lower}` .. `\p{Space}`, one- and
 *   two-letter Unicode categories (`\pL`, `\p{Lu}`), identity escapes of punctuation;
 * - refused (NOT_SUPPORTED): possessive quantifiers (`a*+`), atomic groups `(?>...)`, inline flags
 *   other than a leading `(?i)`, class unions and intersections (`[a[b]]`, `[a&&b]`), `\G \R \X \h
 *   \H \v \V \N`, `\S` inside a class, other `\p{...}` names (`\p{IsLatin}`, `\p{javaLowerCase}`).
 */
import { PaimonError } from '../errors.js';

/** Java's line terminators (Pattern without UNIX_LINES): what `.` does not match and `$` may precede. */
const LINE_TERMINATORS = '\\n\\r\\u0085\\u2028\\u2029';
const JAVA_SPACE = ' \\t\\n\\x0B\\f\\r';
/** Java's POSIX character classes (US-ASCII only), as class contents. */
const POSIX: Readonly<Record<string, string>> = {
  Lower: 'a-z',
  Upper: 'A-Z',
  ASCII: '\\x00-\\x7F',
  Alpha: 'a-zA-Z',
  Digit: '0-9',
  Alnum: 'a-zA-Z0-9',
  Punct: '!-\\/:-@\\[-`{-~',
  Graph: '!-~',
  Print: ' -~',
  Blank: ' \\t',
  Cntrl: '\\x00-\\x1F\\x7F',
  XDigit: '0-9a-fA-F',
  Space: JAVA_SPACE,
};
/** Characters that keep their backslash in a `u`-mode RegExp outside a class. */
const SYNTAX = new Set([...'^$\\.*+?()[]{}|/']);

/** A Java regex construct without an exact JavaScript equivalent (the caller reports it as not supported). */
export class UnsupportedJavaRegexError extends PaimonError {
  constructor(message: string) {
    super('INVALID_ARGUMENT', message);
    this.name = 'UnsupportedJavaRegexError';
  }
}

function refuse(pattern: string, argument: string, what: string): never {
  throw new UnsupportedJavaRegexError(`${argument} ${JSON.stringify(pattern)} uses ${what}, which the proxy cannot translate from Java's regex syntax exactly; rewrite the pattern without it`);
}

/** A pattern that neither Java nor JavaScript accepts. */
function invalid(pattern: string, argument: string, why: string): never {
  throw new PaimonError('INVALID_ARGUMENT', `${argument} ${JSON.stringify(pattern)} is not a valid regular expression: ${why}`);
}

const hex = (cp: number): string => `\\u{${cp.toString(16)}}`;

/**
 * Translate a Java regex to a full-match RegExp (`^(?:...)$`, `u` flag). Throws
 * PaimonError INVALID_ARGUMENT for a pattern that is invalid or that JavaScript cannot express.
 */
export function compileJavaRegex(pattern: string, argument: string): RegExp {
  const cps = [...pattern];
  let flags = 'u';
  let i = 0;
  if (pattern.startsWith('(?i)')) {
    flags += 'i';
    i = 4;
  }
  let out = '';
  let inClass = false;
  let classStart = -1; // index in cps of the first member of the current class
  let afterQuantifier = false;
  const n = cps.length;
  while (i < n) {
    const c = cps[i]!;
    if (c === '\\') {
      const d = cps[i + 1];
      if (d === undefined) invalid(pattern, argument, 'a trailing backslash');
      if (d === 'Q') {
        let end = i + 2;
        while (end < n && !(cps[end] === '\\' && cps[end + 1] === 'E')) end++;
        for (const q of cps.slice(i + 2, end)) out += literal(q, inClass);
        i = Math.min(end + 2, n);
        afterQuantifier = false;
        continue;
      }
      out += escape(d, cps, i, inClass, pattern, argument);
      i += escapeLength(d, cps, i);
      afterQuantifier = false;
      continue;
    }
    if (inClass) {
      if (c === ']' && i > classStart) {
        inClass = false;
        out += ']';
      } else if (c === ']') {
        refuse(pattern, argument, "']' as the first member of a class (escape it as \\])");
      } else if (c === '[') {
        refuse(pattern, argument, 'a class union or nested class ([a[b]])');
      } else if (c === '&' && cps[i + 1] === '&') {
        refuse(pattern, argument, 'a class intersection (&&)');
      } else {
        out += c;
      }
      i++;
      continue;
    }
    if (afterQuantifier && c === '+') refuse(pattern, argument, 'a possessive quantifier (*+, ++, ?+, {n}+)');
    afterQuantifier = false;
    switch (c) {
      case '[':
        inClass = true;
        out += '[';
        i++;
        if (cps[i] === '^') {
          out += '^';
          i++;
        }
        classStart = i;
        continue;
      case '(':
        if (cps[i + 1] === '?') {
          const rest = cps.slice(i + 2, i + 4).join('');
          if (rest.startsWith(':') || rest.startsWith('=') || rest.startsWith('!') || rest === '<=' || rest === '<!') {
            out += '(?';
          } else if (rest.startsWith('<')) {
            out += '(?'; // a named group (?<name>...)
          } else if (rest.startsWith('>')) {
            refuse(pattern, argument, 'an atomic group (?>...)');
          } else {
            refuse(pattern, argument, 'an inline flag group such as (?s), (?m), (?x) or (?i:...) (only a leading (?i) is translated)');
          }
          i += 2;
          continue;
        }
        out += '(';
        i++;
        continue;
      case '.':
        out += flags.includes('s') ? '[^]' : `[^${LINE_TERMINATORS}]`;
        i++;
        continue;
      case '$':
        // Java's `$` (no MULTILINE): the end of input, or before a final line terminator.
        out += `(?=(?:\\r\\n|[${LINE_TERMINATORS}])?$)`;
        i++;
        continue;
      case '*':
      case '+':
      case '?':
        out += c;
        i++;
        if (cps[i] === '?') {
          out += '?';
          i++;
        }
        afterQuantifier = true;
        continue;
      case '{': {
        const close = cps.indexOf('}', i);
        const body = close < 0 ? '' : cps.slice(i + 1, close).join('');
        if (!/^\d+(,\d*)?$/.test(body)) invalid(pattern, argument, `illegal repetition near '{${body}'`);
        out += `{${body}}`;
        i = close + 1;
        if (cps[i] === '?') {
          out += '?';
          i++;
        }
        afterQuantifier = true;
        continue;
      }
      default:
        out += c;
        i++;
    }
  }
  if (inClass) invalid(pattern, argument, 'unclosed character class');
  try {
    return new RegExp(`^(?:${out})$`, flags);
  } catch (e) {
    return invalid(pattern, argument, (e as Error).message);
  }
}

/** A literal code point, escaped for where it stands. */
function literal(ch: string, inClass: boolean): string {
  if (inClass) return /[\]\\^\-[]/.test(ch) ? `\\${ch}` : ch;
  return SYNTAX.has(ch) ? `\\${ch}` : ch;
}

/** How many code points the escape at `i` spans (backslash included). */
function escapeLength(d: string, cps: readonly string[], i: number): number {
  if (d === 'x' && cps[i + 2] === '{') return cps.indexOf('}', i) - i + 1;
  if (d === 'x') return 4;
  if (d === 'u') return 6;
  if (d === 'c') return 3;
  if (d === '0') {
    let k = 0;
    while (k < 3 && /[0-7]/.test(cps[i + 2 + k] ?? '')) k++;
    return 2 + k;
  }
  if ((d === 'p' || d === 'P') && cps[i + 2] === '{') return cps.indexOf('}', i) - i + 1;
  if (d === 'p' || d === 'P') return 3;
  if (d === 'k' && cps[i + 2] === '<') return cps.indexOf('>', i) - i + 1;
  if (/[1-9]/.test(d)) {
    let k = 2;
    while (/[0-9]/.test(cps[i + k] ?? '')) k++;
    return k;
  }
  return 2;
}

function escape(d: string, cps: readonly string[], i: number, inClass: boolean, pattern: string, argument: string): string {
  const len = escapeLength(d, cps, i);
  if (len < 2) invalid(pattern, argument, `unterminated escape \\${d}`);
  const body = cps.slice(i + 2, i + len).join('');
  switch (d) {
    case 'd': case 'D': case 'w': case 'W': case 't': case 'n': case 'r': case 'f':
      return `\\${d}`;
    case 'b': case 'B':
      if (inClass) refuse(pattern, argument, `\\${d} inside a class`);
      return `\\${d}`;
    case 's':
      return inClass ? JAVA_SPACE : `[${JAVA_SPACE}]`;
    case 'S':
      if (inClass) refuse(pattern, argument, '\\S inside a class');
      return `[^${JAVA_SPACE}]`;
    case 'A':
      if (inClass) refuse(pattern, argument, '\\A inside a class');
      return '^';
    case 'z':
      if (inClass) refuse(pattern, argument, '\\z inside a class');
      return '$';
    case 'Z':
      if (inClass) refuse(pattern, argument, '\\Z inside a class');
      return `(?=(?:\\r\\n|[${LINE_TERMINATORS}])?$)`;
    case 'e':
      return '\\x1B';
    case 'a':
      return '\\x07';
    case 'x': {
      const h = body.startsWith('{') ? body.slice(1, -1) : body;
      if (!/^[0-9a-fA-F]{1,8}$/.test(h) || (!body.startsWith('{') && h.length !== 2)) invalid(pattern, argument, `illegal hexadecimal escape \\x${body}`);
      return hex(parseInt(h, 16));
    }
    case 'u':
      if (!/^[0-9a-fA-F]{4}$/.test(body)) invalid(pattern, argument, `illegal Unicode escape \\u${body}`);
      return hex(parseInt(body, 16));
    case 'c':
      return `\\c${body}`;
    case '0':
      if (body === '') invalid(pattern, argument, 'illegal octal escape \\0');
      return hex(parseInt(body, 8));
    case 'p':
    case 'P': {
      const name = body.startsWith('{') ? body.slice(1, -1) : body;
      const posix = POSIX[name];
      if (posix !== undefined) {
        if (d === 'P' && inClass) refuse(pattern, argument, '\\P{...} inside a class');
        return inClass ? posix : `[${d === 'P' ? '^' : ''}${posix}]`;
      }
      if (/^[A-Z][a-z]?$/.test(name)) return `\\${d}{${name}}`;
      return refuse(pattern, argument, `the property class \\${d}{${name}}`);
    }
    case 'k':
      return `\\k${body}`;
    default:
      if (/[1-9]/.test(d)) {
        if (inClass) refuse(pattern, argument, 'a back-reference inside a class');
        return `\\${d}${body}`;
      }
      if (/[A-Za-z]/.test(d)) return refuse(pattern, argument, `the escape \\${d}`);
      if (/[0-9]/.test(d)) return refuse(pattern, argument, `the escape \\${d}`);
      // Java allows escaping any other character; a `u`-mode RegExp only syntax characters.
      return inClass ? literal(d, true) : literal(d, false);
  }
}
