/**
 * Fuzz of the encoders of the responses the proxy writes itself: random result sets (every
 * column type, NULLs, long and multi-byte strings, values crossing the lenenc size classes),
 * OK packets with random counts and info, ERR packets with random codes, states and messages,
 * encoded by ours under random capability flags and read back by mysql2's own parsers
 * (tests/unit/protocol/mysql2-decoder.ts). Then a bounded batch through MySQL Connector/J in
 * one JVM: random numbers and info texts through the test-only echo procedure of a standalone
 * proxy, and random table names whose errors carry them back, each followed by a check that the
 * connection is still in step. Sizes and counts are bounded (well under a minute).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  CLIENT_DEPRECATE_EOF,
  CLIENT_MULTI_RESULTS,
  CLIENT_PLUGIN_AUTH,
  CLIENT_PROTOCOL_41,
  CLIENT_SECURE_CONNECTION,
  CLIENT_SESSION_TRACK,
  SERVER_MORE_RESULTS_EXISTS,
} from '../../protocol/constants.js';
import { buildErr, buildOk } from '../../protocol/generic-response.js';
import { localReplyPayloads } from '../../src/session/local-reply.js';
import type { ColumnSpec, ColumnType, LocalReply } from '../../src/router/route.js';
import { decodeErr, decodeOk, decodeResponse } from '../unit/protocol/mysql2-decoder.js';
import { run } from '../integration/wire-helpers.js';
import { startStandaloneProxy, type StandaloneProxy } from '../support/standalone-proxy.js';
import { tempDir } from '../support/temp-dir.js';

const ROOT = join(import.meta.dirname, '..', '..');

const capabilities = fc
  .record({ st: fc.boolean(), de: fc.boolean(), mr: fc.boolean() })
  .map(({ st, de, mr }) => CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH | (st ? CLIENT_SESSION_TRACK : 0) | (de ? CLIENT_DEPRECATE_EOF : 0) | (mr ? CLIENT_MULTI_RESULTS : 0));

/** Text of any Unicode scalar values (no lone surrogates: they are not UTF-8), sometimes long. */
const text = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 20000, maxLength: 25000 }) },
);

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** A value of each column type as the procedures render it (MySQL text form), and what mysql2 gives back for it. */
const VALUES: Record<ColumnType, fc.Arbitrary<{ text: string; expected: unknown }>> = {
  string: text.map((s) => ({ text: s, expected: s })),
  json: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)).map((s) => ({ text: s, expected: s })),
  bigint: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((v) => ({ text: String(v), expected: String(v) })),
  int: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).map((v) => ({ text: String(v), expected: v })),
  boolean: fc.boolean().map((b) => ({ text: b ? '1' : '0', expected: b ? 1 : 0 })),
  double: fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => ({ text: String(d), expected: Object.is(d, -0) ? 0 : d })),
  decimal: fc.tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.nat({ max: 999999 })).map(([i, f]) => {
    const s = `${i}.${pad(f, 6)}`;
    return { text: s, expected: s };
  }),
  datetime: fc
    .record({ y: fc.integer({ min: 1000, max: 9999 }), mo: fc.integer({ min: 1, max: 12 }), d: fc.integer({ min: 1, max: 28 }), h: fc.nat(23), mi: fc.nat(59), s: fc.nat(59), us: fc.option(fc.integer({ min: 1, max: 999999 }), { nil: null }) })
    .map((t) => {
      const s = `${pad(t.y, 4)}-${pad(t.mo)}-${pad(t.d)} ${pad(t.h)}:${pad(t.mi)}:${pad(t.s)}${t.us === null ? '' : `.${pad(t.us, 6)}`}`;
      return { text: s, expected: s };
    }),
};
const TYPES = Object.keys(VALUES) as ColumnType[];

const resultSet = fc
  .array(
    fc.record({
      // mysql2 refuses a column named like an Object.prototype member (__proto__, constructor...)
      name: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).filter((n) => !(n in {})),
      type: fc.constantFrom(...TYPES),
    }),
    { minLength: 1, maxLength: 12 },
  )
  .chain((columns) =>
    fc
      .array(fc.tuple(...columns.map((c) => fc.option(VALUES[c.type], { nil: null, freq: 5 }))), { maxLength: 12 })
      .map((rows) => ({ columns: columns as ColumnSpec[], rows })),
  );

