/**
 * A small MySQL-dialect tokenizer for the statements the proxy reads itself: the CALL
 * statement (call-parser.ts), the session statements USE, SWITCH, SET, KILL and SHOW
 * (session-statement.ts) and, in standalone mode, the SELECTs clients send when they connect
 * (standalone-responder.ts). Everything else is forwarded without ever being tokenized.
 *
 * MySQL lexical rules followed here (MySQL manual, "Literals", "Comments", "Schema Object
 * Names"): `-- ` needs whitespace (or the end) after the two dashes, `#` and `/* *\/` are
 * comments, `/*! *\/` and `/*+ *\/` are not (the server executes or reads them) and are
 * refused; unquoted identifiers are `[A-Za-z0-9_$]` and non-ASCII, not all digits;
 * back-quoted identifiers escape a back-quote by doubling it; strings are single- or
 * double-quoted (double quotes are strings, not identifiers, without ANSI_QUOTES), with the
 * quote doubled or the MySQL backslash escapes (unless NO_BACKSLASH_ESCAPES).
 */
import { ER_PARSE_ERROR } from '../../protocol/constants.js';

export class ParseError extends Error {
  /** Character offset in the statement where the problem is. */
  readonly offset: number;
  /** What the parser expected there (for the message and tests). */
  readonly expected: string;
  /** ER_PARSE_ERROR for syntax errors, ER_NOT_SUPPORTED_YET for a CALL followed by another statement. */
  readonly errno: number;
  readonly sqlState: string;
  readonly line: number;
  readonly column: number;

  constructor(sql: string, offset: number, expected: string, opts: { errno?: number; detail?: string } = {}) {
    const { line, column } = lineAndColumn(sql, offset);
    const near = sql.slice(offset, offset + 80);
    const what = opts.detail ?? `expected ${expected}`;
    super(`You have an error in your CALL syntax: ${what} near '${near}' at line ${line}, column ${column}`);
    this.name = 'ParseError';
    this.offset = offset;
    this.expected = expected;
    this.errno = opts.errno ?? ER_PARSE_ERROR;
    this.sqlState = '42000';
    this.line = line;
    this.column = column;
  }
}

