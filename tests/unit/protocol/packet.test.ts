import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { encodePacket, PacketReader, PacketTooLargeError, packetCount, renumberPackets } from '../../../protocol/packet.js';

const MAX = 0xffffff;

describe('packet framing', () => {
  test('a small payload is one packet with a 3-byte little-endian length and the sequence id', () => {
    const p = encodePacket(Buffer.from([0x0e]), 0);
    assert.deepEqual([...p], [0x01, 0x00, 0x00, 0x00, 0x0e]);
    assert.deepEqual([...encodePacket(Buffer.alloc(0), 7)], [0, 0, 0, 7]);
  });

  test('a payload of exactly 0xFFFFFF bytes is followed by an empty packet', () => {
    const payload = Buffer.alloc(MAX, 0x61);
    const framed = encodePacket(payload, 3);
    assert.equal(framed.length, MAX + 8);
    assert.equal(framed.readUIntLE(0, 3), MAX);
    assert.equal(framed[3], 3);
    assert.equal(framed.readUIntLE(MAX + 4, 3), 0);
    assert.equal(framed[MAX + 7], 4);
    assert.equal(packetCount(MAX), 2);
  });

  test('a 20 MiB payload is split into 0xFFFFFF + rest with consecutive sequence ids, and joined back', () => {
    const size = 20 * 1024 * 1024;
    const payload = Buffer.alloc(size);
    for (let i = 0; i < size; i += 4096) payload[i] = (i / 4096) & 0xff;
    const framed = encodePacket(payload, 255);
    assert.equal(framed.readUIntLE(0, 3), MAX);
    assert.equal(framed[3], 255);
    assert.equal(framed.readUIntLE(MAX + 4, 3), size - MAX);
    assert.equal(framed[MAX + 7], 0, 'sequence id wraps from 255 to 0');
    const r = new PacketReader();
    // deliver in 64 KiB chunks as a socket would
    for (let off = 0; off < framed.length; off += 65536) r.push(framed.subarray(off, off + 65536));
    const p = r.next();
    assert.ok(p);
    assert.equal(p.seq, 255);
    assert.equal(p.lastSeq, 0);
    assert.equal(p.payload.length, size);
    assert.ok(p.payload.equals(payload));
    assert.ok(p.raw.equals(framed));
    assert.equal(r.next(), null);
  });

  test('the reader returns packets split at every possible byte boundary', () => {
    const stream = Buffer.concat([encodePacket(Buffer.from('hello'), 0), encodePacket(Buffer.alloc(0), 1), encodePacket(Buffer.from('world!'), 2)]);
    for (let cut = 0; cut <= stream.length; cut++) {
      const r = new PacketReader();
      r.push(stream.subarray(0, cut));
      const got: string[] = [];
      let p;
      while ((p = r.next())) got.push(p.payload.toString());
      r.push(stream.subarray(cut));
      while ((p = r.next())) got.push(p.payload.toString());
      assert.deepEqual(got, ['hello', '', 'world!'], `cut at ${cut}`);
      assert.equal(r.pendingBytes, 0);
    }
  });

  test('drain hands back unread bytes', () => {
    const r = new PacketReader();
    r.push(Buffer.concat([encodePacket(Buffer.from('a'), 0), Buffer.from([9, 0, 0])]));
    assert.equal(r.next()?.payload.toString(), 'a');
    assert.deepEqual([...r.drain()], [9, 0, 0]);
  });

  test('renumberPackets rewrites consecutive sequence ids', () => {
    const b = Buffer.concat([encodePacket(Buffer.from('x'), 5), encodePacket(Buffer.from('yz'), 9)]);
    assert.equal(renumberPackets(b, 1), 3);
    assert.equal(b[3], 1);
    assert.equal(b[3 + 5], 2);
  });

  test('a header announcing more than the limit is refused before its payload arrives; the limit can be raised between packets', () => {
    const r = new PacketReader(1000);
    const header = Buffer.from([0x00, 0x00, 0xa0, 7]); // 10 MiB announced, seq 7
    r.push(Buffer.concat([header, Buffer.alloc(16)]));
    assert.throws(
      () => r.next(),
      (e: unknown) => e instanceof PacketTooLargeError && e.limit === 1000 && e.seq === 7,
    );
    const fragments = new PacketReader(MAX + 10);
    fragments.push(encodePacket(Buffer.alloc(MAX), 0).subarray(0, MAX + 4));
    fragments.push(Buffer.from([11, 0, 0, 1]));
    assert.throws(() => fragments.next(), PacketTooLargeError, 'the second fragment brings the total over the limit');
    const raised = new PacketReader(4);
    raised.push(Buffer.concat([encodePacket(Buffer.from('abcd'), 0), encodePacket(Buffer.from('efghij'), 0)]));
    assert.equal(raised.next()?.payload.toString(), 'abcd');
    raised.maxPayload = 6;
    assert.equal(raised.next()?.payload.toString(), 'efghij');
  });

  test('a payload larger than the limit is refused', () => {
    const r = new PacketReader(10);
    r.push(encodePacket(Buffer.alloc(11), 0));
    assert.throws(() => r.next(), /exceeds 10 bytes/);
  });
});
