/**
 * Connection-level behaviour of the relay with MariaDB as the upstream FE: pass-through
 * authentication, TLS from client to proxy, KILL QUERY, the PROXY protocol line, commands mysql2
 * has no API for (compared byte for byte with a direct connection), and an unreachable FE.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { captureError, connect, freePort, mariadb, proxyConfig, RawClient, run, startTestProxy, tmpDir, type Conn } from './wire-helpers.js';
import type { RunningProxy } from '../../src/proxy-app.js';
import { COM_FIELD_LIST, COM_STATISTICS, CLIENT_COMPRESS, CLIENT_SSL, MARIADB_CLIENT_PROGRESS } from '../../protocol/constants.js';
import { parseHandshakeV10 } from '../../protocol/handshake.js';

let proxy: RunningProxy;

describe('relay: connection phase and control commands', () => {
  before(async () => {
    proxy = await startTestProxy();
  });
  after(async () => {
    await proxy?.close();
  });

  test('a wrong password is refused with the FE\'s own error, and so is an unknown user', async () => {
    const db = mariadb();
    for (const extra of [{ password: 'wrong-password' }, { user: 'nobody', password: 'x' }]) {
      const d = await captureError(connect(db.port, extra));
      const p = await captureError(connect(proxy.address.port, extra));
      assert.deepEqual(p, d);
      assert.equal(p.errno, 1045);
    }
    // and the proxy still serves others
    const c = await connect(proxy.address.port);
    await c.query('SELECT 1');
    await c.end();
  });

  test("the relayed greeting keeps version, id and scramble; compression and progress reports are the proxy's own", async () => {
    const direct = new RawClient();
    const relayed = new RawClient();
    try {
      await direct.connect(mariadb().port, mariadb().user, mariadb().password, 'proxytest');
      await relayed.connect(proxy.address.port, mariadb().user, mariadb().password, 'proxytest');
      const d = parseHandshakeV10(direct.greeting);
      const r = parseHandshakeV10(relayed.greeting);
      assert.equal(r.serverVersion, d.serverVersion);
      assert.notEqual(r.capabilities & CLIENT_COMPRESS, 0, 'the proxy offers compression itself');
      assert.notEqual(d.capabilities & CLIENT_COMPRESS, 0, 'MariaDB itself offers compression');
      assert.equal(r.capabilities & CLIENT_SSL, 0, 'no TLS configured on the proxy');
      assert.notEqual(d.mariadbCapabilities, 0);
      assert.equal(r.mariadbCapabilities, MARIADB_CLIENT_PROGRESS, "only progress reports, the proxy's own");
      assert.equal(r.authPluginData.length, 20);
    } finally {
      direct.close();
      relayed.close();
    }
  });

  test('COM_FIELD_LIST and COM_STATISTICS responses are byte-identical to a direct connection (ids and counters aside)', async () => {
    const c = await connect(mariadb().port);
    await c.query('CREATE TABLE IF NOT EXISTS fl (a INT DEFAULT 3, b VARCHAR(10) DEFAULT \'x\')');
    await c.end();
    const direct = new RawClient();
    await direct.connect(mariadb().port, mariadb().user, mariadb().password, 'proxytest');
    const relayed = new RawClient();
    await relayed.connect(proxy.address.port, mariadb().user, mariadb().password, 'proxytest');
    const fieldList = Buffer.concat([Buffer.from([COM_FIELD_LIST]), Buffer.from('fl\0')]);
    const a = await direct.command(fieldList);
    const b = await relayed.command(fieldList);
    assert.equal(b.length, 3, 'two column definitions and EOF');
    assert.deepEqual(b, a);
    const s = await relayed.command(Buffer.from([COM_STATISTICS]));
    assert.equal(s.length, 1);
    assert.match(s[0].subarray(4).toString(), /^Uptime: \d+\s+Threads: \d+\s+Questions: \d+/);
    // the session is still in step
    const ping = await relayed.command(Buffer.from([0x0e]));
    assert.equal(ping.length, 1);
    assert.equal(ping[0][4], 0x00);
    direct.close();
    relayed.close();
  });

  test('KILL QUERY <id> from a second connection stops a running SELECT SLEEP(30)', async () => {
    const victim = await connect(proxy.address.port);
    const killer = await connect(proxy.address.port);
    const started = Date.now();
    const sleeping = captureError(victim.query('SELECT SLEEP(30)'));
    await new Promise((r) => setTimeout(r, 700));
    await killer.query(`KILL QUERY ${victim.threadId}`);
    const err = await sleeping;
    assert.deepEqual(err, { errno: 1317, sqlState: '70100', sqlMessage: 'Query execution was interrupted' });
    assert.ok(Date.now() - started < 10_000, 'stopped well before 30 s');
    const [rows] = await victim.query('SELECT 1 AS ok');
    assert.deepEqual(rows, [{ ok: 1 }], 'the victim connection stays usable');
    await victim.end();
    await killer.end();
  });

  test('TLS from client to proxy (self-signed certificate), plain TCP to the FE', async () => {
    const dir = tmpDir('tls');
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
    const tlsProxy = await startTestProxy(proxyConfig({ listen: { host: '127.0.0.1', port: 0, tls: { cert, key, required: true } } }));
    try {
      const c = await connect(tlsProxy.address.port, { ssl: { rejectUnauthorized: false } });
      const [rows] = await c.query('SELECT CURRENT_USER() AS u, CONNECTION_ID() AS id');
      assert.deepEqual(rows, [{ u: 'app@127.0.0.1', id: c.threadId }]);
      const stream = (c as unknown as { connection: { stream: { encrypted?: boolean } } }).connection.stream;
      assert.equal(stream.encrypted, true, 'the client socket is TLS');
      // a large result over TLS
      const [big] = await c.query({ sql: 'SELECT seq FROM seq_1_to_50000', rowsAsArray: true });
      assert.equal((big as unknown[]).length, 50_000);
      await c.end();
      // the mariadb CLI negotiates TLS too
      const db = mariadb();
      const r = await run('mariadb', ['--no-defaults', '-h127.0.0.1', `-P${tlsProxy.address.port}`, `-u${db.user}`, `-p${db.password}`, '--ssl', '--disable-ssl-verify-server-cert', '-e', 'status'], { timeoutMs: 30_000 });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /SSL:\s+Cipher in use is/);
      // required: a plain client is refused
      const plain = await captureError(connect(tlsProxy.address.port, { ssl: undefined }));
      assert.equal(plain.errno, 3159);
    } finally {
      await tlsProxy.close();
    }
  });

  test('ProxyStats counts forwarded commands and relayed bytes both ways, not what the proxy answers itself', async () => {
    const p = await startTestProxy();
    try {
      // A snapshot: what the sessions counted plus what the native relay forwarded.
      let st = p.server.stats;
      assert.deepEqual([st.forwarded, st.bytesUpstream, st.bytesDownstream], [0, 0, 0]);
      const c = new RawClient();
      await c.connect(p.address.port, mariadb().user, mariadb().password, 'proxytest');
      // The connection phase is relayed too: the greeting and OK down, the handshake response up.
      st = p.server.stats;
      assert.ok(st.bytesUpstream > 0 && st.bytesDownstream > 0);
      assert.equal(st.forwarded, 0);
      let before = { ...st };
      const query = Buffer.concat([Buffer.of(0x03), Buffer.from("SELECT REPEAT('x', 50000) AS big", 'utf8')]);
      const response = await c.command(query);
      st = p.server.stats;
      assert.equal(st.forwarded - before.forwarded, 1);
      assert.equal(st.bytesUpstream - before.bytesUpstream, 4 + query.length);
      assert.equal(st.bytesDownstream - before.bytesDownstream, response.reduce((n, b) => n + b.length, 0));
      assert.ok(st.bytesDownstream - before.bytesDownstream > 50000);
      // An intercepted CALL is answered by the proxy: nothing is forwarded or relayed.
      before = { ...st };
      const call = await c.command(Buffer.concat([Buffer.of(0x03), Buffer.from('CALL paimon.sys.no_such_procedure()', 'utf8')]));
      assert.equal(call[0][4], 0xff, 'an ERR from the proxy');
      assert.equal(call[0].readUInt16LE(5), 1305);
      st = p.server.stats;
      assert.deepEqual([st.forwarded, st.bytesUpstream, st.bytesDownstream], [before.forwarded, before.bytesUpstream, before.bytesDownstream]);
      c.close();
    } finally {
      await p.close();
    }
  });

  test('the PROXY protocol v1 line goes first to the FE, carrying the client address', async () => {
    // A tap between proxy and MariaDB records the first line and relays the rest.
    const db = mariadb();
    let firstLine = '';
    const tap: Server = createServer((inbound: Socket) => {
      const outbound = netConnect({ host: db.host, port: db.port });
      let head = Buffer.alloc(0);
      let lineDone = false;
      inbound.on('data', (d: Buffer) => {
        if (lineDone) return void outbound.write(d);
        head = Buffer.concat([head, d]);
        const i = head.indexOf('\r\n');
        if (i < 0) return;
        firstLine = head.subarray(0, i + 2).toString('latin1');
        lineDone = true;
        if (head.length > i + 2) outbound.write(head.subarray(i + 2));
      });
      outbound.pipe(inbound);
      inbound.on('error', () => outbound.destroy());
      outbound.on('error', () => inbound.destroy());
      inbound.on('close', () => outbound.destroy());
    });
    const tapPort = await freePort();
    await new Promise<void>((r) => tap.listen(tapPort, '127.0.0.1', r));
    const p = await startTestProxy(proxyConfig({ upstream: { host: '127.0.0.1', port: tapPort, proxy_protocol: true } }));
    try {
      const c = await connect(p.address.port);
      const [rows] = await c.query('SELECT 1 AS one');
      assert.deepEqual(rows, [{ one: 1 }]);
      const local = (c as unknown as { connection: { stream: Socket } }).connection.stream;
      assert.equal(firstLine, `PROXY TCP4 127.0.0.1 127.0.0.1 ${local.localPort} ${p.address.port}\r\n`);
      await c.end();
    } finally {
      await p.close();
      tap.close();
    }
  });

  test('TLS toward the FE (upstream.tls): verified against its certificate, with plain or TLS clients', async () => {
    const ca = process.env.MARIADB_TLS_CERT;
    if (!ca) throw new Error('MARIADB_TLS_CERT is not set: tests/setup/mariadb.sh starts MariaDB with a certificate');
    const db = mariadb();
    const dir = tmpDir('tls-up');
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
    const p = await startTestProxy(
      proxyConfig({
        listen: { host: '127.0.0.1', port: 0, tls: { cert, key } },
        upstream: { host: '127.0.0.1', port: db.port, tls: true, tls_ca: ca },
      }),
    );
    try {
      for (const ssl of [undefined, { rejectUnauthorized: false }]) {
        const c = await connect(p.address.port, { ssl });
        const [rows] = await c.query("SHOW SESSION STATUS LIKE 'Ssl_version'");
        assert.match((rows as { Value: string }[])[0].Value, /^TLSv1\.[23]$/, 'MariaDB sees a TLS session');
        const [u] = await c.query('SELECT CURRENT_USER() AS u, CONNECTION_ID() AS id');
        assert.deepEqual(u, [{ u: 'app@127.0.0.1', id: c.threadId }]);
        await c.end();
        const bad = await captureError(connect(p.address.port, { ssl, password: 'wrong' }));
        assert.equal(bad.errno, 1045);
      }
    } finally {
      await p.close();
    }
    // a certificate that the CA does not vouch for is refused, with a message naming the FE
    const wrongCa = await startTestProxy(proxyConfig({ upstream: { host: '127.0.0.1', port: db.port, tls: true, tls_ca: cert } }));
    try {
      const e = await captureError(connect(wrongCa.address.port));
      assert.equal(e.errno, 1105);
      assert.match(String(e.sqlMessage), /TLS to the upstream FE at 127\.0\.0\.1:\d+ failed/);
    } finally {
      await wrongCa.close();
    }
  });

  test('an unreachable FE gives the client a clear error and the proxy keeps running', async () => {
    const dead = await freePort();
    const p = await startTestProxy(proxyConfig({ upstream: { host: '127.0.0.1', port: dead } }));
    try {
      const e = await captureError(connect(p.address.port));
      assert.equal(e.errno, 1105);
      assert.match(String(e.sqlMessage), /cannot connect to the upstream FE at 127\.0\.0\.1:\d+: ECONNREFUSED/);
      const again = await captureError(connect(p.address.port));
      assert.equal(again.errno, 1105);
    } finally {
      await p.close();
    }
  });
});
