/**
 * `paimon-procedure-proxy call`: in process (with a test-only procedure registry, to check
 * the table and JSON output) and as the real command line (the built-in registry, exit codes
 * and stderr for failures).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCallCommand } from '../../src/call-command.js';
import { configSchema } from '../../src/config-schema.js';
import { ProcedureRegistry } from '../../procedures/framework/registry.js';
import { echoProcedure, makeWarehouse } from '../unit/router/router-fixtures.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (s: string) => void out.push(s), stderr: (s: string) => void err.push(s), registry: new ProcedureRegistry([echoProcedure]) } };
}

describe('call command', () => {
  let wh: string;
  before(async () => {
    wh = await makeWarehouse();
  });
  after(async () => rm(wh, { recursive: true, force: true }));
  const config = () => configSchema.parse({ catalogs: [{ name: 'paimon', warehouse: wh }] });

  test('an error that echoes a secret-looking argument is masked on stderr', async () => {
    const c = capture();
    const code = await runCallCommand(["CALL paimon.sys.test_echo(`table` => 'sales.orders', n => 'access-key=hunter2')"], config(), c.io);
    assert.equal(code, 1);
    const text = c.err.join('');
    assert.match(text, /ERROR 1210/);
    assert.doesNotMatch(text, /hunter2/);
  });

  test('prints a table like the mysql CLI, with warnings', async () => {
    const c = capture();
    const code = await runCallCommand(["CALL paimon.sys.test_echo('sales.orders', 42)"], config(), c.io);
    assert.equal(code, 0, c.err.join(''));
    const text = c.out.join('');
    assert.match(text, /\| identifier\s+\| n\s+\| caller_db \|/);
    assert.match(text, /\| sales\.orders \| 42 \| NULL\s+\|/);
    assert.match(text, /1 row in set/);
    assert.match(text, /Warning \(Code 1105\): echo warning/);
  });

  test('prints typed JSON with --json; two-part names use the default catalog', async () => {
    const c = capture();
    const code = await runCallCommand(["CALL sys.test_echo(`table` => 'sales.items', n => 9223372036854775807)", '--json'], config(), c.io);
    assert.equal(code, 0, c.err.join(''));
    const doc = JSON.parse(c.out.join(''));
    assert.deepEqual(doc.rows, [{ identifier: 'sales.items', n: '9223372036854775807', caller_db: null }]);
    assert.deepEqual(doc.columns.map((x: { name: string }) => x.name), ['identifier', 'n', 'caller_db']);
    assert.equal(doc.warnings[0].message, 'echo warning');
  });

  test('failures exit 1 with errno, SQLSTATE and code on stderr', async () => {
    const cases: [string, RegExp][] = [
      ["CALL paimon.sys.test_echo('sales.nope')", /^ERROR 1146 \(42S02\) \[TABLE_NOT_FOUND\]: .*sales\.nope/],
      ["CALL paimon.sys.test_echo('a' 'b'", /^ERROR 1064 \(42000\) \[PARSE_ERROR\]: .*at line 1, column 34/],
      ['CALL paimon.sys.nope()', /^ERROR 1305 \(42000\) \[PROCEDURE_NOT_FOUND\]: PROCEDURE paimon\.sys\.nope does not exist.*test_echo/],
      ["CALL other.sys.test_echo('a.b')", /^ERROR 1305 \(42000\) \[CATALOG_NOT_FOUND\]: .*'other' is not configured/],
      ["CALL test_echo('a.b')", /not a Paimon procedure call/],
      ["CALL paimon.sys.test_echo(table => 'sales.orders', n => 'x')", /^ERROR 1210 \(HY000\) \[ARGUMENT_TYPE\]: .*Signature: test_echo\(/],
    ];
    for (const [sql, re] of cases) {
      const c = capture();
      assert.equal(await runCallCommand([sql], config(), c.io), 1, sql);
      assert.match(c.err.join(''), re, sql);
      assert.equal(c.out.join(''), '');
    }
    const j = capture();
    assert.equal(await runCallCommand(['CALL paimon.sys.nope()', '--json'], config(), j.io), 1);
    assert.equal(JSON.parse(j.err.join('')).error.errno, 1305);
  });

  test('usage errors exit 2', async () => {
    const c = capture();
    assert.equal(await runCallCommand([], config(), c.io), 2);
    assert.equal(await runCallCommand(['a', 'b'], config(), c.io), 2);
    assert.equal(await runCallCommand(['CALL x()', '--bogus'], config(), c.io), 2);
  });

  test('the real command line: unknown procedure lists the built-in ones; a missing table names it', () => {
    const run = (sql: string, ...extra: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'call', sql, '--warehouse', wh, ...extra], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, PPP_CONFIG: '' },
      });
    const unknown = run('CALL paimon.sys.no_such_procedure()');
    assert.equal(unknown.status, 1, unknown.stderr);
    assert.match(unknown.stderr, /ERROR 1305 \(42000\).*expire_snapshots/);
    const missing = run("CALL paimon.sys.expire_snapshots(`table` => 'sales.missing', retain_max => 5)", '--json');
    assert.equal(missing.status, 1, missing.stderr);
    const e = JSON.parse(missing.stderr.trim().split('\n').pop()!);
    assert.equal(e.error.code, 'TABLE_NOT_FOUND');
    assert.equal(e.error.errno, 1146);
  });
});
