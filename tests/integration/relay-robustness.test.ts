/**
 * The relay under stress, against the `serve` command running as a child process (so its memory
 * and CPU are its own): clients vanishing mid-result, a client that stops reading, and 1,000
 * concurrent connections.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import mysql from 'mysql2';
import { connect, mariadb, RawClient, rssOf, startChildProxy, tmpDir, type ChildProxy } from './wire-helpers.js';

let proxy: ChildProxy;

async function upstreamThreads(user: string): Promise<number[]> {
  const c = await connect(mariadb().port);
  const [rows] = await c.query('SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ?', [user]);
  await c.end();
  return (rows as { ID: number }[]).map((r) => Number(r.ID));
}

describe('relay robustness', () => {
  before(async () => {
    const db = mariadb();
    proxy = await startChildProxy(['--upstream', `127.0.0.1:${db.port}`, '--warehouse', tmpDir('wh')]);
  });
  after(async () => {
    await proxy?.stop();
  });

  test('clients that disconnect mid-result leave the proxy healthy and close their FE connections', async () => {
    const db = mariadb();
    for (let round = 0; round < 5; round++) {
      const c = mysql.createConnection({ host: '127.0.0.1', port: proxy.port, user: 'other', password: 'other-pass', database: 'proxytest' });
      c.on('error', () => undefined); // the test kills this client's socket itself
      const id = await new Promise<number>((resolvePromise, reject) => c.connect((e) => (e ? reject(e) : resolvePromise(c.threadId!))));
      await new Promise<void>((resolvePromise) => {
        let rows = 0;
        const q = c.query('SELECT seq, REPEAT(\'x\', 200) FROM seq_1_to_2000000');
        q.on('result', () => {
          if (++rows === 1000) {
            // vanish without COM_QUIT
            (c as unknown as { stream: { destroy(): void } }).stream.destroy();
            resolvePromise();
          }
        });
        q.on('error', () => resolvePromise());
      });
      // the FE connection of the vanished client goes away
      const deadline = Date.now() + 15_000;
      while ((await upstreamThreads('other')).includes(id)) {
        assert.ok(Date.now() < deadline, `FE thread ${id} still alive after the client left`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    const ok = await connect(proxy.port, { user: db.user, password: db.password });
    const [rows] = await ok.query('SELECT 1 AS alive');
    assert.deepEqual(rows, [{ alive: 1 }]);
    await ok.end();
    assert.doesNotMatch(proxy.log(), /"level":(50|60)/, 'no error or fatal logged');
  });

  test('a client that stops reading does not make the proxy buffer the result (backpressure)', async () => {
    const db = mariadb();
    const before = rssOf(proxy.pid);
    const c = mysql.createConnection({ host: '127.0.0.1', port: proxy.port, user: db.user, password: db.password, database: 'proxytest' });
    await new Promise<void>((r, j) => c.connect((e) => (e ? j(e) : r())));
    let rows = 0;
    let peak = before;
    await new Promise<void>((resolvePromise, reject) => {
      // about 600 MB of rows
      const q = c.query("SELECT seq, REPEAT('y', 300) FROM seq_1_to_2000000");
      q.on('result', () => {
        rows++;
        if (rows === 10_000) {
          c.pause();
          const sample = setInterval(() => (peak = Math.max(peak, rssOf(proxy.pid))), 100);
          setTimeout(() => {
            clearInterval(sample);
            c.resume();
          }, 4000);
        }
      });
      q.on('error', reject);
      q.on('end', () => resolvePromise());
    });
    c.end();
    assert.equal(rows, 2_000_000);
    const grew = peak - before;
    assert.ok(grew < 100 * 1024 * 1024, `proxy RSS grew by ${(grew / 1048576).toFixed(1)} MiB while the client was not reading`);
  });

  test('a client that reads in fits and starts gets the same bytes as directly (upstream read buffers are never reused while referenced)', async () => {
    // 2,500 pipelined queries with ~10 KB results (each below a socket's 16 KiB high-water mark,
    // so a pending client write does not pause the FE leg) and a COM_QUIT, in one write; the
    // client does not read for a while, then reads with pauses. The proxy's client writes stay
    // pending while the next responses arrive. Everything after the authentication OK up to
    // the close is hashed and compared with a direct connection.
    const packet = (payload: Buffer): Buffer => {
      const b = Buffer.alloc(4 + payload.length);
      b.writeUIntLE(payload.length, 0, 3);
      payload.copy(b, 4);
      return b;
    };
    const commands: Buffer[] = [];
    for (let i = 0; i < 2500; i++) commands.push(packet(Buffer.from(`\x03SELECT ${i} AS i, REPEAT(CHAR(65 + ${i} % 26), ${9000 + (i % 2000)}) AS s`, 'latin1')));
    commands.push(packet(Buffer.from([0x01])));
    const drain = async (port: number): Promise<{ bytes: number; sha: string }> => {
      const db = mariadb();
      const c = new RawClient();
      await c.connect(port, db.user, db.password, 'proxytest');
      const socket = (c as unknown as { socket: import('node:net').Socket }).socket;
      socket.removeAllListeners('data');
      const h = createHash('sha256');
      let bytes = 0;
      let sincePause = 0;
      await new Promise<void>((resolvePromise, reject) => {
        socket.on('data', (d: Buffer) => {
          h.update(d);
          bytes += d.length;
          sincePause += d.length;
          if (sincePause >= 512 * 1024) {
            sincePause = 0;
            socket.pause();
            setTimeout(() => socket.resume(), 10);
          }
        });
        socket.on('error', reject);
        socket.on('close', () => resolvePromise());
        socket.pause();
        socket.write(Buffer.concat(commands));
        setTimeout(() => socket.resume(), 1500);
      });
      return { bytes, sha: h.digest('hex') };
    };
    const direct = await drain(mariadb().port);
    const relayed = await drain(proxy.port);
    assert.ok(direct.bytes > 20_000_000, `responses of ${direct.bytes} bytes`);
    assert.deepEqual(relayed, direct);
  });

  test('garbage from clients, in the connection phase and after it, never takes the proxy down', async () => {
    const { connect: netConnect } = await import('node:net');
    const { randomBytes } = await import('node:crypto');
    const send = (chunks: Buffer[], waitMs: number) =>
      new Promise<void>((resolvePromise) => {
        const s = netConnect({ host: '127.0.0.1', port: proxy.port });
        s.on('error', () => undefined);
        s.on('connect', () => {
          for (const c of chunks) s.write(c);
          setTimeout(() => {
            s.destroy();
            resolvePromise();
          }, waitMs);
        });
      });
    for (let i = 0; i < 30; i++) {
      const len = i % 3 === 0 ? 0xffffff : (i * 7919) % 300;
      const header = Buffer.from([len & 0xff, (len >> 8) & 0xff, len >> 16, i % 4]);
      await send([header, randomBytes(Math.min(len, 4096) + (i % 5))], 30);
      await send([randomBytes(1 + ((i * 131) % 200))], 10);
    }
    // a well-formed handshake followed by malformed command packets
    const db = mariadb();
    const raw = new RawClient();
    await raw.connect(proxy.port, db.user, db.password, 'proxytest');
    const resp = await raw.command(Buffer.from([0x16])); // COM_STMT_PREPARE with no SQL: the FE answers ERR
    assert.equal(resp[0][4], 0xff);
    raw.close();
    const c = await connect(proxy.port, { user: db.user, password: db.password });
    const [rows] = await c.query('SELECT 1 AS alive');
    assert.deepEqual(rows, [{ alive: 1 }]);
    await c.end();
    assert.doesNotMatch(proxy.log(), /"level":(50|60)/, 'no error or fatal logged');
  });

  test('listen.workers = 2: two processes serve the shared port, and a dead worker is replaced', async () => {
    const db = mariadb();
    const multi = await startChildProxy(['--upstream', `127.0.0.1:${db.port}`, '--workers', '2', '--warehouse', tmpDir('wh-workers')]);
    const workersOf = (pid: number): number[] =>
      readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number)
        .filter((c) => readFileSync(`/proc/${c}/cmdline`, 'utf8').includes('cli.ts'));
    try {
      const deadline = Date.now() + 60_000;
      while ((multi.log().match(/paimon-procedure-proxy listening/g) ?? []).length < 2) {
        assert.ok(Date.now() < deadline, 'both workers listen');
        await new Promise((r) => setTimeout(r, 100));
      }
      const before = workersOf(multi.pid);
      assert.equal(before.length, 2);
      const serve = async () => {
        const conns = await Promise.all(Array.from({ length: 20 }, () => connect(multi.port, { user: db.user, password: db.password })));
        const ids = await Promise.all(conns.map(async (c) => Number(((await c.query('SELECT CONNECTION_ID() AS id'))[0] as { id: number }[])[0].id)));
        await Promise.all(conns.map((c) => c.end()));
        assert.equal(new Set(ids).size, 20);
      };
      await serve();
      process.kill(before[0], 'SIGKILL');
      while (!workersOf(multi.pid).some((p) => !before.includes(p)) || workersOf(multi.pid).length < 2) {
        assert.ok(Date.now() < deadline + 60_000, 'a replacement worker starts');
        await new Promise((r) => setTimeout(r, 200));
      }
      await serve();
    } finally {
      await multi.stop();
    }
  });

  test('1,000 concurrent connections are accepted and served', async () => {
    const db = mariadb();
    const started = Date.now();
    const conns = await Promise.all(
      Array.from({ length: 1000 }, () =>
        connect(proxy.port, { user: db.user, password: db.password, connectTimeout: 60_000 }),
      ),
    );
    try {
      const ids = await Promise.all(
        conns.map(async (c, i) => {
          const [rows] = await c.query('SELECT CONNECTION_ID() AS id, ? AS i', [i]);
          const r = (rows as { id: number; i: number }[])[0];
          assert.equal(r.i, i);
          return Number(r.id);
        }),
      );
      assert.equal(new Set(ids).size, 1000, 'each client has its own FE session');
      const elapsed = Date.now() - started;
      assert.ok(elapsed < 120_000, `took ${elapsed} ms`);
    } finally {
      await Promise.all(conns.map((c) => c.end().catch(() => c.destroy())));
    }
    const c = await connect(proxy.port, { user: db.user, password: db.password });
    await c.query('SELECT 1');
    await c.end();
  });
});
