/**
 * Scalar SQL expressions over one row, as standalone mode evaluates them in the SELECTs it
 * answers (select-query.ts): columns, literals, comparisons (`= <> != < <= > >=`), `[NOT] LIKE`,
 * `[NOT] IN (...)`, `IS [NOT] NULL`, `AND`, `OR`, `NOT`, `+ - * /`, `CASE` (both forms) and the
 * functions metadata queries use: UPPER/UCASE, LOWER/LCASE, CONCAT, LOCATE, IF, IFNULL,
 * COALESCE. Built from node-sql-parser's AST; anything else is NOT_SUPPORTED.
 *
 * Values follow MySQL's rules as Doris applies them: NULL propagates and compares as unknown;
 * a comparison is numeric when one side is a number, textual (case-sensitive) otherwise; a
 * truth value is a number (1, 0) or NULL.
 */
import { ProcedureError } from '../../../procedures/framework/errors.js';
import { likeToRegExp } from './like-pattern.js';

export interface ColumnRef {
  qualifier: string | null;
  name: string;
}

/** A value: its text (numbers as their decimal text) or SQL NULL, and whether it is a number. */
export interface Value {
  text: string | null;
  numeric: boolean;
}

export type Expr =
  | { kind: 'column'; ref: ColumnRef }
  | { kind: 'literal'; value: Value }
  | { kind: 'binary'; op: string; left: Expr; right: Expr }
  | { kind: 'in'; left: Expr; list: Expr[]; negated: boolean }
  | { kind: 'isNull'; expr: Expr; negated: boolean }
  | { kind: 'not'; expr: Expr }
  | { kind: 'case'; operand: Expr | null; whens: { when: Expr; then: Expr }[]; otherwise: Expr | null }
  | { kind: 'function'; name: string; args: Expr[] };

type Ast = { [key: string]: unknown };

