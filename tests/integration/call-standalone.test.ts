/**
 * Standalone mode (no FE) with the real mariadb command-line client: connecting, the
 * statements the client and a user send first, Paimon procedure errors (parse error 1064,
 * unknown procedure 1305, missing table 1146), and the "no FE configured" error for anything
 * else. The interactive banner query is checked through a pseudo-terminal (`script`), since
 * the client only sends it when it talks to a terminal.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { configSchema } from '../../src/config-schema.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { makeRouter, makeWarehouse } from '../unit/router/router-fixtures.js';
import { existsSync } from 'node:fs';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], input?: string, timeoutMs = 30_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TERM: 'dumb', HOME: process.env.TEST_TMP ?? '/tmp' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} timed out; stdout=${stdout} stderr=${stderr}`));
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input ?? '');
  });
}

describe('standalone mode with the mariadb CLI', () => {
  let wh: string;
  let proxy: RunningProxy;
  let port: number;
  const cli = (...args: string[]) => run('mariadb', ['--no-defaults', '-h', '127.0.0.1', '-P', String(port), '-u', 'root', '--skip-ssl', ...args]);

  before(async () => {
    wh = await makeWarehouse();
    const config = configSchema.parse({
      listen: { host: '127.0.0.1', port: 0 },
      catalogs: [{ name: 'paimon', type: 'filesystem', warehouse: wh }],
      logging: { level: 'silent' },
    });
    proxy = await startProxy(config, { logger: silentLogger() });
    port = proxy.address.port;
  });
  after(async () => {
    await proxy?.close();
    await rm(wh, { recursive: true, force: true });
  });

  test('connects and answers what a user sends first', async () => {
    const r = await cli(
      '--batch',
      '-e',
      [
        'select @@version_comment limit 1',
        'select DATABASE(), USER() limit 1',
        'SHOW CATALOGS',
        'SHOW DATABASES',
        'USE sales',
        'SHOW TABLES',
        'SELECT DATABASE(), CURRENT_CATALOG()',
        "SHOW VARIABLES LIKE 'lower_case_table_names'",
        'SET NAMES utf8mb4',
        'SELECT @@character_set_client',
        'SHOW PROCEDURES',
      ].join(';\n'),
    );
    assert.equal(r.code, 0, r.stderr);
    const out = r.stdout;
    assert.match(out, /paimon-procedure-proxy \(standalone: no Doris FE configured/);
    assert.match(out, /DATABASE\(\)\tUSER\(\)\nNULL\troot@127\.0\.0\.1\n/);
    assert.match(out, /CatalogId\tCatalogName\tType\tIsCurrent.*\n1\tpaimon\tpaimon\tYes/);
    assert.match(out, /Database\nempty\nops\nsales\n/);
    assert.match(out, /Tables_in_sales\nitems\norders\n/);
    assert.match(out, /DATABASE\(\)\tCURRENT_CATALOG\(\)\nsales\tpaimon\n/);
    assert.match(out, /Variable_name\tValue\nlower_case_table_names\t0\n/);
    assert.match(out, /@@character_set_client\nutf8mb4\n/);
    assert.match(out, /\nexpire_snapshots\t/);
  });

  test("the CLI's status command works", async () => {
    const r = await cli('-e', 'status');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Server version:\s+5\.7\.99/);
    assert.match(r.stdout, /Current user:\s+root@127\.0\.0\.1/);
  });

  test('a parse error in a Paimon CALL is ERROR 1064 with the position', async () => {
    const r = await cli('-e', "CALL paimon.sys.expire_snapshots(`table` => 'sales.orders', retain_max => )");
    assert.equal(r.code, 1);
    assert.match(r.stderr, /ERROR 1064 \(42000\) at line 1: You have an error in your CALL syntax: expected a literal .* near '\)' at line 1, column 75/);
  });

  test('an unknown procedure is ERROR 1305 listing the procedures that exist', async () => {
    const r = await cli('-e', 'CALL paimon.sys.expire_everything()');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /ERROR 1305 \(42000\) at line 1: PROCEDURE paimon\.sys\.expire_everything does not exist\. Available procedures: .*expire_snapshots/);
  });

  test('a missing table is ERROR 1146; bad arguments show the signature', async () => {
    const missing = await cli('-e', "CALL sys.expire_snapshots('sales.nope', 5)");
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /ERROR 1146 \(42S02\) at line 1: Table 'sales\.nope' does not exist in catalog 'paimon'/);
    const mixed = await cli('-e', "CALL paimon.sys.expire_snapshots('sales.orders', retain_max => 5)");
    assert.equal(mixed.code, 1);
    assert.match(mixed.stderr, /ERROR 1210 \(HY000\) at line 1: Cannot mix named and positional arguments.*Signature: expire_snapshots\(table STRING required/);
  });

  test('anything else says no FE is configured and what the proxy can do', async () => {
    const r = await cli('-e', 'SELECT * FROM sales.orders');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /ERROR 1235 \(42000\) at line 1: No Doris FE is configured.*CALL <catalog>\.sys\.<procedure>/);
  });

  test('interactive session: banner query, USE with database completion (-A off), quit', async () => {
    // `script` gives the client a terminal, so it sends the banner query and, on USE, the
    // auto-rehash statements (SHOW DATABASES / SHOW TABLES / COM_FIELD_LIST).
    const cmd = `mariadb --no-defaults -h 127.0.0.1 -P ${port} -u root --skip-ssl`;
    const r = await run('script', ['-qec', cmd, '/dev/null'], 'USE sales;\nSELECT DATABASE();\nquit\n');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /Server version: 5\.7\.99\S* paimon-procedure-proxy \(standalone/);
    assert.match(r.stdout, /Database changed/);
    assert.match(r.stdout, /\| sales +\|/);
  });
});

describe('standalone mode with Connector/J 8.4 and mysql2', () => {
  let wh: string;
  let proxy: RunningProxy;
  let port: number;

  before(async () => {
    wh = await makeWarehouse();
    const config = configSchema.parse({
      listen: { host: '127.0.0.1', port: 0 },
      catalogs: [{ name: 'paimon', type: 'filesystem', warehouse: wh }],
      logging: { level: 'silent' },
    });
    // The router with a test-only procedure (test_echo) so a successful CALL can be checked.
    proxy = await startProxy(config, { logger: silentLogger(), router: makeRouter(wh) });
    port = proxy.address.port;
  });
  after(async () => {
    await proxy?.close();
    await rm(wh, { recursive: true, force: true });
  });

  test('Connector/J connects (its bootstrap query and SETs), lists databases, runs a CALL and reads its warning', async () => {
    const jar = process.env.CONNECTOR_J_JAR ?? new URL('./jdbc/lib/mysql-connector-j-8.4.0.jar', import.meta.url).pathname;
    if (!existsSync(jar)) throw new Error(`Connector/J not found at ${jar}: run through tests/run.sh (tests/setup/mariadb.sh fetches it)`);
    const probe = new URL('./jdbc/JdbcProbe.java', import.meta.url).pathname;
    const url = `jdbc:mysql://127.0.0.1:${port}/sales?sslMode=DISABLED&connectTimeout=20000`;
    const r = await run(
      'java',
      ['-cp', jar, probe, url, 'root', '', '@metadata', "CALL paimon.sys.test_echo('orders', 7)", 'CALL paimon.sys.nope()', 'SELECT * FROM orders', 'SHOW TABLES'],
      undefined,
      120_000,
    );
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const out = r.stdout;
    assert.match(out, /PRODUCT MySQL 5\.7\.99/);
    assert.match(out, /AUTOCOMMIT true/);
    assert.match(out, /CATALOGS\tempty\tops\tsales/);
    // A one-part table name resolves against the database of the JDBC URL (COM_INIT_DB / USE).
    assert.match(out, /COLUMNS\tidentifier:VARCHAR\tn:BIGINT\tcaller_db:VARCHAR\nROW\tsales\.orders\t7\tsales/);
    assert.match(out, /WARNING 1105 echo warning/);
    assert.match(out, /ERR 1305 42000 \w+: PROCEDURE paimon\.sys\.nope does not exist/);
    assert.match(out, /ERR 1235 42000 \w+: No Doris FE is configured/);
    assert.match(out, /COLUMNS\tTables_in_sales:VARCHAR\nROW\titems\nROW\torders/);
  });

  test('mysql2 sees an intercepted CALL as a result set followed by the final OK', async () => {
    const mysql = (await import('mysql2/promise')).default;
    const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', supportBigNumbers: true, bigNumberStrings: true });
    try {
      const [res] = await c.query("CALL sys.test_echo(`table` => 'ops.events', n => 9223372036854775807)");
      const [rows, ok] = res as [unknown[], { affectedRows: number; warningStatus: number }];
      assert.deepEqual(rows, [{ identifier: 'ops.events', n: '9223372036854775807', caller_db: null }]);
      assert.equal(ok.affectedRows, 0);
      assert.equal(ok.warningStatus, 1);
      const [w] = await c.query('SHOW WARNINGS');
      assert.deepEqual(w, [{ Level: 'Warning', Code: '1105', Message: 'echo warning' }]);
    } finally {
      await c.end();
    }
  });
});