describe('encoder fuzz: ours encode, mysql2 decodes', () => {
  test('random result sets, text and binary, under random capabilities', () => {
    fc.assert(
      fc.property(resultSet, capabilities, fc.boolean(), fc.integer({ min: 0, max: 0xffff }), ({ columns, rows }, caps, binary, status) => {
        const reply: LocalReply = { kind: 'resultset', columns, rows: rows.map((r) => r.map((v) => (v === null ? null : v.text))) };
        // the defined status bits below SESSION_STATE_CHANGED (mysql2 reads the EOF status word signed)
        const upstream = status & 0x3fff & ~SERVER_MORE_RESULTS_EXISTS;
        const d = decodeResponse(localReplyPayloads([reply], { capabilities: caps, statusFlags: upstream, binary }), caps, { binary });
        assert.equal(d.length, 1);
        const rs = d[0]!;
        assert.equal(rs.kind, 'resultset');
        if (rs.kind !== 'resultset') return;
        assert.deepEqual(rs.fields.map((f) => f.name), columns.map((c) => c.name));
        const expected = rows.map((r) => r.map((v) => (v === null ? null : v.expected)));
        // mysql2's text parser builds a DOUBLE of up to 17 characters digit by digit (x10 per digit),
        // so it may land an ulp or two from the value the exact text denotes; binary rows are exact
        const tolerant = binary ? new Set<number>() : new Set(columns.flatMap((c, i) => (c.type === 'double' ? [i] : [])));
        assert.deepEqual(
          rs.rows.map((r) => r.map((v, i) => (tolerant.has(i) ? null : v))),
          expected.map((r) => r.map((v, i) => (tolerant.has(i) ? null : v))),
        );
        for (const [ri, r] of rs.rows.entries()) {
          for (const i of tolerant) {
            const got = r[i];
            const want = expected[ri]![i];
            if (want === null || got === null) assert.equal(got, want);
            else assert.ok(Math.abs(Number(got) - Number(want)) <= Math.abs(Number(want)) * 2 ** -50, `column ${i}: ${String(got)} is not ${String(want)}`);
          }
        }
        assert.equal(rs.status, upstream);
      }),
      { numRuns: 300 },
    );
  });

  test('random OK packets: counts, status, warnings, info', () => {
    fc.assert(
      fc.property(
        capabilities,
        fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }),
        fc.bigInt({ min: 0n, max: 2n ** 53n - 1n }),
        fc.integer({ min: 0, max: 0xffff }),
        fc.integer({ min: 0, max: 0xffff }),
        text,
        (caps, affected, insertId, status, warnings, info) => {
          const statusFlags = status & 0x3fff;
          const ok = decodeOk(buildOk(caps, { affectedRows: affected, lastInsertId: insertId, statusFlags, warnings, info }), caps);
          assert.equal(String(ok.affectedRows), String(affected));
          assert.equal(String(ok.insertId), String(insertId));
          assert.equal(ok.serverStatus, statusFlags);
          assert.equal(ok.warningStatus, warnings);
          // without SESSION_TRACK mysql2 reads the info as string<EOF>, the lenenc prefix included
          if (caps & CLIENT_SESSION_TRACK) assert.equal(ok.info, info);
          else assert.ok(ok.info.endsWith(info));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('random ERR packets: errno, SQLSTATE, message', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 0xffff }), fc.stringMatching(/^[0-9A-Z]{5}$/), text, (errno, sqlState, message) => {
        assert.deepEqual(decodeErr(buildErr({ errno, sqlState, message })), { errno, sqlState, message });
      }),
      { numRuns: 300 },
    );
  });
});

/** A MySQL string literal for our CALL parser: quotes doubled, backslashes escaped. */
function literal(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

describe('encoder fuzz: a bounded batch through Connector/J', () => {
  let proxy: StandaloneProxy;
  before(async () => {
    proxy = await startStandaloneProxy({ testRouter: true });
  });
  after(async () => {
    await proxy?.close();
  });

  test('random numbers and info texts of the echo procedure, and random table names in errors', async () => {
    const sample = fc.sample(
      fc.record({
        n: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { nil: null }),
        info: fc.string({ unit: 'binary', maxLength: 2000 }),
        table: fc.string({ unit: 'binary', minLength: 1, maxLength: 200 }),
      }),
      { numRuns: 60, seed: 4242 },
    );
    const statements = sample.flatMap((s, i) => [
      { id: `echo${i}`, mode: 'plain', sql: `CALL paimon.sys.test_echo(table => 'sales.orders', n => ${s.n === null ? 'NULL' : s.n}, info => ${literal(s.info)})` },
      { id: `bad${i}`, mode: 'plain', sql: `CALL paimon.sys.test_echo(table => ${literal(`nodb_${s.table}.t`)})` },
      { id: `check${i}`, mode: 'plain', sql: 'SHOW DATABASES' },
    ]);
    const file = join(tempDir('encoder-fuzz'), 'statements.json');
    writeFileSync(file, JSON.stringify(statements));
    const jar = process.env.CONNECTOR_J_JAR ?? join(ROOT, 'tests/integration/jdbc/lib/mysql-connector-j-8.4.0.jar');
    const url = `jdbc:mysql://127.0.0.1:${proxy.port}/?sslMode=DISABLED&characterEncoding=UTF-8`;
    const r = await run('java', ['-cp', jar, join(ROOT, 'tests/integration/jdbc/ClientMatrix.java'), url, 'root', '', file], { timeoutMs: 120_000 });
    assert.equal(r.code, 0, r.stderr);
    const out = new Map(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: string; error: [number, string, string] | null; results: { columns?: [string, string][]; rows?: (string | null)[][] }[] })
        .map((l) => [l.id, l]),
    );
    const databases = out.get('check0')!.results[0]!.rows!;
    assert.ok(databases.some((r) => r[0] === 'sales'), JSON.stringify(databases));
    sample.forEach((s, i) => {
      const echo = out.get(`echo${i}`)!;
      assert.equal(echo.error, null, `echo ${i}: ${JSON.stringify(echo.error)}`);
      assert.deepEqual(echo.results[0]!.rows, [['sales.orders', s.n === null ? null : String(s.n), null]]);
      const bad = out.get(`bad${i}`)!;
      assert.ok(bad.error, `bad ${i} fails`);
      assert.ok(bad.error[0] > 0 && /^[0-9A-Z]{5}$/.test(bad.error[1]), JSON.stringify(bad.error));
      const check = out.get(`check${i}`)!;
      assert.equal(check.error, null, `the connection is in step after statement ${i}`);
      assert.deepEqual(check.results[0]!.rows, databases);
    });
  });
});