export function isAst(v: unknown): v is Ast {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A name in the AST: a string, or newer node-sql-parser's `{ expr: { value } }` wrapper. */
export function astName(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (isAst(v) && isAst(v['expr']) && typeof v['expr']['value'] === 'string') return v['expr']['value'];
  return null;
}

const OPERATORS = new Set(['=', '<>', '!=', '<', '<=', '>', '>=', 'AND', 'OR', '&&', '||', 'LIKE', 'NOT LIKE', '+', '-', '*', '/']);
const FUNCTIONS: Record<string, [number, number]> = {
  UPPER: [1, 1],
  UCASE: [1, 1],
  LOWER: [1, 1],
  LCASE: [1, 1],
  CONCAT: [1, 64],
  LOCATE: [2, 3],
  IF: [3, 3],
  IFNULL: [2, 2],
  COALESCE: [1, 64],
  NOT: [1, 1],
};

function functionName(name: unknown): string | null {
  if (typeof name === 'string') return name;
  if (isAst(name) && Array.isArray(name['name'])) {
    const first: unknown = name['name'][0];
    if (isAst(first) && typeof first['value'] === 'string') return first['value'];
  }
  return null;
}

function literalOf(node: Ast): Value | null {
  switch (node['type']) {
    case 'single_quote_string':
    case 'double_quote_string':
    case 'string':
    case 'natural_string':
      return { text: String(node['value']), numeric: false };
    case 'number':
    case 'bigint':
      return { text: String(node['value']), numeric: true };
    case 'bool':
    case 'boolean':
      return { text: node['value'] ? '1' : '0', numeric: true };
    case 'null':
      return { text: null, numeric: false };
    default:
      return null;
  }
}

/** An expression of node-sql-parser's AST; `unsupported` makes the error for what is not. */
export function expression(node: unknown, unsupported: (what: string) => Error): Expr {
  if (!isAst(node)) throw unsupported('this expression');
  const lit = literalOf(node);
  if (lit !== null) return { kind: 'literal', value: lit };
  switch (node['type']) {
    case 'column_ref': {
      const name = astName(node['column']);
      if (name === null || name === '*') throw unsupported('this column reference');
      return { kind: 'column', ref: { qualifier: astName(node['table']), name } };
    }
    case 'unary_expr': {
      const op = String(node['operator']).toUpperCase();
      const inner = expression(node['expr'], unsupported);
      if (op === 'NOT' || op === '!') return { kind: 'not', expr: inner };
      if (op === '-') return { kind: 'binary', op: '-', left: { kind: 'literal', value: { text: '0', numeric: true } }, right: inner };
      throw unsupported(`the operator ${op}`);
    }
    case 'binary_expr': {
      const op = String(node['operator']).toUpperCase();
      const left = expression(node['left'], unsupported);
      if (op === 'IN' || op === 'NOT IN') {
        const list = node['right'];
        if (!isAst(list) || list['type'] !== 'expr_list' || !Array.isArray(list['value'])) throw unsupported('IN without a list of values');
        return { kind: 'in', left, list: list['value'].map((v: unknown) => expression(v, unsupported)), negated: op === 'NOT IN' };
      }
      if (op === 'IS' || op === 'IS NOT') {
        const right = isAst(node['right']) ? literalOf(node['right']) : null;
        if (right === null || right.text !== null) throw unsupported(`${op} with something other than NULL`);
        return { kind: 'isNull', expr: left, negated: op === 'IS NOT' };
      }
      if (!OPERATORS.has(op)) throw unsupported(`the operator ${op}`);
      return { kind: 'binary', op, left, right: expression(node['right'], unsupported) };
    }
    case 'case': {
      const args = node['args'];
      if (!Array.isArray(args)) throw unsupported('this CASE');
      const whens: { when: Expr; then: Expr }[] = [];
      let otherwise: Expr | null = null;
      for (const a of args as unknown[]) {
        if (!isAst(a)) throw unsupported('this CASE');
        if (a['type'] === 'when') whens.push({ when: expression(a['cond'], unsupported), then: expression(a['result'], unsupported) });
        else otherwise = expression(a['result'], unsupported);
      }
      return { kind: 'case', operand: node['expr'] == null ? null : expression(node['expr'], unsupported), whens, otherwise };
    }
    case 'function': {
      const name = (functionName(node['name']) ?? '').toUpperCase();
      const arity = FUNCTIONS[name];
      const list = node['args'];
      const raw: unknown[] = isAst(list) && Array.isArray(list['value']) ? list['value'] : [];
      if (arity === undefined || raw.length < arity[0] || raw.length > arity[1]) throw unsupported(`the function ${name || '?'}() with ${raw.length} argument(s)`);
      const args = raw.map((a) => expression(a, unsupported));
      return name === 'NOT' ? { kind: 'not', expr: args[0]! } : { kind: 'function', name, args };
    }
    default:
      throw unsupported(`${String(node['type'])} expressions`);
  }
}

// ---------------------------------------------------------------------------------------------
// Evaluation

const NULL: Value = { text: null, numeric: false };
const TRUE: Value = { text: '1', numeric: true };
const FALSE: Value = { text: '0', numeric: true };

function bool(b: boolean | null): Value {
  return b === null ? NULL : b ? TRUE : FALSE;
}

const NUMBER = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?/;

/** MySQL's string-to-number conversion: the leading number, 0 when there is none. */
function toNumber(text: string): number {
  const m = NUMBER.exec(text);
  return m ? Number(m[0]) : 0;
}

function isInteger(text: string): boolean {
  return /^-?\d+$/.test(text);
}

/** NULL, or the truth of a value (a number that is not 0). */
export function truth(v: Value): boolean | null {
  if (v.text === null) return null;
  return toNumber(v.text) !== 0;
}

/** -1, 0, 1; numbers compare as numbers (exactly for integers), the rest as text. */
export function compareText(a: string, b: string, numeric: boolean): number {
  if (numeric) {
    if (isInteger(a) && isInteger(b)) {
      const x = BigInt(a);
      const y = BigInt(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    const x = toNumber(a);
    const y = toNumber(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

function compare(a: Value, b: Value): number | null {
  if (a.text === null || b.text === null) return null;
  return compareText(a.text, b.text, a.numeric || b.numeric);
}

function numberValue(n: number | bigint): Value {
  return { text: String(n), numeric: true };
}

function arithmetic(op: string, a: Value, b: Value): Value {
  if (a.text === null || b.text === null) return NULL;
  if (op !== '/' && isInteger(a.text) && isInteger(b.text)) {
    const x = BigInt(a.text);
    const y = BigInt(b.text);
    return numberValue(op === '+' ? x + y : op === '-' ? x - y : x * y);
  }
  const x = toNumber(a.text);
  const y = toNumber(b.text);
  if (op === '/' && y === 0) return NULL;
  return numberValue(op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : x / y);
}

/** How the evaluator reads a column of the row. */
export type ColumnReader = (ref: ColumnRef) => Value;

export function evaluateExpr(e: Expr, column: ColumnReader): Value {
  switch (e.kind) {
    case 'literal':
      return e.value;
    case 'column':
      return column(e.ref);
    case 'not': {
      const t = truth(evaluateExpr(e.expr, column));
      return bool(t === null ? null : !t);
    }
    case 'isNull':
      return bool((evaluateExpr(e.expr, column).text === null) !== e.negated);
    case 'in': {
      const v = evaluateExpr(e.left, column);
      if (v.text === null) return NULL;
      let sawNull = false;
      for (const item of e.list) {
        const c = compare(v, evaluateExpr(item, column));
        if (c === null) sawNull = true;
        else if (c === 0) return bool(!e.negated);
      }
      return sawNull ? NULL : bool(e.negated);
    }
    case 'case': {
      const operand = e.operand === null ? null : evaluateExpr(e.operand, column);
      for (const w of e.whens) {
        const hit = operand === null ? truth(evaluateExpr(w.when, column)) === true : compare(operand, evaluateExpr(w.when, column)) === 0;
        if (hit) return evaluateExpr(w.then, column);
      }
      return e.otherwise === null ? NULL : evaluateExpr(e.otherwise, column);
    }
    case 'binary': {
      if (e.op === 'AND' || e.op === '&&') {
        const l = truth(evaluateExpr(e.left, column));
        if (l === false) return FALSE;
        const r = truth(evaluateExpr(e.right, column));
        if (r === false) return FALSE;
        return bool(l === null || r === null ? null : true);
      }
      if (e.op === 'OR' || e.op === '||') {
        const l = truth(evaluateExpr(e.left, column));
        if (l === true) return TRUE;
        const r = truth(evaluateExpr(e.right, column));
        if (r === true) return TRUE;
        return bool(l === null || r === null ? null : false);
      }
      const a = evaluateExpr(e.left, column);
      const b = evaluateExpr(e.right, column);
      if (e.op === 'LIKE' || e.op === 'NOT LIKE') {
        if (a.text === null || b.text === null) return NULL;
        return bool(likeToRegExp(b.text, { caseSensitive: true }).test(a.text) !== (e.op === 'NOT LIKE'));
      }
      if (e.op === '+' || e.op === '-' || e.op === '*' || e.op === '/') return arithmetic(e.op, a, b);
      const c = compare(a, b);
      if (c === null) return NULL;
      switch (e.op) {
        case '=':
          return bool(c === 0);
        case '<>':
        case '!=':
          return bool(c !== 0);
        case '<':
          return bool(c < 0);
        case '<=':
          return bool(c <= 0);
        case '>':
          return bool(c > 0);
        default:
          return bool(c >= 0);
      }
    }
    case 'function':
      return callFunction(e.name, e.args.map((a) => evaluateExpr(a, column)));
  }
}

function callFunction(name: string, args: Value[]): Value {
  const [a, b, c] = args;
  switch (name) {
    case 'UPPER':
    case 'UCASE':
      return a!.text === null ? NULL : { text: a!.text.toUpperCase(), numeric: false };
    case 'LOWER':
    case 'LCASE':
      return a!.text === null ? NULL : { text: a!.text.toLowerCase(), numeric: false };
    case 'CONCAT':
      return args.some((v) => v.text === null) ? NULL : { text: args.map((v) => v.text).join(''), numeric: false };
    case 'LOCATE': {
      // LOCATE(substr, str[, pos]): 1-based position, 0 when absent.
      if (a!.text === null || b!.text === null) return NULL;
      const from = c === undefined || c.text === null ? 0 : Math.max(0, toNumber(c.text) - 1);
      return numberValue(b!.text.indexOf(a!.text, from) + 1);
    }
    case 'IF':
      return truth(a!) === true ? b! : c!;
    case 'IFNULL':
      return a!.text !== null ? a! : b!;
    case 'COALESCE':
      return args.find((v) => v.text !== null) ?? NULL;
    default:
      throw new ProcedureError('NOT_SUPPORTED', `the function ${name}() is not supported in standalone mode`);
  }
}
