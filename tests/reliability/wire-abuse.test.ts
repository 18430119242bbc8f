/**
 * 100 concurrent abusive connections against a standalone proxy running in its own process
 * (so that its RSS is the proxy's alone): a third keep sending huge pre-login packets (the
 * header announces 16 MiB; the proxy must refuse at the header and close, again and again),
 * a third log in, pipeline thousands of commands and never read a byte of the replies, and a
 * third are half-open (connected, greeting unread, nothing sent; or a handshake packet begun
 * and never finished; or the write side closed at once). Meanwhile a normal client keeps
 * being served, on one connection and on fresh ones, and the proxy's RSS is sampled.
 *
 * Prints the proxy's RSS (baseline, peak, after) for the README, and asserts the peak stays
 * within RSS_BOUND of the baseline and the normal client's answers stay within the latency bounds.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import { nativePasswordToken } from '../../protocol/auth.js';
import { CLIENT_LONG_PASSWORD, CLIENT_PLUGIN_AUTH, CLIENT_PROTOCOL_41, CLIENT_SECURE_CONNECTION, CLIENT_TRANSACTIONS, COM_QUERY } from '../../protocol/constants.js';
import { buildHandshakeResponse41, parseHandshakeV10 } from '../../protocol/handshake.js';
import { encodePacket, PacketReader } from '../../protocol/packet.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CONNECTIONS = 100;
/** How long the abuse lasts. */
const ABUSE_MS = Number(process.env.ABUSE_SECONDS ?? 12) * 1000;
/** Peak RSS growth of the proxy process over its idle baseline that the test accepts. */
const RSS_BOUND = 192 * 1048576;
/**
 * Slowest answer to the normal client that the test accepts while the abuse runs, and the
 * bound on the median. The slowest answers come in the first seconds, while the never-reading
 * clients' pipelines are answered until the kernel's socket buffers and then the proxy's
 * 1 MiB per connection are full (locally answered commands of one connection are not
 * interleaved with other connections' at a finer grain than that).
 */
const LATENCY_BOUND_MS = 10_000;
const MEDIAN_BOUND_MS = 500;
/** Each never-reading client pipelines PIPELINED commands of REPLY_BYTES replies. */
const PIPELINED = 300;
const REPLY_BYTES = 60_000;
const CAPS = CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH | CLIENT_LONG_PASSWORD | CLIENT_TRANSACTIONS;

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

const mib = (n: number): string => (n / 1048576).toFixed(1);

