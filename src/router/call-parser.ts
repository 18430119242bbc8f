/**
 * The CALL statement parser (node-sql-parser cannot parse three-part names or `=>`).
 *
 *   CALL name [ '(' [ arg { ',' arg } ] ')' ] [ ';' ]   -- then only whitespace/comments
 *   name := ident [ '.' ident [ '.' ident ] ]
 *   arg  := ident '=>' literal | literal
 *   literal := string { string } | [ '+' | '-' ] number | TRUE | FALSE | NULL
 *            | TIMESTAMP string | DATE string        -- passed on as the string
 *
 * Parsing is in two steps so that CALLs that are not ours cost little and never fail here:
 * `parseCallName` reads only the procedure name (the router decides from it whether to
 * intercept; a name it cannot read is simply forwarded), and `parseCallArguments` reads the
 * rest only for an intercepted call, where every error is a ParseError (ERR 1064, or 1235
 * when another statement follows the CALL).
 *
 * Whether named and positional arguments may be mixed is decided at binding (Paimon's Spark
 * rule refuses it), so both are read here.
 *
 * Limits (a client controls the text, so nothing here grows with it beyond one pass): the
 * grammar has no nesting at all (a literal is a flat token: a `(` where a literal belongs is
 * a syntax error, not a deeper level), at most MAX_CALL_ARGUMENTS arguments, and name parts
 * and argument names of at most MAX_IDENTIFIER_LENGTH characters, as MySQL's identifiers
 * (NAME_CHAR_LEN, ER_TOO_LONG_IDENT) and Doris's default table_name_length_limit. Messages
 * quote at most a short prefix of what the client sent.
 */
import type { ArgumentValue, CallArgument } from '../../procedures/framework/binding.js';
import { ER_NOT_SUPPORTED_YET } from '../../protocol/constants.js';
import { Lexer, ParseError, isKeyword, type LexerOptions, type Token } from './sql-lexer.js';

export { ParseError } from './sql-lexer.js';

/** Longest catalog, namespace, procedure or argument name, in characters (MySQL's NAME_CHAR_LEN). */
export const MAX_IDENTIFIER_LENGTH = 64;
/** Most arguments one CALL may pass (Paimon's procedures take fewer than 20, framework arguments included). */
export const MAX_CALL_ARGUMENTS = 64;
/** How much of a client's identifier a message quotes. */
const QUOTED_IDENTIFIER_MAX = 40;

export interface CallName {
  /** 1 to 3 identifier parts as written (back-quotes removed, case kept). */
  parts: string[];
  /** Offset just after the name, where the argument list starts. */
  end: number;
}

export interface ParsedCall {
  /** `cat` of `cat.sys.proc`, or null for `sys.proc`. */
  catalog: string | null;
  /** The namespace (always `sys` for intercepted calls), or null for a one-part name. */
  namespace: string | null;
  procedure: string;
  args: CallArgument[];
}

/**
 * Read `CALL <name>` only. Returns null when the text is not a CALL with a readable name;
 * never throws (a statement we cannot read is not ours, and goes upstream untouched).
 */
export function parseCallName(sql: string, opts: LexerOptions = {}): CallName | null {
  try {
    return readName(new Lexer(sql, opts));
  } catch (e) {
    if (e instanceof ParseError) return null;
    throw e;
  }
}

/** `CALL ident[.ident[.ident]]`; throws a positioned ParseError when it is not that. */
function readName(lx: Lexer): CallName {
  const kw = lx.next();
  if (!isKeyword(kw, 'CALL')) throw lx.error(kw.start, "'CALL'");
  const parts: string[] = [];
  let t = lx.next();
  for (;;) {
    if (t.kind !== 'ident') {
      throw lx.error(t.start, 'an identifier', { detail: `expected a procedure name part ([catalog.]sys.procedure), found ${describe(t)}` });
    }
    checkIdentifierLength(lx, t, 'a procedure name part');
    parts.push(t.value);
    const dot = lx.peek();
    if (!punct(dot, '.')) break;
    if (parts.length === 3) throw lx.error(dot.start, "'('", { detail: 'a procedure name has at most three parts (catalog.sys.procedure)' });
    lx.next();
    t = lx.next();
  }
  return { parts, end: t.end };
}

