import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCall, parseCallName, ParseError } from '../../../src/router/call-parser.js';
import type { ArgumentValue } from '../../../procedures/framework/binding.js';

function values(sql: string): ArgumentValue[] {
  return parseCall(sql).args.map((a) => a.value);
}

function parseError(sql: string, opts = {}): ParseError {
  try {
    parseCall(sql, opts);
  } catch (e) {
    if (e instanceof ParseError) return e;
    throw e;
  }
  throw new Error(`expected a ParseError for: ${sql}`);
}

describe('CALL names', () => {
  test('three-part, two-part and one-part names, plain and back-quoted, case kept', () => {
    assert.deepEqual(parseCall('CALL paimon.sys.expire_snapshots()'), { catalog: 'paimon', namespace: 'sys', procedure: 'expire_snapshots', args: [] });
    assert.deepEqual(parseCall('call SYS.Rollback_To'), { catalog: null, namespace: 'SYS', procedure: 'Rollback_To', args: [] });
    assert.deepEqual(parseCall('CALL `my cat`.`sys`.`we``ird`()'), { catalog: 'my cat', namespace: 'sys', procedure: 'we`ird', args: [] });
    assert.deepEqual(parseCall('CALL proc'), { catalog: null, namespace: null, procedure: 'proc', args: [] });
    assert.deepEqual(parseCall('CaLl  /* c */ paimon . sys . p ( ) ;'), { catalog: 'paimon', namespace: 'sys', procedure: 'p', args: [] });
  });
  test('parseCallName reads only the name and never throws', () => {
    assert.deepEqual(parseCallName('CALL a.sys.b(garbage ((('), { parts: ['a', 'sys', 'b'], end: 12 });
    assert.equal(parseCallName('CALL'), null);
    assert.equal(parseCallName('CALL a.b.c.d()'), null);
    assert.equal(parseCallName('SELECT 1'), null);
    assert.equal(parseCallName("CALL 'x'"), null);
    assert.equal(parseCallName('CALL `unterminated'), null);
    assert.equal(parseCallName('/*! CALL */ a'), null);
  });
});

describe('CALL literals', () => {
  test('strings in single and double quotes with doubled quotes and backslash escapes', () => {
    assert.deepEqual(values(`CALL s.p('a''b', "c""d", 'x\\'y', "\\n\\t\\0\\Z\\\\\\q", 'it''s' " ok")`), [
      { kind: 'string', value: "a'b" },
      { kind: 'string', value: 'c"d' },
      { kind: 'string', value: "x'y" },
      { kind: 'string', value: '\n\t\0\x1a\\q' },
      { kind: 'string', value: "it's ok" },
    ]);
    assert.deepEqual(values("CALL s.p('50\\%', '\\_')"), [
      { kind: 'string', value: '50\\%' },
      { kind: 'string', value: '\\_' },
    ]);
    assert.deepEqual(parseCall("CALL s.p('a\\nb')", { backslashEscapes: false }).args[0]!.value, { kind: 'string', value: 'a\\nb' });
    assert.deepEqual(values("CALL s.p('日本語 ✓ 😀')"), [{ kind: 'string', value: '日本語 ✓ 😀' }]);
  });
  test('integers are exact up to and beyond 64 bits, with signs', () => {
    assert.deepEqual(values('CALL s.p(0, 42, -7, + 3, 9223372036854775807, -9223372036854775808, 18446744073709551616, 0x1F)'), [
      { kind: 'integer', value: 0n, text: '0' },
      { kind: 'integer', value: 42n, text: '42' },
      { kind: 'integer', value: -7n, text: '-7' },
      { kind: 'integer', value: 3n, text: '3' },
      { kind: 'integer', value: 9223372036854775807n, text: '9223372036854775807' },
      { kind: 'integer', value: -9223372036854775808n, text: '-9223372036854775808' },
      { kind: 'integer', value: 18446744073709551616n, text: '18446744073709551616' },
      { kind: 'integer', value: 31n, text: '31' },
    ]);
  });
  test('decimals and exponents keep their text', () => {
    assert.deepEqual(values('CALL s.p(1.5, -0.25, .5, 1e10, 2.5E-3, -1.)'), [
      { kind: 'decimal', text: '1.5' },
      { kind: 'decimal', text: '-0.25' },
      { kind: 'decimal', text: '.5' },
      { kind: 'decimal', text: '1e10' },
      { kind: 'decimal', text: '2.5E-3' },
      { kind: 'decimal', text: '-1.' },
    ]);
  });
  test("typed literals TIMESTAMP '...' and DATE '...' pass their text; the words alone are still names", () => {
    assert.deepEqual(values("CALL s.p(TIMESTAMP '2024-01-01 12:00:00', date \"2024-02-02\")"), [
      { kind: 'string', value: '2024-01-01 12:00:00' },
      { kind: 'string', value: '2024-02-02' },
    ]);
    const c = parseCall("CALL s.p(timestamp => 17, date => TIMESTAMP '2024-01-01')");
    assert.deepEqual(c.args.map((a) => [a.name, a.value.kind]), [['timestamp', 'integer'], ['date', 'string']]);
  });
  test('TRUE, FALSE and NULL in any case', () => {
    assert.deepEqual(values('CALL s.p(true, FALSE, Null)'), [
      { kind: 'boolean', value: true },
      { kind: 'boolean', value: false },
      { kind: 'null' },
    ]);
  });
});

