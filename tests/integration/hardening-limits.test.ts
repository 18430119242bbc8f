/**
 * Packet limits of a standalone proxy running in this process: before authentication a client
 * may send at most the handshake limit (128 KiB), after it `listen.max_allowed_packet`. A packet
 * above the limit gets ER_NET_PACKET_TOO_LARGE (1153, 08S01) and the connection closes, without
 * the proxy buffering the payload; other clients are served as before.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect as netConnect, type Socket } from 'node:net';
import { rm } from 'node:fs/promises';
import mysql from 'mysql2/promise';
import { PacketReader, type Packet } from '../../protocol/packet.js';
import { parseErr } from '../../protocol/generic-response.js';
import { configSchema } from '../../src/config-schema.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { makeRouter, makeWarehouse } from '../unit/router/router-fixtures.js';
import { captureError } from './wire-helpers.js';

const MAX_ALLOWED_PACKET = 1 << 20;

/** A raw client socket and the packets it has received. */
function rawClient(port: number): { socket: Socket; next(timeoutMs?: number): Promise<Packet>; closed: Promise<void> } {
  const socket = netConnect({ host: '127.0.0.1', port });
  const reader = new PacketReader();
  let wake: (() => void) | null = null;
  socket.on('data', (d: Buffer) => {
    reader.push(d);
    wake?.();
  });
  socket.on('error', () => undefined); // the proxy may close while we still write
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  return {
    socket,
    closed,
    async next(timeoutMs = 10_000): Promise<Packet> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const p = reader.next();
        if (p) return p;
        if (Date.now() > deadline) throw new Error('timed out waiting for a packet');
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 20);
        });
        wake = null;
      }
    },
  };
}

describe('packet limits before and after authentication', () => {
  let wh: string;
  let proxy: RunningProxy;
  let port: number;
  before(async () => {
    wh = await makeWarehouse();
    const config = configSchema.parse({
      listen: { host: '127.0.0.1', port: 0, max_allowed_packet: MAX_ALLOWED_PACKET },
      catalogs: [{ name: 'paimon', type: 'filesystem', warehouse: wh }],
      logging: { level: 'silent' },
    });
    proxy = await startProxy(config, { logger: silentLogger(), router: makeRouter(wh) });
    port = proxy.address.port;
  });
  after(async () => {
    await proxy?.close();
    await rm(wh, { recursive: true, force: true });
  });

  const served = async (): Promise<void> => {
    const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', password: '' });
    try {
      const [rows] = await c.query('SELECT @@version_comment AS v');
      assert.equal((rows as unknown[]).length, 1);
    } finally {
      await c.end();
    }
  };

  test('an unauthenticated 16 MiB packet is refused at its header: ERR 1153, closed quickly, no memory held', async () => {
    await served();
    const c = rawClient(port);
    const greeting = await c.next();
    assert.equal(greeting.payload[0], 10, 'protocol version 10 greeting');
    // The largest one packet can be: holding it would grow RSS by 16 MiB, well past the
    // bound below, which leaves room for this process's own noise (client and proxy share it).
    const size = 0xffffff;
    const header = Buffer.alloc(4);
    header.writeUIntLE(size, 0, 3);
    header[3] = 1;
    // The same 64 KiB chunk written again and again: this process holds 64 KiB, the proxy must hold none.
    const chunk = Buffer.alloc(64 << 10, 0x61);
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 5);
    const started = Date.now();
    try {
      c.socket.write(header);
      for (let sent = 0; sent < size && !c.socket.destroyed; sent += chunk.length) {
        if (!c.socket.write(sent + chunk.length > size ? chunk.subarray(0, size - sent) : chunk)) {
          await new Promise<void>((r) => {
            c.socket.once('drain', r);
            c.socket.once('close', r);
          });
        }
      }
      const err = await c.next();
      const e = parseErr(err.payload);
      assert.deepEqual([e.errno, e.sqlState], [1153, '08S01']);
      assert.match(e.message, /131072 bytes a client may send before it is authenticated/);
      assert.equal(err.seq, 2, 'the ERR follows the oversized packet (seq 1)');
      await c.closed;
    } finally {
      clearInterval(sampler);
      c.socket.destroy();
    }
    const elapsed = Date.now() - started;
    const growth = rssPeak - rssBefore;
    console.log(`# unauthenticated 16 MiB packet: closed after ${elapsed} ms, peak RSS growth ${(growth / 1048576).toFixed(1)} MiB`);
    assert.ok(elapsed < 5000, `closed after ${elapsed} ms`);
    assert.ok(growth < 8 * 1048576, `RSS grew by ${growth} bytes`);
    await served();
  });

  test('after login a command above max_allowed_packet gets 1153 and the connection closes; others are served', async () => {
    const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', password: '' });
    const e = await captureError(c.query(`SELECT '${'x'.repeat(MAX_ALLOWED_PACKET)}'`));
    assert.deepEqual(e, { errno: 1153, sqlState: '08S01', sqlMessage: "Got a packet bigger than 'max_allowed_packet' bytes" });
    await assert.rejects(c.query('SELECT 1'), 'the connection is closed');
    c.destroy();
    // Just below the limit is an ordinary statement.
    const ok = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', password: '' });
    try {
      const [rows] = await ok.query(`SELECT '${'x'.repeat(MAX_ALLOWED_PACKET - 100)}' AS s`);
      assert.equal((rows as { s: string }[])[0]!.s.length, MAX_ALLOWED_PACKET - 100);
      await ok.ping();
    } finally {
      await ok.end();
    }
    await served();
  });
});
