/**
 * compact_database's selection, binding and per-table outcomes through the real executor over a
 * filesystem catalog of bare schema files (no data: every table is "unchanged" or fails on its
 * kind), and the Java-regex translation its filters use.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executorFor, callNamed } from '../../../interop/procedures-support.js';
import { compactDatabase } from '../../../../procedures/compaction/compact-database.js';
import { createDefaultRegistry } from '../../../../procedures/index.js';
import { compileJavaRegex, UnsupportedJavaRegexError } from '../../../../src/paimon/compact/java-regex.js';
import type { CallOutcome } from '../../../../procedures/framework/executor.js';

const wh = mkdtempSync(join(tmpdir(), 'compact-db-proc-'));
after(() => rmSync(wh, { recursive: true, force: true }));

function table(db: string, name: string, options: Record<string, string>): void {
  const dir = join(wh, `${db}.db`, name, 'schema');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'schema-0'), JSON.stringify({
    version: 3, id: 0,
    fields: [{ id: 0, name: 'id', type: 'INT NOT NULL' }, { id: 1, name: 'v', type: 'STRING' }],
    highestFieldId: 1, partitionKeys: [], primaryKeys: ['id'], options, timeMillis: 0,
  }));
}
table('sales', 'orders', { bucket: '1' });
table('sales', 'orders_tmp', { bucket: '1' });
table('sales', 'lookup', { bucket: '1', 'changelog-producer': 'lookup' });
table('hr', 'people', { bucket: '1' });
table('other', 'x', { bucket: '1' });

const ex = executorFor(wh, [compactDatabase]);
const err = (o: CallOutcome): string => (o.ok ? 'OK' : `${o.error.code}: ${o.error.message}`);
const names = (o: CallOutcome): string[] => (o.ok ? o.result.rows.map((r) => `${String(r.database)}.${String(r.table)}:${String(r.outcome)}`) : [err(o)]);

describe('compact_database', () => {
  test('is registered among the built-in procedures', () => {
    assert.ok(createDefaultRegistry().lookup('compact_database'));
  });
  test('selects databases and db.table by full Java-regex matches; one failing table does not stop the others', async () => {
    const o = await callNamed(ex, 'compact_database', { including_databases: 'sales|hr', excluding_tables: '.*_tmp' });
    assert.deepEqual(names(o), ['hr.people:unchanged', 'sales.lookup:failed', 'sales.orders:unchanged']);
    assert.ok(o.ok);
    const failed = o.result.rows.find((r) => r.table === 'lookup')!;
    assert.equal(failed.error_code, 'UNSUPPORTED_TABLE');
    assert.equal(o.result.info, 'Compact database finished. Success: 2, Failed: 1');
    // 'sale' is not a full match of 'sales'.
    assert.deepEqual(names(await callNamed(ex, 'compact_database', { including_databases: 'sale' })), []);
  });
  test("Spark's options alias binds, and summary => true gives Spark's single row", async () => {
    const o = await callNamed(ex, 'compact_database', { including_databases: 'hr', options: 'target-file-size=1mb', summary: true });
    assert.ok(o.ok, err(o));
    assert.equal(o.result.rows.length, 1);
    assert.equal(o.result.rows[0]!.result, 'Compact database finished. Success: 1, Failed: 0');
  });
  test('positional binding follows Flink: including_databases, mode, including_tables', async () => {
    const o = await ex.run(
      { catalog: 'paimon', procedure: 'compact_database', statement: 'CALL', args: ['sales', 'combined', 'sales\\.orders.*'].map((v, i) => ({ name: null, value: { kind: 'string' as const, value: v }, offset: i })) },
      { user: 'root', connectionId: 1, clientAddress: '127.0.0.1:1', currentDatabase: null },
      new AbortController().signal,
    );
    assert.deepEqual(names(o), ['sales.orders:unchanged', 'sales.orders_tmp:unchanged']);
  });
  test('a bad mode and an untranslatable regex are refused with their codes', async () => {
    assert.match(err(await callNamed(ex, 'compact_database', { mode: 'split' })), /^INVALID_ARGUMENT: Unsupported mode: 'split'/);
    assert.match(err(await callNamed(ex, 'compact_database', { including_tables: 'a*+' })), /^NOT_SUPPORTED: including_tables .*possessive/);
    assert.match(err(await callNamed(ex, 'compact_database', { excluding_tables: '(abc' })), /^INVALID_ARGUMENT: excluding_tables .*not a valid regular expression/);
  });
  test('a stopped call starts no table and says nothing was committed', async () => {
    const ac = new AbortController();
    ac.abort();
    const o = await callNamed(ex, 'compact_database', {}, ac.signal);
    assert.ok(!o.ok);
    assert.equal(o.error.code, 'QUERY_INTERRUPTED');
  });
});

describe('Java regex translation', () => {
  const m = (p: string, s: string): boolean => compileJavaRegex(p, 'p').test(s);
  test('full match, alternation and classes as Matcher.matches()', () => {
    assert.equal(m('a|b', 'a'), true);
    assert.equal(m('a|b', 'ab'), false);
    assert.equal(m('db\\.t[0-9]+', 'db.t12'), true);
    assert.equal(m('db\\.t[0-9]+', 'dbxt12'), false);
    assert.equal(m('.*', 'x\ny'), false); // `.` excludes line terminators, U+0085 too
    assert.equal(m('a.b', 'a\u0085b'), false);
    assert.equal(m('a$', 'a'), true);
  });
  test('Java-only spellings are rewritten', () => {
    assert.equal(m('\\Qa.b*\\E', 'a.b*'), true);
    assert.equal(m('\\Qa.b*\\E', 'axbb'), false);
    assert.equal(m('(?i)SALES\\..*', 'sales.orders'), true);
    assert.equal(m('\\p{Lower}+', 'abc'), true);
    assert.equal(m('\\p{Lower}+', 'abC'), false);
    assert.equal(m('\\s', '\u00a0'), false); // Java's \s is ASCII
    assert.equal(m('\\Ax\\z', 'x'), true);
    assert.equal(m('a\\-b', 'a-b'), true);
    assert.equal(m('\\x{41}', 'A'), true);
  });
  test('constructs without an exact JavaScript form are refused by name', () => {
    for (const p of ['a++', '(?>a)', '(?s).*', '[a-z&&[^b]]', '[a[b]]', '\\G', '\\p{IsLatin}', 'a{2}+']) {
      assert.throws(() => compileJavaRegex(p, 'p'), (e: unknown) => e instanceof UnsupportedJavaRegexError, p);
    }
  });
});