/** Identifiers longer than MySQL allows are refused here, before they reach a message, the audit or a path. */
function checkIdentifierLength(lx: Lexer, t: Extract<Token, { kind: 'ident' }>, what: string): void {
  if ([...t.value].length > MAX_IDENTIFIER_LENGTH) {
    throw lx.error(t.start, `an identifier of at most ${MAX_IDENTIFIER_LENGTH} characters`, {
      detail: `${what} is longer than ${MAX_IDENTIFIER_LENGTH} characters (identifier ${describe(t)})`,
    });
  }
}

function punct(t: Token, v: string): t is Extract<Token, { kind: 'punct' }> {
  return t.kind === 'punct' && t.value === v;
}

function describe(t: Token): string {
  switch (t.kind) {
    case 'eof':
      return 'the end of the statement';
    case 'string':
      return 'a string';
    case 'number':
      return `the number ${t.text}`;
    case 'ident': {
      const v = [...t.value];
      const shown = v.length > QUOTED_IDENTIFIER_MAX ? `${v.slice(0, QUOTED_IDENTIFIER_MAX).join('')}...` : t.value;
      return t.quoted ? `\`${shown}\`` : `'${shown}'`;
    }
    case 'punct':
      return `'${t.value}'`;
  }
}

/** How a catalog name as written resolves against the configured catalogs. */
export type CatalogResolution = { kind: 'found'; name: string } | { kind: 'ambiguous'; candidates: string[] } | { kind: 'none' };

/**
 * The configured catalog a written name means: the exact name first, else the one configured
 * name equal to it ignoring case (`CALL PAIMON.SYS.COMPACT(...)` for catalog `paimon`); two
 * or more such names are ambiguous and none is chosen. (Doris itself looks catalogs up by the
 * exact name, CatalogMgr.getCatalog; the proxy is more lenient only where that cannot pick
 * the wrong catalog.)
 */
export function resolveCatalogName(written: string, configured: readonly string[]): CatalogResolution {
  if (configured.includes(written)) return { kind: 'found', name: written };
  const lower = written.toLowerCase();
  const candidates = configured.filter((n) => n.toLowerCase() === lower);
  if (candidates.length === 1) return { kind: 'found', name: candidates[0]! };
  if (candidates.length > 1) return { kind: 'ambiguous', candidates };
  return { kind: 'none' };
}

/** Parse the argument list and the end of an intercepted CALL whose name ended at `name.end`. */
export function parseCallArguments(sql: string, name: CallName, opts: LexerOptions = {}): CallArgument[] {
  const lx = new Lexer(sql, opts);
  lx.pos = name.end;
  const args: CallArgument[] = [];
  let t = lx.peek();
  const sawParen = punct(t, '(');
  if (sawParen) {
    lx.next();
    if (punct(lx.peek(), ')')) {
      lx.next();
    } else {
      for (;;) {
        if (args.length === MAX_CALL_ARGUMENTS) {
          throw lx.error(lx.peek().start, "')'", { detail: `a CALL takes at most ${MAX_CALL_ARGUMENTS} arguments` });
        }
        args.push(parseArgument(lx));
        t = lx.next();
        if (punct(t, ')')) break;
        if (!punct(t, ',')) throw lx.error(t.start, "',' or ')'", { detail: `expected ',' or ')' after an argument, found ${describe(t)}` });
      }
    }
  }
  t = lx.next();
  if (punct(t, ';')) {
    const semi = t;
    t = lx.next();
    if (t.kind !== 'eof') {
      throw lx.error(t.start, 'the end of the statement', {
        errno: ER_NOT_SUPPORTED_YET,
        detail: `a Paimon CALL must be sent as a single statement (another statement follows the ';' at offset ${semi.start})`,
      });
    }
  } else if (t.kind !== 'eof') {
    const expected = args.length === 0 && !sawParen ? "'(', ';' or the end of the statement" : "';' or the end of the statement";
    throw lx.error(t.start, expected, { detail: `expected ${expected}, found ${describe(t)}` });
  }
  return args;
}

