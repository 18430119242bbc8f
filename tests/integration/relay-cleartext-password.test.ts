/**
 * mysql_clear_password through the relay, against an FE that really asks for it: MariaDB's PAM
 * plugin with `pam_use_cleartext_plugin`, which switches the login to mysql_clear_password as
 * Doris does for LDAP users. The PAM stack (pam_exec) checks the password and writes one line
 * per password it receives, so a test can tell whether a password reached the FE at all.
 *
 * A TLS client's clear-text password must not leave the host over a plain FE connection unless
 * `upstream.cleartext_password` allows it ('loopback', the default: only to an FE on a loopback
 * address; 'refuse'; 'allow'). A plain client already sends it in clear: relayed as it is.
 *
 * Needs root (the PAM service file goes to /etc/pam.d, removed at the end, and MariaDB's
 * auth_pam_tool runs only for a server running as root here); CI runs as root. The MariaDB
 * instance is private to this file and stopped by PID at the end.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { captureError, proxyConfig, run, startPrivateMariaDb, startTestProxy, tmpDir, type PrivateMariaDb } from './wire-helpers.js';
import type { RunningProxy } from '../../src/proxy-app.js';

const USER = 'pam_user';
const PASSWORD = 'clear-pass-9';
const NATIVE_USER = 'native_user';
const NATIVE_PASSWORD = 'native-pass-3';
const SERVICE = `ppp-cleartext-${process.pid}`;
const PAM_FILE = `/etc/pam.d/${SERVICE}`;
const isRoot = process.getuid?.() === 0;

let db: PrivateMariaDb | null = null;
let port = 0;
let attemptsFile = '';
let cert = '';
let key = '';

/** Passwords the FE's PAM stack has received so far. */
function attempts(): number {
  return existsSync(attemptsFile) ? readFileSync(attemptsFile, 'utf8').split('\n').filter((l) => l !== '').length : 0;
}

function connectTo(p: number, o: { user?: string; password?: string; tls?: boolean } = {}): Promise<mysql.Connection> {
  return mysql.createConnection({
    host: '127.0.0.1',
    port: p,
    user: o.user ?? USER,
    password: o.password ?? PASSWORD,
    enableCleartextPlugin: true,
    connectTimeout: 20_000,
    ...(o.tls ? { ssl: { rejectUnauthorized: false } } : {}),
  });
}

async function currentUser(c: mysql.Connection): Promise<string> {
  const [rows] = await c.query('SELECT CURRENT_USER() AS u');
  return (rows as { u: string }[])[0].u;
}

function isEncrypted(c: mysql.Connection): boolean {
  return (c as unknown as { connection: { stream: { encrypted?: boolean } } }).connection.stream.encrypted === true;
}

async function withProxy(policy: 'loopback' | 'refuse' | 'allow' | null, body: (proxyPort: number) => Promise<void>): Promise<void> {
  const upstream = { host: '127.0.0.1', port, ...(policy === null ? {} : { cleartext_password: policy }) };
  const proxy: RunningProxy = await startTestProxy(proxyConfig({ upstream, listen: { host: '127.0.0.1', port: 0, tls: { cert, key } } }));
  try {
    await body(proxy.address.port);
  } finally {
    await proxy.close();
  }
}

