/**
 * Fuzzing the CALL parser and the router: generated valid statements parse back to what was
 * generated; random and mutated statements never make the parser throw anything but a
 * ParseError, and never make the router throw or its local routes reject.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import fc from 'fast-check';
import { MAX_CALL_ARGUMENTS, MAX_IDENTIFIER_LENGTH, parseCall, ParseError } from '../../src/router/call-parser.js';
import { classifyStatement, classifyStatementBytes } from '../../src/router/statement-prefilter.js';
import type { ArgumentValue } from '../../procedures/framework/binding.js';
import type { Router } from '../../src/router/router.js';
import { makeRouter, makeSession, makeWarehouse } from '../unit/router/router-fixtures.js';
import mysql from 'mysql2/promise';
import { configSchema } from '../../src/config-schema.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startProxy } from '../../src/proxy-app.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);

// --- generators ------------------------------------------------------------------------------

const trivia = fc.constantFrom(' ', '  ', '\n', '\t', ' /* c */ ', ' -- c\n', ' # h\n', '/**/', '\r\n');
const sep = fc.array(trivia, { minLength: 0, maxLength: 2 }).map((a) => a.join(''));
const sepReq = fc.array(trivia, { minLength: 1, maxLength: 2 }).map((a) => a.join(''));

const plainIdent = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_$]{0,12}$/).filter((s) => !['TRUE', 'FALSE', 'NULL'].includes(s.toUpperCase()));
const anyIdent = fc.string({ minLength: 1, maxLength: 10, unit: 'grapheme' });
const ident = fc.oneof(
  plainIdent.map((v) => ({ v, text: v })),
  anyIdent.map((v) => ({ v, text: '`' + v.replace(/`/g, '``') + '`' })),
);

function quoteString(v: string, q: "'" | '"', style: 'double' | 'backslash'): string {
  let out = '';
  for (const ch of v) {
    if (ch === q) out += style === 'double' ? q + q : '\\' + q;
    else if (ch === '\\') out += '\\\\';
    else out += ch;
  }
  return q + out + q;
}

type Lit = { value: ArgumentValue; text: string };
const literal: fc.Arbitrary<Lit> = fc.oneof(
  fc.tuple(fc.string({ maxLength: 20, unit: 'grapheme' }), fc.constantFrom<"'" | '"'>("'", '"'), fc.constantFrom<'double' | 'backslash'>('double', 'backslash')).map(([v, q, st]): Lit => ({
    value: { kind: 'string', value: v },
    text: quoteString(v, q, st),
  })),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((n): Lit => ({ value: { kind: 'integer', value: n, text: n.toString() }, text: n.toString() })),
  fc.tuple(fc.integer({ min: -99999, max: 99999 }), fc.integer({ min: 0, max: 9999 })).map(([a, b]): Lit => {
    const t = `${a}.${b}`;
    return { value: { kind: 'decimal', text: t }, text: t };
  }),
  fc.boolean().map((b): Lit => ({ value: { kind: 'boolean', value: b }, text: b ? 'TRUE' : 'false' })),
  fc.constant<Lit>({ value: { kind: 'null' }, text: 'NULL' }),
);

interface Generated {
  sql: string;
  catalog: string | null;
  procedure: string;
  args: { name: string | null; value: ArgumentValue }[];
}

const validCall: fc.Arbitrary<Generated> = fc
  .record({
    threePart: fc.boolean(),
    catalog: ident,
    proc: ident,
    named: fc.boolean(),
    args: fc.array(fc.tuple(ident, literal), { maxLength: 6 }),
    seps: fc.array(sep, { minLength: 20, maxLength: 20 }),
    lead: sepReq,
    semi: fc.boolean(),
    kw: fc.constantFrom('CALL', 'call', 'Call'),
  })
  .map(({ threePart, catalog, proc, named, args, seps, lead, semi, kw }) => {
    let i = 0;
    const s = (): string => seps[i++ % seps.length]!;
    const name = (threePart ? `${catalog.text}${s()}.${s()}` : '') + `sys${s()}.${s()}${proc.text}`;
    const argText = args.map(([n, l]) => (named ? `${n.text}${s()}=>${s()}${l.text}` : l.text)).join(`${s()},${s()}`);
    const sql = `${s()}${kw}${lead}${name}${s()}(${s()}${argText}${s()})${s()}${semi ? ';' : ''}${s()}`;
    return {
      sql,
      catalog: threePart ? catalog.v : null,
      procedure: proc.v,
      args: args.map(([n, l]) => ({ name: named ? n.v : null, value: l.value })),
    };
  });

/** A mutation: delete, insert or replace a few characters (from a SQL-ish alphabet). */
const mutated = fc
  .tuple(validCall, fc.array(fc.tuple(fc.nat(), fc.constantFrom('del', 'ins', 'rep'), fc.constantFrom("'", '"', '`', '(', ')', ',', '=>', '.', ';', '-', '/*', '*/', '#', '\\', ' ', 'a', '1', '\n', 'é', '😀', '\0')), { minLength: 1, maxLength: 4 }))
  .map(([g, muts]) => {
    let s = g.sql;
    for (const [p, op, ch] of muts) {
      const at = s.length === 0 ? 0 : p % (s.length + 1);
      if (op === 'del') s = s.slice(0, at) + s.slice(at + 1);
      else if (op === 'ins') s = s.slice(0, at) + ch + s.slice(at);
      else s = s.slice(0, at) + ch + s.slice(at + 1);
    }
    return s;
  });

const randomText = fc.oneof(
  fc.string({ maxLength: 80, unit: 'binary' }),
  fc.string({ maxLength: 80, unit: fc.constantFrom(...'CALLcall sys.()\'"`,=>-#/*;\\0123456789eE+ TRUEFALSENUL\n'.split('')) }),
);

function onlyParseErrors(sql: string): void {
  try {
    parseCall(sql);
  } catch (e) {
    if (!(e instanceof ParseError)) throw new Error(`non-ParseError for ${JSON.stringify(sql)}: ${String(e)}`);
    assert.ok(e.offset >= 0 && e.offset <= sql.length, 'error offset inside the statement');
    assert.ok(e.errno === 1064 || e.errno === 1235);
  }
}

// --- properties ------------------------------------------------------------------------------

describe('CALL parser fuzz', () => {
  test('generated valid statements parse back to what was generated', () => {
    fc.assert(
      fc.property(validCall, (g) => {
        const c = parseCall(g.sql);
        assert.equal(c.catalog, g.catalog);
        assert.equal(c.procedure, g.procedure);
        assert.equal(c.namespace, 'sys');
        assert.deepEqual(
          c.args.map((a) => ({ name: a.name, value: a.value })),
          g.args,
        );
      }),
      { numRuns: RUNS },
    );
  });

  test('mutated statements throw nothing but ParseError', () => {
    fc.assert(fc.property(mutated, (s) => onlyParseErrors(s)), { numRuns: RUNS });
  });

  test('random text throws nothing but ParseError', () => {
    fc.assert(fc.property(randomText, (s) => onlyParseErrors(s)), { numRuns: RUNS });
    fc.assert(fc.property(randomText, (s) => onlyParseErrors('CALL paimon.sys.p(' + s)), { numRuns: RUNS });
  });

  test('the prefilter never throws and agrees between strings and bytes', () => {
    fc.assert(
      fc.property(fc.oneof(randomText, mutated), (s) => {
        const k = classifyStatement(s);
        // Byte classification must match for well-formed UTF-8 (lone surrogates are not encodable).
        if (!/[\uD800-\uDFFF]/.test(s)) assert.equal(classifyStatementBytes(Buffer.from(s, 'utf8')), k, JSON.stringify(s));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('CALL parser limits: depth and length pushed past them', () => {
  /** Parse, expecting a ParseError; returns it. Bounded: the message stays short whatever the input. */
  function refused(sql: string): ParseError {
    const t0 = performance.now();
    let err: unknown;
    try {
      parseCall(sql);
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof ParseError, `expected a ParseError for a ${sql.length}-character statement, got ${String(err)}`);
    assert.ok(err.message.length < 600, `message of ${err.message.length} characters`);
    assert.ok(performance.now() - t0 < 2000, 'linear time');
    return err;
  }

  test('nesting (parentheses, brackets, ARRAY/MAP constructors) is not part of the grammar: refused at the first level, at any depth', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200_000 }), fc.constantFrom('(', '[', '{', 'ARRAY(', 'MAP(', "ARRAY['a', "), (depth, open) => {
        const e = refused(`CALL paimon.sys.compact(${open.repeat(depth)}1`);
        assert.equal(e.errno, 1064);
        assert.ok(e.offset <= 'CALL paimon.sys.compact('.length + open.length, `refused at offset ${e.offset}`);
      }),
      { numRuns: 40 },
    );
  });

  test(`more than ${MAX_CALL_ARGUMENTS} arguments are refused naming the limit; exactly that many parse`, () => {
    const args = (n: number): string => Array.from({ length: n }, (_, i) => `a${i} => ${i}`).join(', ');
    assert.equal(parseCall(`CALL paimon.sys.p(${args(MAX_CALL_ARGUMENTS)})`).args.length, MAX_CALL_ARGUMENTS);
    for (const n of [MAX_CALL_ARGUMENTS + 1, 10_000, 200_000]) {
      const e = refused(`CALL paimon.sys.p(${args(n)})`);
      assert.match(e.message, new RegExp(`at most ${MAX_CALL_ARGUMENTS} arguments`));
    }
  });

  test(`name parts and argument names longer than ${MAX_IDENTIFIER_LENGTH} characters are refused naming the limit, quoting only a prefix`, () => {
    const ok = 'x'.repeat(MAX_IDENTIFIER_LENGTH);
    assert.equal(parseCall(`CALL ${ok}.sys.${ok}(${ok} => 1)`).procedure, ok);
    // 64 characters that are 4 bytes each are still 64 characters (MySQL counts characters).
    assert.equal(parseCall(`CALL paimon.sys.\`${'😀'.repeat(MAX_IDENTIFIER_LENGTH)}\`()`).procedure.length, MAX_IDENTIFIER_LENGTH * 2);
    fc.assert(
      fc.property(fc.integer({ min: MAX_IDENTIFIER_LENGTH + 1, max: 1_000_000 }), fc.constantFrom(0, 1, 2, 3), fc.boolean(), (len, where, quoted) => {
        const long = quoted ? '`' + 'y'.repeat(len) + '`' : 'y'.repeat(len);
        const sql = [`CALL ${long}.sys.p()`, `CALL c.${long}.p()`, `CALL c.sys.${long}()`, `CALL c.sys.p(${long} => 1)`][where]!;
        const e = refused(sql);
        assert.match(e.message, new RegExp(`longer than ${MAX_IDENTIFIER_LENGTH} characters`));
      }),
      { numRuns: 30 },
    );
  });

  test('long literals and long runs of trivia are read in one pass', () => {
    const big = 'z'.repeat(4 * 1024 * 1024);
    const t0 = performance.now();
    assert.equal(parseCall(`CALL c.sys.p('${big}')`).args.length, 1);
    assert.equal(parseCall(`CALL c.sys.p(${"'a' ".repeat(100_000)})`).args.length, 1);
    assert.equal(parseCall(`CALL c.sys.p(${'/* c */ '.repeat(100_000)}1)`).args.length, 1);
    assert.ok(performance.now() - t0 < 5000);
    refused(`CALL c.sys.p('${big}`);
    refused(`CALL c.sys.p(1${'-'.repeat(100_000)})`);
  });
});

describe('router fuzz', () => {
  let wh: string;
  let router: Router;
  before(async () => {
    wh = await makeWarehouse();
    router = makeRouter(wh);
  });
  after(async () => rm(wh, { recursive: true, force: true }));

  test('route() never throws and local routes always resolve to replies, in both modes', async () => {
    const inputs = fc.sample(
      fc.oneof(
        randomText,
        mutated,
        validCall.map((g) => g.sql),
        mutated.map((s) => s.replace(/^\s*call/i, 'CALL paimon.sys.test_echo')),
        fc.constantFrom('SELECT @@', 'SHOW', 'SET', 'USE', 'KILL', 'SWITCH', 'SELECT @@version_comment LIMIT', "SHOW VARIABLES WHERE Variable_name IN ('a'"),
      ),
      { numRuns: Math.min(RUNS, 1500) },
    );
    for (const standalone of [false, true]) {
      for (const sql of inputs) {
        const session = makeSession({ standalone, currentCatalog: 'paimon', currentDatabase: 'sales' });
        const r = router.route(sql, session);
        if (r.kind === 'local') {
          const replies = await r.run(new AbortController().signal);
          assert.ok(Array.isArray(replies) && replies.length >= 1, JSON.stringify(sql));
          for (const x of replies) assert.ok(['ok', 'error', 'resultset'].includes(x.kind));
        } else if (r.afterOk) {
          r.afterOk(session);
        }
      }
    }
  });
});

describe('server fuzz (standalone proxy over a real socket)', () => {
  test('random and mutated statements get an answer each, and the connection and server stay usable', async () => {
    const wh = await makeWarehouse();
    const config = configSchema.parse({ listen: { host: '127.0.0.1', port: 0 }, catalogs: [{ name: 'paimon', warehouse: wh }], logging: { level: 'silent' } });
    const proxy = await startProxy(config, { logger: silentLogger(), router: makeRouter(wh) });
    const conn = await mysql.createConnection({ host: '127.0.0.1', port: proxy.address.port, user: 'root' });
    try {
      const inputs = fc.sample(
        fc.oneof(
          mutated,
          validCall.map((g) => g.sql.replace(/^(\s|\/\*.*?\*\/|--[^\n]*\n|#[^\n]*\n)*call/is, 'CALL paimon.sys.test_echo')),
          fc.string({ maxLength: 60, unit: fc.constantFrom(...'CALLcall sys.()\'"`,=>-#/*;\\0123456789eE+ TRUEFALSENULSELECT@'.split('')) }),
        ),
        { numRuns: Math.min(RUNS, 400), seed: 4242 },
      ).filter((x) => x.trim() !== '' && !x.includes('\0'));
      let answered = 0;
      for (const sql of inputs) {
        try {
          await conn.query(sql);
          answered++;
        } catch (e) {
          const err = e as { errno?: number; fatal?: boolean; message?: string };
          assert.ok(typeof err.errno === 'number' && !err.fatal, `statement ${JSON.stringify(sql)} broke the connection: ${err.message}`);
          answered++;
        }
      }
      assert.equal(answered, inputs.length);
      const [rows] = await conn.query('SELECT 1 AS ok');
      assert.deepEqual(rows, [{ ok: 1 }]);
      // A new connection is served too.
      const other = await mysql.createConnection({ host: '127.0.0.1', port: proxy.address.port, user: 'root' });
      await other.query("CALL paimon.sys.test_echo('sales.orders')");
      await other.end();
    } finally {
      await conn.end().catch(() => {});
      await proxy.close();
      await rm(wh, { recursive: true, force: true });
    }
  });
});
