import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isAstNode, mysqlParser, nestingDepth, regroupLogical } from '../../../../src/paimon/sql/mysql-expression.js';

/** The WHERE of `SELECT * FROM t WHERE <w>` after regrouping, printed with explicit parentheses. */
function grouped(w: string): string {
  const ast = mysqlParser().astify(`SELECT * FROM t WHERE ${w}`);
  const show = (n: unknown): string => {
    if (!isAstNode(n)) return String(n);
    if (n['type'] === 'binary_expr') return `(${show(n['left'])} ${String(n['operator'])} ${show(n['right'])})`;
    if (n['type'] === 'column_ref') return String(n['column']);
    if (n['type'] === 'function') return `NOT${show((n['args'] as { value: unknown[] }).value[0])}`;
    if (n['type'] === 'unary_expr') return `NOT ${show(n['expr'])}`;
    if (n['type'] === 'expr_list') return `[${(n['value'] as unknown[]).map(show).join(',')}]`;
    return String(n['value']);
  };
  return show(regroupLogical((ast as { where: unknown }).where));
}

describe('node-sql-parser expressions, regrouped', () => {
  test('AND before OR, left to right, in and out of parentheses', () => {
    assert.equal(grouped('a=1 OR b=2 AND c=3'), '((a = 1) OR ((b = 2) AND (c = 3)))');
    assert.equal(grouped('a=1 AND b IN (1) OR c=3'), '(((a = 1) AND (b IN [1])) OR (c = 3))');
    assert.equal(grouped('(a=1 OR b=2 AND c=3)'), '((a = 1) OR ((b = 2) AND (c = 3)))');
    assert.equal(grouped('(a=1 OR b=2) AND c=3'), '(((a = 1) OR (b = 2)) AND (c = 3))');
    assert.equal(grouped('a=1 OR b=2 AND c=3 OR d=4 AND e=5'), '(((a = 1) OR ((b = 2) AND (c = 3))) OR ((d = 4) AND (e = 5)))');
    assert.equal(grouped('NOT (a=1 OR b=2 AND c=3) AND d=4'), '(NOT((a = 1) OR ((b = 2) AND (c = 3))) AND (d = 4))');
  });
  test('nesting counts parentheses and NOT runs outside quotes; comparisons count operators and IN/IS/BETWEEN/LIKE', () => {
    assert.deepEqual(nestingDepth("NOT (NOT (a = '(((('))"), { depth: 4, comparisons: 1 });
    assert.deepEqual(nestingDepth('a IN (1) AND b IS NULL OR c BETWEEN 1 AND 2 OR d LIKE `x(`'), { depth: 1, comparisons: 4 });
    assert.equal(nestingDepth('NOT NOT NOT a = 1').depth, 3);
    assert.equal(nestingDepth("'it\\'s (' = a").depth, 0);
  });
});