describe('mysql_clear_password relayed only where it stays as safe as the client made it (MariaDB PAM asking for it)', { skip: isRoot ? false : 'needs root: a PAM service file in /etc/pam.d' }, () => {
  before(async () => {
    const dir = tmpDir('cleartext');
    attemptsFile = join(dir, 'attempts.log');
    const check = join(dir, 'check-password.sh');
    // pam_exec with expose_authtok hands the password on stdin (NUL-terminated).
    writeFileSync(check, `#!/bin/sh\nIFS= read -r pw || true\npw=$(printf '%s' "$pw" | tr -d '\\000')\necho attempt >> ${JSON.stringify(attemptsFile)}\n[ "$pw" = ${JSON.stringify(PASSWORD)} ]\n`);
    chmodSync(check, 0o755);
    writeFileSync(PAM_FILE, `auth required pam_exec.so expose_authtok quiet ${check}\naccount required pam_permit.so\n`);
    cert = join(dir, 'cert.pem');
    key = join(dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
    db = await startPrivateMariaDb(join(dir, 'db'), '--plugin-load-add=auth_pam.so --pam-use-cleartext-plugin=ON');
    port = db.port;
    await db.rootSql(
      `CREATE USER '${USER}'@'127.0.0.1' IDENTIFIED VIA pam USING '${SERVICE}';
       GRANT SELECT ON *.* TO '${USER}'@'127.0.0.1';
       CREATE USER '${NATIVE_USER}'@'127.0.0.1' IDENTIFIED BY '${NATIVE_PASSWORD}';
       GRANT SELECT ON *.* TO '${NATIVE_USER}'@'127.0.0.1';`,
    );
    // The FE itself: the right password in, a wrong one out, each seen by PAM.
    const c = await connectTo(port);
    assert.equal(await currentUser(c), `${USER}@127.0.0.1`);
    await c.end();
    assert.equal((await captureError(connectTo(port, { password: 'wrong' }))).errno, 1045);
    assert.equal(attempts(), 2);
  });

  after(async () => {
    rmSync(PAM_FILE, { force: true });
    await db?.stop();
  });

  test('a plain client: relayed as the client sent it; a wrong password gets the FE own 1045', async () => {
    await withProxy(null, async (p) => {
      const before = attempts();
      const c = await connectTo(p);
      assert.equal(isEncrypted(c), false);
      assert.equal(await currentUser(c), `${USER}@127.0.0.1`);
      await c.end();
      const e = await captureError(connectTo(p, { password: 'wrong' }));
      assert.equal(e.errno, 1045);
      assert.equal(attempts(), before + 2);
    });
  });

  test("a TLS client, the FE plain on a loopback address, default policy 'loopback': relayed (mysql2 and the mariadb CLI)", async () => {
    await withProxy(null, async (p) => {
      const before = attempts();
      const c = await connectTo(p, { tls: true });
      assert.equal(isEncrypted(c), true);
      assert.equal(await currentUser(c), `${USER}@127.0.0.1`);
      await c.end();
      const r = await run('mariadb', ['--no-defaults', '-h127.0.0.1', `-P${p}`, `-u${USER}`, `-p${PASSWORD}`, '--ssl', '--disable-ssl-verify-server-cert', '-N', '-B', '-e', 'SELECT CURRENT_USER()'], { timeoutMs: 30_000 });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim(), `${USER}@127.0.0.1`);
      assert.equal(attempts(), before + 2);
    });
  });

  test("a TLS client, policy 'refuse': ERR 1251 naming upstream.tls, and the password never reaches the FE; other logins are unaffected", async () => {
    await withProxy('refuse', async (p) => {
      const before = attempts();
      const e = await captureError(connectTo(p, { tls: true }));
      assert.equal(e.errno, 1251);
      assert.equal(e.sqlState, '08004');
      assert.match(String(e.sqlMessage), /mysql_clear_password/);
      assert.match(String(e.sqlMessage), /upstream\.tls/);
      assert.ok(!String(e.sqlMessage).includes(PASSWORD));
      const r = await run('mariadb', ['--no-defaults', '-h127.0.0.1', `-P${p}`, `-u${USER}`, `-p${PASSWORD}`, '--ssl', '--disable-ssl-verify-server-cert', '-e', 'SELECT 1'], { timeoutMs: 30_000 });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /1251/);
      assert.equal(attempts(), before, 'no password reached the FE');
      // a plain client still logs in (its own choice), and native-password users over TLS too
      const plain = await connectTo(p);
      assert.equal(await currentUser(plain), `${USER}@127.0.0.1`);
      await plain.end();
      assert.equal(attempts(), before + 1);
      const native = await connectTo(p, { user: NATIVE_USER, password: NATIVE_PASSWORD, tls: true });
      assert.equal(await currentUser(native), `${NATIVE_USER}@127.0.0.1`);
      // COM_CHANGE_USER to the PAM user on the TLS connection: its password answer is stopped too
      const ce = await captureError(native.changeUser({ user: USER, password: PASSWORD }));
      assert.equal(ce.errno, 1251);
      assert.equal(attempts(), before + 1, 'no password reached the FE');
      native.destroy();
    });
  });

  test("policy 'allow': relayed from a TLS client; COM_CHANGE_USER to the PAM user works", async () => {
    await withProxy('allow', async (p) => {
      const before = attempts();
      const c = await connectTo(p, { user: NATIVE_USER, password: NATIVE_PASSWORD, tls: true });
      await c.changeUser({ user: USER, password: PASSWORD });
      assert.equal(await currentUser(c), `${USER}@127.0.0.1`);
      await c.end();
      const d = await connectTo(p, { tls: true });
      assert.equal(await currentUser(d), `${USER}@127.0.0.1`);
      await d.end();
      assert.equal(attempts(), before + 2);
    });
  });
});
