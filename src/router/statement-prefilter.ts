/**
 * The prefilter run on every COM_QUERY: skip leading whitespace and comments, then look at
 * the first keyword. Only CALL, USE, SWITCH, KILL (and SET, for `@paimon_*` user variables; ALTER,
 * for the tag and branch clauses of Paimon tables; REFRESH, for REFRESH CATALOG with catalogs
 * read from the FE) matter to a proxy with an upstream
 * (everything else is forwarded without being read further), so this is a handful of
 * character comparisons and no allocation for ordinary statements.
 *
 * Executable comments and hints (`/*! ... *\/`, `/*+ ... *\/`) in front make a statement
 * "other": the server might execute their content, so the proxy must not guess at it.
 * A `-- ` comment needs whitespace (or the end) after the dashes, as in MySQL.
 */

export type StatementKind = 'call' | 'use' | 'switch' | 'kill' | 'set' | 'alter' | 'refresh' | 'other';

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12;
}

/** True for characters that may continue an unquoted identifier (so `CALLx` is not CALL). */
function continuesWord(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36 || c >= 0x80;
}

/** Offset of the first token after leading whitespace and comments, or -1 (executable comment / unterminated). */
export function firstTokenOffset(sql: string): number {
  const n = sql.length;
  let i = 0;
  while (i < n) {
    const c = sql.charCodeAt(i);
    if (isSpace(c)) {
      i++;
    } else if (c === 35 /* # */) {
      const nl = sql.indexOf('\n', i);
      if (nl < 0) return n;
      i = nl + 1;
    } else if (c === 45 /* - */ && sql.charCodeAt(i + 1) === 45 && (i + 2 >= n || isSpace(sql.charCodeAt(i + 2)))) {
      const nl = sql.indexOf('\n', i);
      if (nl < 0) return n;
      i = nl + 1;
    } else if (c === 47 /* / */ && sql.charCodeAt(i + 1) === 42 /* * */) {
      const k = sql.charCodeAt(i + 2);
      if (k === 33 /* ! */ || k === 43 /* + */) return -1;
      const close = sql.indexOf('*/', i + 2);
      if (close < 0) return -1;
      i = close + 2;
    } else {
      return i;
    }
  }
  return n;
}

function word(sql: string, i: number, upper: string): boolean {
  const len = upper.length;
  if (i + len > sql.length) return false;
  for (let k = 0; k < len; k++) {
    // ASCII upper-casing of letters only: (c & 0xDF) maps a-z to A-Z.
    if ((sql.charCodeAt(i + k) & 0xdf) !== upper.charCodeAt(k)) return false;
  }
  return i + len === sql.length || !continuesWord(sql.charCodeAt(i + len));
}

/** Classify a COM_QUERY text by its first keyword. */
export function classifyStatement(sql: string): StatementKind {
  const i = firstTokenOffset(sql);
  if (i < 0 || i >= sql.length) return 'other';
  switch (sql.charCodeAt(i) | 0x20) {
    case 99 /* c */:
      return word(sql, i, 'CALL') ? 'call' : 'other';
    case 117 /* u */:
      return word(sql, i, 'USE') ? 'use' : 'other';
    case 115 /* s */:
      return word(sql, i, 'SWITCH') ? 'switch' : word(sql, i, 'SET') ? 'set' : 'other';
    case 107 /* k */:
      return word(sql, i, 'KILL') ? 'kill' : 'other';
    case 97 /* a */:
      return word(sql, i, 'ALTER') ? 'alter' : 'other';
    case 114 /* r */:
      return word(sql, i, 'REFRESH') ? 'refresh' : 'other';
    default:
      return 'other';
  }
}

/**
 * The same classification over the raw COM_QUERY payload (bytes after the command byte),
 * so a session can skip decoding statements that are forwarded anyway. Comments and
 * keywords are ASCII, so bytes compare like characters; non-ASCII bytes only ever continue
 * a word, as in the string version.
 */
export function classifyStatementBytes(buf: Uint8Array, start = 0, end = buf.length): StatementKind {
  let i = start;
  while (i < end) {
    const c = buf[i]!;
    if (isSpace(c)) {
      i++;
    } else if (c === 35 || (c === 45 && buf[i + 1] === 45 && (i + 2 >= end || isSpace(buf[i + 2]!)))) {
      while (i < end && buf[i] !== 10) i++;
    } else if (c === 47 && buf[i + 1] === 42) {
      const k = buf[i + 2];
      if (k === 33 || k === 43) return 'other';
      let j = i + 2;
      while (j + 1 < end && !(buf[j] === 42 && buf[j + 1] === 47)) j++;
      if (j + 1 >= end) return 'other';
      i = j + 2;
    } else {
      break;
    }
  }
  if (i >= end) return 'other';
  switch (buf[i]! | 0x20) {
    case 99:
      return wordBytes(buf, i, end, 'CALL') ? 'call' : 'other';
    case 117:
      return wordBytes(buf, i, end, 'USE') ? 'use' : 'other';
    case 115:
      return wordBytes(buf, i, end, 'SWITCH') ? 'switch' : wordBytes(buf, i, end, 'SET') ? 'set' : 'other';
    case 107:
      return wordBytes(buf, i, end, 'KILL') ? 'kill' : 'other';
    case 97:
      return wordBytes(buf, i, end, 'ALTER') ? 'alter' : 'other';
    case 114:
      return wordBytes(buf, i, end, 'REFRESH') ? 'refresh' : 'other';
    default:
      return 'other';
  }
}

function wordBytes(buf: Uint8Array, i: number, end: number, upper: string): boolean {
  const len = upper.length;
  if (i + len > end) return false;
  for (let k = 0; k < len; k++) if ((buf[i + k]! & 0xdf) !== upper.charCodeAt(k)) return false;
  return i + len === end || !continuesWord(buf[i + len]!);
}
