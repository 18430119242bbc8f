/**
 * Backpressure on the replies a standalone proxy writes itself: a raw client pipelines 20,000
 * local commands and reads nothing. The proxy stops reading the client's commands while more
 * than 1 MiB of replies wait in the client socket, so what it buffers stays bounded; once the
 * client reads, every reply arrives, in order.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect as netConnect } from 'node:net';
import { nativePasswordToken } from '../../protocol/auth.js';
import { CLIENT_LONG_PASSWORD, CLIENT_PLUGIN_AUTH, CLIENT_PROTOCOL_41, CLIENT_SECURE_CONNECTION, CLIENT_TRANSACTIONS, COM_QUERY, EOF_HEADER } from '../../protocol/constants.js';
import { buildHandshakeResponse41, parseHandshakeV10 } from '../../protocol/handshake.js';
import { encodePacket, PacketReader, type Packet } from '../../protocol/packet.js';
import { parseTextRow } from '../../protocol/result-set.js';
import { startStandaloneProxy, type StandaloneProxy } from '../support/standalone-proxy.js';

const COMMANDS = 20_000;
const HIGH_WATER = 1 << 20;

/** Command i: SHOW PROCEDURES (a few KiB of reply) for even i, `SELECT i` for odd i (to check the order). */
function command(i: number): Buffer {
  const sql = i % 2 === 0 ? 'SHOW PROCEDURES' : `SELECT ${i} AS n`;
  return encodePacket(Buffer.concat([Buffer.of(COM_QUERY), Buffer.from(sql)]), 0);
}

describe('replies the proxy writes itself are throttled by the client reading them', () => {
  let sp: StandaloneProxy;
  before(async () => {
    sp = await startStandaloneProxy();
  });
  after(async () => {
    await sp?.close();
  });

  test('20,000 pipelined local commands without reading: the proxy buffers at most ~1 MiB, then every reply arrives in order', async () => {
    const socket = netConnect({ host: '127.0.0.1', port: sp.port });
    const reader = new PacketReader();
    let wake: (() => void) | null = null;
    socket.on('data', (d: Buffer) => {
      reader.push(d);
      wake?.();
    });
    const next = async (): Promise<Packet> => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const p = reader.next();
        if (p) return p;
        if (Date.now() > deadline) throw new Error('timed out waiting for a packet');
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 50);
        });
        wake = null;
      }
    };
    try {
      const greeting = parseHandshakeV10((await next()).payload);
      const caps = CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH | CLIENT_LONG_PASSWORD | CLIENT_TRANSACTIONS;
      const response = buildHandshakeResponse41({
        capabilities: caps, maxPacketSize: 1 << 24, characterSet: 33, mariadbCapabilities: 0, user: 'root',
        authResponse: nativePasswordToken('', greeting.authPluginData), database: null, authPluginName: 'mysql_native_password', attributes: new Map(),
      });
      socket.write(encodePacket(response, 1));
      assert.equal((await next()).payload[0], 0, 'logged in');

      // Stop reading, then pipeline every command at once.
      socket.pause();
      const session = [...sp.proxy.server.registry.all()][0]!;
      const questionsBefore = sp.proxy.server.stats.questions;
      socket.write(Buffer.concat(Array.from({ length: COMMANDS }, (_, i) => command(i))));
      let maxWritable = 0;
      const deadline = Date.now() + 3000;
      let handled = 0;
      // Let the proxy run until it stops making progress (held) or has answered everything.
      for (let still = 0; Date.now() < deadline && still < 10; ) {
        await new Promise((r) => setTimeout(r, 20));
        maxWritable = Math.max(maxWritable, session.client.writableLength);
        const now = sp.proxy.server.stats.questions - questionsBefore;
        still = now === handled ? still + 1 : 0;
        handled = now;
      }
      console.log(`# held after ${handled} of ${COMMANDS} commands; largest unsent reply backlog ${(maxWritable / 1024).toFixed(0)} KiB`);
      assert.ok(handled < COMMANDS, 'the proxy stopped handling commands while the client did not read');
      assert.ok(maxWritable < HIGH_WATER + (256 << 10), `unsent replies stayed near the 1 MiB bound (${maxWritable} bytes)`);

      // Read everything: COMMANDS complete text result sets, in the order sent.
      socket.resume();
      for (let i = 0; i < COMMANDS; i++) {
        const first = await next();
        const columns = first.payload[0]!;
        for (let k = 0; k < columns; k++) await next();
        assert.equal((await next()).payload[0], EOF_HEADER);
        const rows: Buffer[] = [];
        for (let p = await next(); !(p.payload[0] === EOF_HEADER && p.payload.length < 9); p = await next()) rows.push(p.payload);
        if (i % 2 === 1) {
          assert.equal(columns, 1, `reply ${i} is the SELECT's`);
          assert.deepEqual(parseTextRow(rows[0]!, 1), [String(i)], `reply ${i} answers command ${i}`);
        } else {
          assert.ok(columns > 1 && rows.length > 0, `reply ${i} is SHOW PROCEDURES'`);
        }
      }
      assert.equal(sp.proxy.server.stats.questions - questionsBefore, COMMANDS);
    } finally {
      socket.destroy();
    }
  });
});
