/**
 * The compressed-protocol framing (protocol/compression.ts), checked against mysql2's own
 * compressed protocol (lib/compressed_protocol.js): mysql2 unframes and inflates what the
 * proxy frames, and the proxy unframes what mysql2 frames. Also thresholds, packets split
 * across frames and frames split across reads, sequence ids, and corrupt frames.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { ProtocolError } from '../../../protocol/buffer-reader.js';
import { COMPRESSED_HEADER_SIZE, CompressedChannel, encodeCompressedFrame, MAX_FRAME_INPUT, MAX_FRAME_LENGTH, MIN_COMPRESS_LENGTH } from '../../../protocol/compression.js';
import { MAX_PACKET_PAYLOAD } from '../../../protocol/constants.js';
import { encodePacket, PacketReader } from '../../../protocol/packet.js';

const require = createRequire(import.meta.url);
// Not among mysql2's exported paths: loaded from its package directory.
const { enableCompression } = require(join(dirname(require.resolve('mysql2')), 'lib', 'compressed_protocol.js')) as { enableCompression(c: unknown): void };

interface Mysql2Packet {
  sequenceId: number;
  buffer: Buffer;
  start: number;
  end: number;
}

/**
 * The parts of a mysql2 Connection its compressed protocol uses: it parses frames with its own
 * packet parser and inflater and hands the inner packets to handlePacket; what it writes goes
 * through writeUncompressed (the socket).
 */
function mysql2Peer() {
  const packets: { seq: number; payload: Buffer }[] = [];
  const written: Buffer[] = [];
  const errors: unknown[] = [];
  const conn: Record<string, unknown> & { compressedSequenceId: number } = {
    compressedSequenceId: 0,
    _bumpCompressedSequenceId(n: number) {
      this.compressedSequenceId = (this.compressedSequenceId + n) % 256;
    },
    handlePacket(p: Mysql2Packet) {
      packets.push({ seq: p.sequenceId, payload: Buffer.from(p.buffer.subarray(p.start + 4, p.end)) });
    },
    write(b: Buffer) {
      written.push(Buffer.from(b));
    },
    _handleNetworkError(e: unknown) {
      errors.push(e);
    },
    _handleFatalError(e: unknown) {
      errors.push(e);
    },
  };
  enableCompression(conn);
  return {
    conn,
    packets,
    written,
    errors,
    /** Feeds bytes as if they came from the socket. */
    receive(b: Buffer) {
      (conn.packetParser as { execute(b: Buffer): void }).execute(b);
    },
    /** Writes one uncompressed packet stream slice as mysql2 does on a compressed connection. */
    send(b: Buffer) {
      (conn.write as (b: Buffer) => void)(b);
    },
  };
}

function frameHeader(frame: Buffer) {
  return { compressedLength: frame.readUIntLE(0, 3), seq: frame[3], uncompressedLength: frame.readUIntLE(4, 3) };
}