export function lineAndColumn(sql: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, sql.length);
  for (let i = 0; i < end; i++) {
    if (sql.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

export type Token =
  | { kind: 'ident'; value: string; quoted: boolean; start: number; end: number }
  | { kind: 'string'; value: string; start: number; end: number }
  | { kind: 'number'; text: string; integer: boolean; start: number; end: number }
  /** Punctuation and operators: ( ) , . ; => = @ @@ * + - < > ! ? and any other single character. */
  | { kind: 'punct'; value: string; start: number; end: number }
  | { kind: 'eof'; start: number; end: number };

export function isIdentChar(c: number): boolean {
  return (
    (c >= 97 && c <= 122) || // a-z
    (c >= 65 && c <= 90) || // A-Z
    (c >= 48 && c <= 57) || // 0-9
    c === 95 || // _
    c === 36 || // $
    c >= 0x80
  );
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12;
}

const ESCAPES: Record<string, string> = {
  '0': '\0',
  b: '\b',
  n: '\n',
  r: '\r',
  t: '\t',
  Z: '\x1a',
};

export interface LexerOptions {
  /** False under NO_BACKSLASH_ESCAPES: a backslash is an ordinary character. */
  backslashEscapes?: boolean;
}

export class Lexer {
  readonly sql: string;
  pos = 0;
  private readonly backslashEscapes: boolean;
  private peeked: Token | null = null;

  constructor(sql: string, opts: LexerOptions = {}) {
    this.sql = sql;
    this.backslashEscapes = opts.backslashEscapes ?? true;
  }

  error(offset: number, expected: string, opts: { errno?: number; detail?: string } = {}): ParseError {
    return new ParseError(this.sql, offset, expected, opts);
  }

  /** Skip whitespace and comments; refuses executable comments. */
  skipTrivia(): void {
    const s = this.sql;
    const n = s.length;
    let i = this.pos;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (isSpace(c)) {
        i++;
      } else if (c === 35 /* # */) {
        while (i < n && s.charCodeAt(i) !== 10) i++;
      } else if (c === 45 /* - */ && s.charCodeAt(i + 1) === 45 && (i + 2 >= n || isSpace(s.charCodeAt(i + 2)))) {
        while (i < n && s.charCodeAt(i) !== 10) i++;
      } else if (c === 47 /* / */ && s.charCodeAt(i + 1) === 42 /* * */) {
        const k = s.charCodeAt(i + 2);
        if (k === 33 /* ! */ || k === 43 /* + */) {
          throw this.error(i, 'a token', { detail: `executable comments and optimizer hints (/*${s[i + 2]} ... */) are not supported here` });
        }
        const close = s.indexOf('*/', i + 2);
        if (close < 0) throw this.error(i, "'*/' closing the comment", { detail: "unterminated comment, expected '*/'" });
        i = close + 2;
      } else {
        break;
      }
    }
    this.pos = i;
  }

  /** Position to come back to (one token of lookahead beyond peek()). */
  save(): { pos: number; peeked: Token | null } {
    return { pos: this.pos, peeked: this.peeked };
  }

  restore(state: { pos: number; peeked: Token | null }): void {
    this.pos = state.pos;
    this.peeked = state.peeked;
  }

  peek(): Token {
    if (this.peeked === null) this.peeked = this.lex();
    return this.peeked;
  }

  next(): Token {
    const t = this.peek();
    this.peeked = null;
    return t;
  }

  private lex(): Token {
    this.skipTrivia();
    const s = this.sql;
    const n = s.length;
    const start = this.pos;
    if (start >= n) return { kind: 'eof', start, end: start };
    const c = s.charCodeAt(start);
    // strings
    if (c === 39 /* ' */ || c === 34 /* " */) return this.lexString(start, c);
    // back-quoted identifiers
    if (c === 96 /* ` */) {
      let i = start + 1;
      let value = '';
      for (;;) {
        const close = s.indexOf('`', i);
        if (close < 0) throw this.error(start, 'a closing back-quote', { detail: 'unterminated back-quoted identifier' });
        value += s.slice(i, close);
        if (s.charCodeAt(close + 1) === 96) {
          value += '`';
          i = close + 2;
          continue;
        }
        this.pos = close + 1;
        break;
      }
      if (value === '') throw this.error(start, 'an identifier', { detail: 'empty back-quoted identifier' });
      return { kind: 'ident', value, quoted: true, start, end: this.pos };
    }
    // numbers (including .5)
    if (isDigit(c) || (c === 46 && isDigit(s.charCodeAt(start + 1)))) {
      const num = this.lexNumber(start);
      if (num !== null) return num;
    }
    if (isIdentChar(c)) {
      let i = start + 1;
      while (i < n && isIdentChar(s.charCodeAt(i))) i++;
      this.pos = i;
      return { kind: 'ident', value: s.slice(start, i), quoted: false, start, end: i };
    }
    // two-character operators
    const two = s.slice(start, start + 2);
    if (two === '=>' || two === '@@' || two === '<=' || two === '>=' || two === '<>' || two === '!=' || two === ':=') {
      this.pos = start + 2;
      return { kind: 'punct', value: two, start, end: start + 2 };
    }
    // one code point (keep surrogate pairs together)
    const cp = s.codePointAt(start)!;
    const len = cp > 0xffff ? 2 : 1;
    this.pos = start + len;
    return { kind: 'punct', value: s.slice(start, start + len), start, end: start + len };
  }

  /** A number, or null when the digits are the start of an identifier (MySQL allows `1abc`). */
  private lexNumber(start: number): Token | null {
    const s = this.sql;
    const n = s.length;
    let i = start;
    // hexadecimal 0x...
    if (s.charCodeAt(i) === 48 && (s[i + 1] === 'x' || s[i + 1] === 'X')) {
      let j = i + 2;
      while (j < n && /[0-9a-fA-F]/.test(s[j]!)) j++;
      if (j > i + 2 && (j >= n || !isIdentChar(s.charCodeAt(j)))) {
        this.pos = j;
        return { kind: 'number', text: s.slice(start, j), integer: true, start, end: j };
      }
    }
    while (i < n && isDigit(s.charCodeAt(i))) i++;
    let integer = true;
    if (s.charCodeAt(i) === 46 /* . */) {
      integer = false;
      i++;
      while (i < n && isDigit(s.charCodeAt(i))) i++;
    }
    const e = s.charCodeAt(i);
    if (e === 101 || e === 69) {
      let j = i + 1;
      if (s[j] === '+' || s[j] === '-') j++;
      if (isDigit(s.charCodeAt(j))) {
        integer = false;
        while (j < n && isDigit(s.charCodeAt(j))) j++;
        i = j;
      }
    }
    if (integer && i < n && isIdentChar(s.charCodeAt(i))) return null; // identifier like 1abc
    if (!integer && i < n && isIdentChar(s.charCodeAt(i))) {
      throw this.error(i, 'a separator after the number', { detail: `unexpected '${s[i]}' right after the number ${s.slice(start, i)}` });
    }
    this.pos = i;
    return { kind: 'number', text: s.slice(start, i), integer, start, end: i };
  }

  private lexString(start: number, quote: number): Token {
    const s = this.sql;
    const n = s.length;
    let i = start + 1;
    let value = '';
    let chunk = i;
    for (;;) {
      if (i >= n) {
        throw this.error(start, `a closing ${String.fromCharCode(quote)}`, { detail: `unterminated string literal, expected a closing ${String.fromCharCode(quote)}` });
      }
      const c = s.charCodeAt(i);
      if (c === quote) {
        value += s.slice(chunk, i);
        if (s.charCodeAt(i + 1) === quote) {
          value += String.fromCharCode(quote);
          i += 2;
          chunk = i;
          continue;
        }
        i++;
        break;
      }
      if (c === 92 /* \ */ && this.backslashEscapes) {
        value += s.slice(chunk, i);
        if (i + 1 >= n) {
          throw this.error(start, `a closing ${String.fromCharCode(quote)}`, { detail: 'unterminated string literal (it ends with a backslash)' });
        }
        const e = s[i + 1]!;
        // \% and \_ keep their backslash (they matter only to LIKE), as MySQL does.
        if (e === '%' || e === '_') value += '\\' + e;
        else value += ESCAPES[e] ?? e;
        i += 2;
        chunk = i;
        continue;
      }
      i++;
    }
    this.pos = i;
    return { kind: 'string', value, start, end: i };
  }
}

/** Case-insensitive keyword test for an unquoted identifier token. */
export function isKeyword(t: Token, kw: string): boolean {
  return t.kind === 'ident' && !t.quoted && t.value.length === kw.length && t.value.toUpperCase() === kw;
}

/**
 * A token cursor over one statement with the few helpers the statement readers need
 * (session-statement.ts, the standalone SELECT reader). Errors are ParseErrors at the token.
 */
export class TokenCursor {
  readonly lx: Lexer;
  /** End offset of the last token taken. */
  lastEnd = 0;

  constructor(readonly sql: string) {
    this.lx = new Lexer(sql);
  }

  peek(): Token {
    return this.lx.peek();
  }

  next(): Token {
    const t = this.lx.next();
    this.lastEnd = t.end;
    return t;
  }

  /** Takes the keyword when it comes next. */
  kw(k: string): boolean {
    if (isKeyword(this.peek(), k)) {
      this.next();
      return true;
    }
    return false;
  }

  isKw(k: string): boolean {
    return isKeyword(this.peek(), k);
  }

  /** Takes the punctuation when it comes next. */
  punct(p: string): boolean {
    const t = this.peek();
    if (t.kind === 'punct' && t.value === p) {
      this.next();
      return true;
    }
    return false;
  }

  expectKw(k: string): void {
    const t = this.next();
    if (!isKeyword(t, k)) throw this.lx.error(t.start, `'${k}'`);
  }

  /** An identifier (plain or back-quoted), or a ParseError naming what was expected. */
  expectIdent(what: string): string {
    const t = this.next();
    if (t.kind !== 'ident') throw this.lx.error(t.start, what);
    return t.value;
  }

  expectString(what: string): string {
    const t = this.next();
    if (t.kind !== 'string') throw this.lx.error(t.start, what);
    return t.value;
  }

  /** Optional `;`, then the end. A second statement is refused (no multi-statements here). */
  end(): void {
    this.punct(';');
    const t = this.next();
    if (t.kind !== 'eof') throw this.lx.error(t.start, 'the end of the statement');
  }

  /** At the end of the statement or its `;`. */
  atEnd(): boolean {
    const t = this.peek();
    return t.kind === 'eof' || (t.kind === 'punct' && t.value === ';');
  }
}
