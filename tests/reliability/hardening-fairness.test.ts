/**
 * Fairness between connections: a client that pipelines 20,000 commands the proxy answers
 * itself (SHOW PROCEDURES, a few KiB each) and reads every reply at once must not hold the
 * proxy's event loop: another client's query, sent once the flood is under way, is answered
 * while the flood is still far from done. The proxy runs as a child process (the CLI users
 * run), so that this process reading as fast as it can is what a fast client looks like.
 * Asserted on ordering (how many flood replies arrived before the other client's reply), not
 * on timings.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as netConnect, type Socket } from 'node:net';
import mysql from 'mysql2/promise';
import { nativePasswordToken } from '../../protocol/auth.js';
import { CLIENT_LONG_PASSWORD, CLIENT_PLUGIN_AUTH, CLIENT_PROTOCOL_41, CLIENT_SECURE_CONNECTION, CLIENT_TRANSACTIONS } from '../../protocol/constants.js';
import { buildHandshakeResponse41, parseHandshakeV10 } from '../../protocol/handshake.js';
import { encodePacket, PacketReader, type Packet } from '../../protocol/packet.js';
import { makeWarehouse } from '../unit/router/router-fixtures.js';
import { startChildProxy, type ChildProxy } from '../integration/wire-helpers.js';

const FLOOD = 20_000;

/** A logged-in raw connection (root, no password) whose later packets go to `onPacket`. */
async function floodClient(port: number, onPacket: (p: Packet) => void): Promise<Socket> {
  const socket = netConnect({ host: '127.0.0.1', port });
  const reader = new PacketReader();
  let stage = 0;
  await new Promise<void>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('data', (d: Buffer) => {
      reader.push(d);
      for (let p = reader.next(); p; p = reader.next()) {
        if (stage === 0) {
          const h = parseHandshakeV10(p.payload);
          const caps = CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH | CLIENT_LONG_PASSWORD | CLIENT_TRANSACTIONS;
          const resp = buildHandshakeResponse41({
            capabilities: caps, maxPacketSize: 1 << 24, characterSet: 33, mariadbCapabilities: 0, user: 'root',
            authResponse: nativePasswordToken('', h.authPluginData), database: null, authPluginName: 'mysql_native_password', attributes: new Map(),
          });
          socket.write(encodePacket(resp, 1));
          stage = 1;
        } else if (stage === 1) {
          if (p.payload[0] !== 0) reject(new Error(`login failed: ${p.payload.subarray(9).toString()}`));
          stage = 2;
          resolve();
        } else onPacket(p);
      }
    });
  });
  return socket;
}

describe('a client pipelining thousands of local commands does not starve the others', () => {
  let proxy: ChildProxy;
  before(async () => {
    const wh = await makeWarehouse();
    proxy = await startChildProxy(['--warehouse', wh, '--no-demo']);
  });
  after(async () => {
    await proxy?.stop();
  });

  test(`another client is answered long before the ${FLOOD}th pipelined SHOW PROCEDURES`, { timeout: 180_000 }, async () => {
    const other = await mysql.createConnection({ host: '127.0.0.1', port: proxy.port, user: 'root', password: '' });
    try {
      // Replies of the flood: a result set ends at its second EOF (no CLIENT_DEPRECATE_EOF), an ERR ends one too.
      let eofs = 0;
      let errors = 0;
      const replies = (): number => Math.floor(eofs / 2) + errors;
      let onReply: (() => void) | null = null;
      const flood = await floodClient(proxy.port, (p) => {
        const k = p.payload[0];
        if (k === 0xfe && p.payload.length < 9) eofs++;
        else if (k === 0xff) errors++;
        else return;
        onReply?.();
      });
      const command = encodePacket(Buffer.concat([Buffer.from([0x03]), Buffer.from('SHOW PROCEDURES')]), 0);
      flood.write(Buffer.concat(Array.from({ length: FLOOD }, () => command)));
      // Once the flood is under way, the other client asks once.
      await new Promise<void>((r) => (onReply = () => replies() >= 200 && r()));
      onReply = null;
      const sentAt = replies();
      await other.query('SHOW PROCEDURES');
      const answeredAt = replies();
      // The rest of the flood is not waited for (wire-backpressure.test.ts checks a whole pipeline's replies).
      flood.destroy();
      console.log(`other client sent after ${sentAt} flood replies, answered after ${answeredAt}`);
      assert.equal(errors, 0, 'the flood commands were answered with their result sets');
      assert.ok(answeredAt < FLOOD / 2, `the other client waited for ${answeredAt - sentAt} flood replies (sent after ${sentAt}, answered after ${answeredAt})`);
    } finally {
      await other.end();
    }
  });
});