describe('CALL arguments', () => {
  test('named arguments with plain and back-quoted names, offsets recorded', () => {
    const sql = "CALL paimon.sys.expire_snapshots(`table` => 'db.t', retain_max => 5, Older_Than=>'2024-01-01')";
    const c = parseCall(sql);
    assert.deepEqual(
      c.args.map((a) => [a.name, a.value]),
      [
        ['table', { kind: 'string', value: 'db.t' }],
        ['retain_max', { kind: 'integer', value: 5n, text: '5' }],
        ['Older_Than', { kind: 'string', value: '2024-01-01' }],
      ],
    );
    assert.equal(sql.slice(c.args[1]!.offset, c.args[1]!.offset + 10), 'retain_max');
  });
  test('positional and named are both read (binding refuses the mix)', () => {
    const c = parseCall("CALL sys.p('db.t', retain_max => 1)");
    assert.deepEqual(c.args.map((a) => a.name), [null, 'retain_max']);
  });
  test('comments of all three kinds between tokens, and a trailing semicolon', () => {
    const c = parseCall("-- lead\n# hash\n/* block */ CALL /**/ paimon.sys.p( -- c\n 'a' /* x */ , # y\n 1 ) ; -- done\n /* end */");
    assert.deepEqual(c.args.map((a) => a.value.kind), ['string', 'integer']);
  });
  test('double dash without a following space is not a comment (it is a double negation in MySQL, refused here)', () => {
    const e = parseError('CALL s.p(--1)');
    assert.equal(e.errno, 1064);
  });
});

describe('CALL syntax errors are 1064 with position and expectation', () => {
  const cases: [string, number, RegExp][] = [
    ["CALL paimon.sys.p('a' 'b'", 25, /',' or '\)'/],
    ["CALL paimon.sys.p('a',)", 22, /literal/],
    ['CALL paimon.sys.p(retain_max 5)', 29, /'=>'/],
    ['CALL paimon.sys.p(x => )', 23, /literal/],
    ['CALL paimon.sys.p(1) extra', 21, /';' or the end/],
    ["CALL paimon.sys.p('abc", 18, /unterminated string/],
    ['CALL paimon.sys.p(1) /* open', 21, /unterminated comment/],
    ['CALL paimon.sys.p(now())', 21, /'=>'/],
    ['CALL paimon.sys.p(-)', 19, /number after/],
    ['CALL paimon.sys.p(/*! 1 */)', 18, /executable comments/],
    ['CALL paimon.sys.', 16, /procedure name part/],
    ['CALL paimon.sys.p(1.5x)', 21, /right after the number/],
    ['CALL paimon.sys.p x', 18, /'\(', ';' or the end/],
  ];
  for (const [sql, offset, re] of cases) {
    test(sql, () => {
      const e = parseError(sql);
      assert.equal(e.errno, 1064);
      assert.equal(e.sqlState, '42000');
      assert.equal(e.offset, offset, e.message);
      assert.match(e.message, re);
      assert.match(e.message, /near '.*' at line 1, column \d+/s);
    });
  }
  test('line and column count newlines', () => {
    const e = parseError("CALL paimon.sys.p(\n  'a',\n  ?)");
    assert.equal(e.line, 3);
    assert.equal(e.column, 3);
  });
  test('another statement after the CALL is 1235, not a syntax error', () => {
    const e = parseError('CALL paimon.sys.p(1); SELECT 1');
    assert.equal(e.errno, 1235);
    assert.match(e.message, /single statement/);
  });
});
