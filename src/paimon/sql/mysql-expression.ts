/**
 * SQL expressions through node-sql-parser's MySQL grammar (loaded on first use: the grammar alone
 * is a large module), with the two things its AST needs before anyone evaluates it:
 *
 * - **AND/OR precedence.** node-sql-parser 5.4 gives AND and OR one precedence in a WHERE (and
 *   inside parentheses elsewhere): `a OR b AND c` comes back as `(a OR b) AND c`, and
 *   `a AND b IN (1) OR c` as `a AND (b IN (1) OR c)`. The tokens stay in order and a
 *   parenthesized group keeps `parentheses: true`, so `regroupLogical` rebuilds each unbracketed
 *   AND/OR chain in SQL's order (AND before OR, left to right).
 * - **Nesting.** Its recursive-descent parser overflows the stack somewhere between a few hundred
 *   and a thousand nested parentheses; `nestingDepth` measures a text's nesting before it is
 *   handed over, so callers can refuse deep input with a clear limit instead.
 */
import { createRequire } from 'node:module';

export type AstNode = { [key: string]: unknown };

export function isAstNode(v: unknown): v is AstNode {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

type MysqlParserModule = typeof import('node-sql-parser/build/mysql.js');
export interface MysqlParser {
  astify(sql: string): unknown;
}
let instance: MysqlParser | null = null;

/** The one parser instance of the process. */
export function mysqlParser(): MysqlParser {
  if (instance === null) {
    const mod = createRequire(import.meta.url)('node-sql-parser/build/mysql.js') as MysqlParserModule | { default: MysqlParserModule };
    const P = 'Parser' in mod ? mod.Parser : mod.default.Parser;
    instance = new P();
  }
  return instance;
}

const LOGICAL = new Set(['AND', 'OR']);

function isChainLink(v: unknown): v is AstNode {
  return isAstNode(v) && v['type'] === 'binary_expr' && typeof v['operator'] === 'string' && LOGICAL.has(v['operator'].toUpperCase());
}

/** The operands and connectives of an unbracketed AND/OR chain, in text order. */
function flattenChain(node: AstNode, operands: unknown[], ops: string[], root: boolean): void {
  if (isChainLink(node) && (root || node['parentheses'] !== true)) {
    flattenChain(node['left'] as AstNode, operands, ops, false);
    ops.push((node['operator'] as string).toUpperCase());
    flattenChain(node['right'] as AstNode, operands, ops, false);
    return;
  }
  operands.push(node);
}

function joinLeft(items: unknown[], operator: string): unknown {
  return items.reduce((left, right) => ({ type: 'binary_expr', operator, left, right }));
}

/**
 * The AST with every AND/OR chain regrouped as SQL groups it; other nodes are copied with their
 * children regrouped. Recursion follows the AST's nesting, which the callers bound beforehand.
 */
export function regroupLogical(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(regroupLogical);
  if (!isAstNode(node)) return node;
  if (isChainLink(node)) {
    const operands: unknown[] = [];
    const ops: string[] = [];
    flattenChain(node, operands, ops, true);
    const groups: unknown[][] = [[regroupLogical(operands[0])]];
    ops.forEach((op, i) => {
      const next = regroupLogical(operands[i + 1]);
      if (op === 'AND') groups[groups.length - 1].push(next);
      else groups.push([next]);
    });
    const out = joinLeft(groups.map((g) => joinLeft(g, 'AND')), 'OR') as AstNode;
    return node['parentheses'] === true ? { ...out, parentheses: true } : out;
  }
  const out: AstNode = {};
  for (const [k, v] of Object.entries(node)) out[k] = typeof v === 'object' && v !== null ? regroupLogical(v) : v;
  return out;
}

/**
 * How deeply `text` nests: parentheses and NOT operators (each NOT of a run counts once), outside
 * quoted strings and back-quoted names; and how many comparisons it makes (comparison operators
 * and the IN, IS, BETWEEN and LIKE keywords).
 */
export function nestingDepth(text: string): { depth: number; comparisons: number } {
  let depth = 0;
  let max = 0;
  let notRun = 0;
  let comparisons = 0;
  const stack: number[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === "'" || c === '"' || c === '`') {
      i++;
      while (i < text.length && text[i] !== c) i += text[i] === '\\' && c !== '`' ? 2 : 1;
      i++;
      notRun = 0;
      continue;
    }
    if (c === '(') {
      stack.push(depth);
      depth += notRun + 1;
      notRun = 0;
      max = Math.max(max, depth);
      i++;
      continue;
    }
    if (c === ')') {
      depth = stack.pop() ?? 0;
      notRun = 0;
      i++;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 64));
    if (word !== null) {
      const w = word[0].toUpperCase();
      if (w === 'NOT') {
        notRun++;
        max = Math.max(max, depth + notRun);
      } else {
        if (w === 'IN' || w === 'IS' || w === 'BETWEEN' || w === 'LIKE') comparisons++;
        notRun = 0;
      }
      i += word[0].length;
      continue;
    }
    const op = /^(<=>|<=|>=|<>|!=|=|<|>)/.exec(text.slice(i, i + 3));
    if (op !== null) {
      comparisons++;
      i += op[0].length;
    } else i++;
    if (!/\s/.test(c)) notRun = 0;
  }
  return { depth: max, comparisons };
}