function parseArgument(lx: Lexer): CallArgument {
  const t = lx.peek();
  if (t.kind === 'ident' && !isLiteralKeyword(t) && !isTypedLiteral(lx, t)) {
    lx.next();
    checkIdentifierLength(lx, t, 'an argument name');
    const arrow = lx.next();
    if (!punct(arrow, '=>')) {
      throw lx.error(arrow.start, "'=>'", {
        detail: `expected '=>' after the argument name ${describe(t)} (arguments are literals: strings, numbers, TRUE, FALSE, NULL), found ${describe(arrow)}`,
      });
    }
    const value = parseLiteral(lx);
    return { name: t.value, value, offset: t.start };
  }
  return { name: null, value: parseLiteral(lx), offset: t.start };
}

/** `TIMESTAMP '...'` / `DATE '...'`: a keyword followed by a string (Spark passes them to STRING parameters as their text). */
function isTypedLiteral(lx: Lexer, t: Token): boolean {
  if (!(isKeyword(t, 'TIMESTAMP') || isKeyword(t, 'DATE'))) return false;
  const state = lx.save();
  lx.next();
  const isString = lx.peek().kind === 'string';
  lx.restore(state);
  return isString;
}

function isLiteralKeyword(t: Token): boolean {
  return isKeyword(t, 'TRUE') || isKeyword(t, 'FALSE') || isKeyword(t, 'NULL');
}

const LITERAL = 'a literal (string, number, TRUE, FALSE or NULL)';

function parseLiteral(lx: Lexer): ArgumentValue {
  const t = lx.next();
  if (t.kind === 'string') {
    // Adjacent string literals concatenate, as in MySQL ('a' 'b' = 'ab').
    let value = t.value;
    while (lx.peek().kind === 'string') value += (lx.next() as { value: string }).value;
    return { kind: 'string', value };
  }
  if ((isKeyword(t, 'TIMESTAMP') || isKeyword(t, 'DATE')) && lx.peek().kind === 'string') {
    const v = lx.next() as { value: string };
    return { kind: 'string', value: v.value };
  }
  if (isKeyword(t, 'TRUE')) return { kind: 'boolean', value: true };
  if (isKeyword(t, 'FALSE')) return { kind: 'boolean', value: false };
  if (isKeyword(t, 'NULL')) return { kind: 'null' };
  let sign = '';
  let num: Token = t;
  if (punct(t, '-') || punct(t, '+')) {
    sign = t.value === '-' ? '-' : '';
    num = lx.next();
    if (num.kind !== 'number') throw lx.error(num.start, 'a number after the sign', { detail: `expected a number after '${t.value}', found ${describe(num)}` });
  }
  if (num.kind === 'number') {
    if (num.integer) {
      const value = BigInt(num.text);
      const signed = sign === '-' ? -value : value;
      return { kind: 'integer', value: signed, text: signed.toString() };
    }
    return { kind: 'decimal', text: sign + num.text };
  }
  throw lx.error(t.start, LITERAL, { detail: `expected ${LITERAL}, found ${describe(t)}` });
}

/** Parse a whole CALL statement (name and arguments). Throws ParseError on any syntax error. */
export function parseCall(sql: string, opts: LexerOptions = {}): ParsedCall {
  const name = readName(new Lexer(sql, opts));
  const args = parseCallArguments(sql, name, opts);
  const p = name.parts;
  return {
    catalog: p.length === 3 ? p[0]! : null,
    namespace: p.length >= 2 ? p[p.length - 2]! : null,
    procedure: p[p.length - 1]!,
    args,
  };
}