/** Waits until mysql2's inflate queue (asynchronous for larger frames) has delivered `n` packets. */
async function until(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('compressed frames', () => {
  test('payloads under MIN_COMPRESS_LENGTH and payloads deflate cannot shrink are stored with uncompressed length 0', () => {
    const small = Buffer.alloc(MIN_COMPRESS_LENGTH - 1, 'a');
    const f = encodeCompressedFrame(small, 3);
    assert.deepEqual(frameHeader(f), { compressedLength: small.length, seq: 3, uncompressedLength: 0 });
    assert.deepEqual(f.subarray(COMPRESSED_HEADER_SIZE), small);
    const noise = randomBytes(4096);
    const g = encodeCompressedFrame(noise, 4);
    assert.deepEqual(frameHeader(g), { compressedLength: noise.length, seq: 4, uncompressedLength: 0 });
    const text = Buffer.alloc(MIN_COMPRESS_LENGTH, 'a');
    const h = encodeCompressedFrame(text, 5);
    assert.equal(frameHeader(h).uncompressedLength, MIN_COMPRESS_LENGTH);
    assert.ok(frameHeader(h).compressedLength < MIN_COMPRESS_LENGTH);
  });

  test('mysql2 unframes and inflates what the proxy frames, packets spanning frames included', async () => {
    const peer = mysql2Peer();
    const ch = new CompressedChannel();
    const payloads = [Buffer.from('\x00\x00\x00\x02\x00\x00\x00', 'latin1'), Buffer.alloc(300_000, 'r'), randomBytes(70_000), Buffer.from('short')];
    const stream = Buffer.concat(payloads.map((p, i) => encodePacket(p, i + 1)));
    // Cut the stream at odd places, as relayed chunks are: packets span frames.
    for (const [from, to] of [[0, 5], [5, 1000], [1000, 250_001], [250_001, stream.length]] as const) peer.receive(ch.encode(stream.subarray(from, to)));
    await until(() => peer.packets.length === payloads.length);
    assert.deepEqual(peer.errors, []);
    assert.deepEqual(peer.packets.map((p) => p.seq), [1, 2, 3, 4]);
    peer.packets.forEach((p, i) => assert.ok(p.payload.equals(payloads[i]!), `packet ${i}`));
    // mysql2 counted our frames (its compressed sequence follows them).
    assert.equal(peer.conn.compressedSequenceId, 4);
  });

  test('a payload over 16 MiB: packets of 0xFFFFFF bytes, frames of at most MAX_FRAME_INPUT, read back by mysql2', async () => {
    const peer = mysql2Peer();
    const ch = new CompressedChannel();
    const big = Buffer.alloc(MAX_PACKET_PAYLOAD + 1000);
    for (let i = 0; i < big.length; i += 4096) big.writeUInt32LE(i, i);
    const framed = ch.encode(encodePacket(big, 1));
    let frames = 0;
    for (let at = 0; at < framed.length; frames++) {
      const h = frameHeader(framed.subarray(at));
      assert.ok(h.uncompressedLength <= MAX_FRAME_INPUT);
      assert.equal(h.seq, frames & 0xff);
      at += COMPRESSED_HEADER_SIZE + h.compressedLength;
    }
    assert.equal(frames, Math.ceil((big.length + 8) / MAX_FRAME_INPUT));
    peer.receive(framed);
    await until(() => peer.packets.length === 1);
    assert.ok(peer.packets[0]!.payload.equals(big));
  });

  test("the proxy unframes mysql2's frames, fed one byte at a time, into the packets mysql2 wrote", () => {
    const peer = mysql2Peer();
    const query = Buffer.concat([Buffer.of(0x03), Buffer.from(`SELECT '${'x'.repeat(4000)}'`)]);
    peer.send(encodePacket(Buffer.of(0x0e), 0)); // COM_PING: under the threshold, stored
    peer.send(encodePacket(query, 0)); // compressible: deflated (on the thread pool above 4 KiB)
    return until(() => peer.written.length >= 4).then(() => {
      const wire = Buffer.concat(peer.written);
      const ch = new CompressedChannel();
      const reader = new PacketReader();
      for (let i = 0; i < wire.length; i++) for (const b of ch.decode(wire.subarray(i, i + 1))) reader.push(b);
      assert.equal(ch.pendingBytes, 0);
      const ping = reader.next();
      const q = reader.next();
      assert.deepEqual(ping?.payload, Buffer.of(0x0e));
      assert.ok(q?.payload.equals(query));
      assert.equal(reader.next(), null);
    });
  });

  test('toward a server, a command up to 0xFFFFFF bytes goes in one frame, as clients send it', () => {
    const command = encodePacket(Buffer.concat([Buffer.of(0x03), Buffer.alloc(10 << 20, 's')]), 0);
    const fe = new CompressedChannel(MAX_FRAME_LENGTH).encode(command);
    assert.equal(COMPRESSED_HEADER_SIZE + frameHeader(fe).compressedLength, fe.length);
    assert.equal(frameHeader(fe).uncompressedLength, command.length);
    const toClient = new CompressedChannel().encode(command);
    assert.equal(frameHeader(toClient).uncompressedLength, MAX_FRAME_INPUT);
  });

  test('sequence ids: outgoing frames count on from the last incoming frame; startCommand restarts at 0', () => {
    const ch = new CompressedChannel();
    assert.equal(frameHeader(ch.encode(Buffer.from('a')))[`seq`], 0);
    assert.equal(frameHeader(ch.encode(Buffer.from('b'))).seq, 1);
    // The client's next command arrives in its frame 0: our answer is frame 1, then 2.
    ch.decode(encodeCompressedFrame(encodePacket(Buffer.of(0x0e), 0), 0));
    assert.equal(frameHeader(ch.encode(Buffer.from('c'))).seq, 1);
    assert.equal(frameHeader(ch.encode(Buffer.from('d'))).seq, 2);
    ch.decode(encodeCompressedFrame(Buffer.from('e'), 255));
    assert.equal(frameHeader(ch.encode(Buffer.from('f'))).seq, 0, 'wraps after 255');
    ch.startCommand();
    assert.equal(frameHeader(ch.encode(Buffer.from('g'))).seq, 0);
  });

  test('a frame that does not inflate to its announced length is a protocol error', () => {
    const body = deflateSync(Buffer.alloc(100, 'k'));
    const frame = Buffer.concat([Buffer.alloc(COMPRESSED_HEADER_SIZE), body]);
    frame.writeUIntLE(body.length, 0, 3);
    frame.writeUIntLE(99, 4, 3);
    assert.throws(() => new CompressedChannel().decode(frame), ProtocolError);
    const garbage = Buffer.concat([Buffer.from([4, 0, 0, 0, 100, 0, 0]), Buffer.from('nope')]);
    assert.throws(() => new CompressedChannel().decode(garbage), ProtocolError);
  });
});
