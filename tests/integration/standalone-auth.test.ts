/**
 * Standalone mode (no FE): authentication against the users file, which holds hashes only.
 * mysql_native_password and caching_sha2_password (fast path), plugin switching, refusals, and
 * the start-up rule for passwordless users on non-loopback addresses.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { cachingSha2Hash, nativePasswordHash } from '../../protocol/auth.js';
import { captureError, proxyConfig, run, startChildProxy, startTestProxy, tmpDir } from './wire-helpers.js';
import type { RunningProxy } from '../../src/proxy-app.js';
import { ProxyServer } from '../../src/server.js';
import { silentLogger } from '../../src/observability/logger.js';

let proxy: RunningProxy;
let usersFile: string;

function conn(user: string, password: string, extra: Partial<mysql.ConnectionOptions> = {}) {
  return mysql.createConnection({ host: '127.0.0.1', port: proxy.address.port, user, password, connectTimeout: 10_000, ...extra });
}

describe('standalone authentication', () => {
  before(async () => {
    const dir = tmpDir('users');
    usersFile = join(dir, 'users.yaml');
    writeFileSync(
      usersFile,
      [
        'users:',
        `  - name: native_user`,
        `    native_hash: '${nativePasswordHash('n-pass')}'`,
        // Privileges are enforced (issue 6): the prepared CALL below must reach the procedure.
        `    grants: ['ALL ON *.*.*']`,
        `  - name: sha2_user`,
        `    sha2_hash: '${cachingSha2Hash('s-pass')}'`,
        `  - name: both_user`,
        `    native_hash: '${nativePasswordHash('b-pass')}'`,
        `    sha2_hash: '${cachingSha2Hash('b-pass')}'`,
      ].join('\n') + '\n',
    );
    proxy = await startTestProxy(proxyConfig({ users_file: usersFile }, { upstream: false }));
  });
  after(async () => {
    await proxy?.close();
  });

  test('mysql_native_password: the right password gets in, a wrong one gets 1045', async () => {
    const c = await conn('native_user', 'n-pass');
    await c.ping();
    await c.end();
    const e = await captureError(conn('native_user', 'bad'));
    assert.deepEqual(e, { errno: 1045, sqlState: '28000', sqlMessage: "Access denied for user 'native_user'@'127.0.0.1' (using password: YES)" });
    const none = await captureError(conn('native_user', ''));
    assert.equal(none.sqlMessage, "Access denied for user 'native_user'@'127.0.0.1' (using password: NO)");
  });

  test('caching_sha2_password: a user with only a SHA-256 hash is switched to it and passes the fast path', async () => {
    const c = await conn('sha2_user', 's-pass');
    await c.ping();
    await c.end();
    const e = await captureError(conn('sha2_user', 'n-pass'));
    assert.equal(e.errno, 1045);
  });

  test('a client that starts with caching_sha2_password (mariadb --default-auth) is served with it', async () => {
    const base = ['-h127.0.0.1', `-P${proxy.address.port}`, '--default-auth=caching_sha2_password', '-e', 'SELECT 1 AS one'];
    for (const [user, pass] of [['sha2_user', 's-pass'], ['both_user', 'b-pass']]) {
      // --no-defaults must be the first option
      const ok = await run('mariadb', ['--no-defaults', `-u${user}`, `-p${pass}`, ...base], { timeoutMs: 30_000 });
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(ok.stdout, 'one\n1\n');
      const bad = await run('mariadb', ['--no-defaults', `-u${user}`, '-pwrong', ...base], { timeoutMs: 30_000 });
      assert.match(bad.stderr, new RegExp(`ERROR 1045 \\(28000\\): Access denied for user '${user}'@'127.0.0.1' \\(using password: YES\\)`));
    }
  });

  test('prepared statements in standalone mode: a prepared CALL runs, and so does a statement the proxy answers', async () => {
    const c = await conn('native_user', 'n-pass');
    try {
      const e = await captureError(c.execute('CALL paimon.sys.expire_snapshots(table => ?)', ['nodb.t']));
      assert.equal(e.errno, 1049, String(e.sqlMessage));
      assert.match(String(e.sqlMessage), /'nodb'/, 'the bound value reached the procedure');
      const [rows] = (await c.execute('SELECT ? AS v', [7])) as unknown as [Record<string, unknown>[]];
      assert.equal(rows.length, 1);
      assert.equal(String(rows[0]!.v), '7', 'the bound value came back');
      await c.ping();
    } finally {
      await c.end();
    }
  });

  test('`hash-password` prints the two hashes a users file needs, from standard input', async () => {
    const cli = new URL('../../src/cli.ts', import.meta.url).pathname;
    const r = await run(process.execPath, ['--import', 'tsx', cli, 'hash-password'], { input: 's3cr3t pass\n', timeoutMs: 30_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `native_hash: '${nativePasswordHash('s3cr3t pass')}'\nsha2_hash: '${cachingSha2Hash('s3cr3t pass')}'\n`);
  });

  test('unknown users are refused like wrong passwords', async () => {
    const e = await captureError(conn('root', ''));
    assert.equal(e.errno, 1045, 'the built-in root is gone once a users file is configured');
  });

  test('the mariadb CLI logs in with a native hash and runs a CALL', async () => {
    const r = await run('mariadb', ['--no-defaults', '-h127.0.0.1', `-P${proxy.address.port}`, '-unative_user', '-pn-pass', '-e', 'CALL paimon.sys.no_such_procedure()'], { timeoutMs: 30_000 });
    assert.match(r.stderr, /ERROR 1305 \(42000\)/);
    const bad = await run('mariadb', ['--no-defaults', '-h127.0.0.1', `-P${proxy.address.port}`, '-unative_user', '-pwrong', '-e', 'SELECT 1'], { timeoutMs: 30_000 });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /ERROR 1045 \(28000\): Access denied for user 'native_user'/);
  });

  test('the built-in passwordless root is refused on a non-loopback address, and the loopback start-up says why root is allowed', async () => {
    await assert.rejects(
      ProxyServer.create({ config: proxyConfig({ listen: { host: '0.0.0.0', port: 0 } }, { upstream: false }), router: { route: () => ({ kind: 'forward' }) }, logger: silentLogger() }),
      /refusing to listen on 0\.0\.0\.0 \(not loopback\).*built-in user root/,
    );
    const child = await startChildProxy([], { PPP_WAREHOUSE: tmpDir('wh-root') });
    try {
      assert.match(child.log(), /built-in user 'root' has no password; this is allowed only because the proxy listens on the loopback address 127\.0\.0\.1/);
      const c = await mysql.createConnection({ host: '127.0.0.1', port: child.port, user: 'root', password: '' });
      await c.ping();
      await c.end();
    } finally {
      await child.stop();
    }
    const refused = await run(process.execPath, ['--import', 'tsx', new URL('../../src/cli.ts', import.meta.url).pathname, 'serve', '--host', '0.0.0.0', '--port', '0'], { timeoutMs: 30_000 });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /refusing to listen on 0\.0\.0\.0/);
  });
});