/** The proxy in a child process; resolves with its port once it listens. */
async function startChildProxy(): Promise<{ child: ChildProcess; port: number }> {
  const code = `
    const { startStandaloneProxy } = await import(${JSON.stringify(path.join(ROOT, 'tests/support/standalone-proxy.ts'))});
    const sp = await startStandaloneProxy();
    process.stdout.write(JSON.stringify({ port: sp.port }) + '\\n');
    process.on('SIGTERM', () => { sp.close().finally(() => process.exit(0)); });
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (c) => reject(new Error(`proxy process exited with ${c}`)));
    const timer = setTimeout(() => reject(new Error('proxy process did not start')), 60_000);
    timer.unref();
  });
  return { child, port };
}

/** Connect and log in as root over a raw socket; resolves with the socket (its greeting and OK read). */
function rawLogin(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = netConnect({ host: '127.0.0.1', port });
    const reader = new PacketReader();
    let state: 'greeting' | 'ok' = 'greeting';
    s.on('error', reject);
    const onData = (d: Buffer): void => {
      reader.push(d);
      for (let p = reader.next(); p; p = reader.next()) {
        if (state === 'greeting') {
          const g = parseHandshakeV10(p.payload);
          s.write(encodePacket(buildHandshakeResponse41({
            capabilities: CAPS, maxPacketSize: 1 << 24, characterSet: 33, mariadbCapabilities: 0, user: 'root',
            authResponse: nativePasswordToken('', g.authPluginData), database: null, authPluginName: 'mysql_native_password', attributes: new Map(),
          }), 1));
          state = 'ok';
        } else {
          s.off('data', onData);
          if (p.payload[0] !== 0) reject(new Error('login refused'));
          else resolve(s);
          return;
        }
      }
    };
    s.on('data', onData);
  });
}

describe('100 concurrent abusive connections', () => {
  let child: ChildProcess;
  let port: number;
  before(async () => {
    ({ child, port } = await startChildProxy());
  });
  after(async () => {
    if (child && child.exitCode === null) {
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      // A proxy that does not stop within seconds is killed: the test must not hang on it.
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await done;
      clearTimeout(kill);
    }
  });

  test('huge pre-login packets, never-reading clients and half-open sockets: RSS bounded, a normal client served throughout', async () => {
    const normal = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', password: '' });
    // Warm up (first CALL, first SHOW) so the baseline is the proxy at work, not a cold start.
    await normal.query("CALL paimon.sys.list_jobs()").catch(() => undefined);
    await normal.query('SHOW VARIABLES');
    const baseline = rssOf(child.pid!);
    let peak = baseline;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, rssOf(child.pid!));
      } catch {
        // the process is gone: the assertions below report it
      }
    }, 50);

    const sockets = new Set<Socket>();
    let stop = false;
    const track = (s: Socket): Socket => {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
      return s;
    };
    let hugeRounds = 0;
    let hugeRefused = 0;

    // 1. Huge pre-login packets, reconnecting as soon as the proxy closes.
    const huge = async (): Promise<void> => {
      const chunk = Buffer.alloc(256 << 10, 0x61);
      while (!stop) {
        const s = track(netConnect({ host: '127.0.0.1', port }));
        let gotErr = false;
        const reader = new PacketReader();
        s.on('data', (d: Buffer) => {
          // The greeting (seq 0), then the ERR 1153 refusing the packet (seq 2, after the client's seq 1).
          reader.push(d);
          for (let p = reader.next(); p; p = reader.next()) if (p.seq === 2 && p.payload[0] === 0xff && p.payload.readUInt16LE(1) === 1153) gotErr = true;
        });
        await new Promise<void>((resolve) => {
          s.once('connect', () => {
            const header = Buffer.alloc(4);
            header.writeUIntLE((16 << 20) - 1, 0, 3);
            header[3] = 1;
            s.write(header);
            const pump = (): void => {
              while (!s.destroyed && !stop && s.write(chunk));
            };
            s.on('drain', pump);
            pump();
          });
          const timer = setTimeout(() => {
            s.destroy();
            resolve();
          }, 5000);
          s.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
        });
        hugeRounds++;
        if (gotErr) hugeRefused++;
        await new Promise((r) => setTimeout(r, 20));
      }
    };

    // 2. Log in, pipeline commands whose replies (18 MiB in all) outgrow the kernel's socket
    //    buffers, and never read: what the proxy holds beyond them is its own buffering.
    const neverRead = async (): Promise<void> => {
      const s = track(await rawLogin(port));
      s.pause();
      const cmd = encodePacket(Buffer.concat([Buffer.of(COM_QUERY), Buffer.from(`SELECT '${'x'.repeat(REPLY_BYTES)}' AS a`)]), 0);
      s.write(Buffer.concat(Array.from({ length: PIPELINED }, () => cmd)));
    };

    // 3. Half-open: greeting never read and nothing sent; a handshake begun and never finished; write side closed.
    const halfOpen = async (i: number): Promise<void> => {
      const s = track(netConnect({ host: '127.0.0.1', port }));
      await new Promise<void>((r) => s.once('connect', () => r()));
      if (i % 3 === 0) {
        s.pause();
      } else if (i % 3 === 1) {
        const header = Buffer.alloc(4);
        header.writeUIntLE(100, 0, 3);
        header[3] = 1;
        s.write(Buffer.concat([header, Buffer.alloc(10)]));
      } else {
        s.end();
      }
    };

    const third = Math.floor(CONNECTIONS / 3);
    const abusers: Promise<void>[] = [];
    for (let i = 0; i < third; i++) abusers.push(huge());
    for (let i = 0; i < third; i++) abusers.push(neverRead());
    for (let i = 0; i < CONNECTIONS - 2 * third; i++) abusers.push(halfOpen(i));

    // The normal client: one query every 100 ms on its connection, a fresh connection every second.
    const latencies: number[] = [];
    const started = Date.now();
    let fresh = 0;
    try {
      while (Date.now() - started < ABUSE_MS) {
        const t0 = Date.now();
        const [rows] = await normal.query("CALL paimon.sys.list_jobs()");
        assert.ok(Array.isArray(rows));
        latencies.push(Date.now() - t0);
        if (latencies.length % 10 === 0) {
          const t1 = Date.now();
          const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', password: '', connectTimeout: LATENCY_BOUND_MS });
          const [r] = await c.query('SELECT 1 AS one');
          assert.deepEqual(r, [{ one: 1 }]);
          await c.end();
          latencies.push(Date.now() - t1);
          fresh++;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      stop = true;
      await Promise.allSettled(abusers);
      for (const s of sockets) s.destroy();
    }
    // Once the abusers are gone the proxy is still fine.
    await new Promise((r) => setTimeout(r, 500));
    const [rows] = await normal.query('SELECT 2 AS two');
    assert.deepEqual(rows, [{ two: 2 }]);
    await normal.end();
    clearInterval(sampler);
    const afterRss = rssOf(child.pid!);
    const worst = Math.max(...latencies);
    const median = [...latencies].sort((a, b) => a - b)[Math.floor(latencies.length / 2)]!;
    console.log(
      `# wire abuse: ${CONNECTIONS} abusive connections for ${ABUSE_MS / 1000} s (${hugeRounds} huge pre-login packets, ${hugeRefused} refused with ERR, ` +
        `${third} never-reading clients with ${PIPELINED} pipelined commands of ${REPLY_BYTES / 1000} kB replies each, ${CONNECTIONS - 2 * third} half-open); proxy RSS baseline ${mib(baseline)} MiB, ` +
        `peak ${mib(peak)} MiB (+${mib(peak - baseline)} MiB, bound +${mib(RSS_BOUND)} MiB), after ${mib(afterRss)} MiB; ` +
        `normal client: ${latencies.length} answers (${fresh} on fresh connections), median ${median} ms, slowest ${worst} ms`,
    );
    assert.equal(child.exitCode, null, 'the proxy process is alive');
    assert.ok(hugeRounds >= third, 'each huge-packet connection was refused and reconnected');
    assert.ok(hugeRefused >= third, 'huge pre-login packets are answered with ERR before the close');
    assert.ok(peak - baseline < RSS_BOUND, `proxy RSS grew by ${mib(peak - baseline)} MiB`);
    assert.ok(worst < LATENCY_BOUND_MS, `slowest normal answer ${worst} ms`);
    assert.ok(median < MEDIAN_BOUND_MS, `median normal answer ${median} ms`);
  });
});
