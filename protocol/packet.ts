/**
 * Packet framing: a 3-byte payload length, a 1-byte sequence id, then the payload. A logical
 * payload of 0xFFFFFF bytes or more is split into 0xFFFFFF-byte packets plus a final shorter
 * one (an empty one when the length is an exact multiple); every fragment takes the next
 * sequence id.
 */
import { MAX_PACKET_PAYLOAD } from './constants.js';

export const HEADER_SIZE = 4;

/** Frames one logical payload as one or more packets starting at sequence id `seq`. */
export function encodePacket(payload: Uint8Array, seq: number): Buffer {
  const fragments = Math.floor(payload.length / MAX_PACKET_PAYLOAD) + 1;
  const out = Buffer.allocUnsafe(payload.length + fragments * HEADER_SIZE);
  let src = 0;
  let dst = 0;
  for (let i = 0; i < fragments; i++) {
    const n = Math.min(MAX_PACKET_PAYLOAD, payload.length - src);
    out.writeUIntLE(n, dst, 3);
    out[dst + 3] = (seq + i) & 0xff;
    out.set(payload.subarray(src, src + n), dst + HEADER_SIZE);
    src += n;
    dst += HEADER_SIZE + n;
  }
  return out;
}

/** How many sequence ids `encodePacket` uses for a payload of this length. */
export function packetCount(payloadLength: number): number {
  return Math.floor(payloadLength / MAX_PACKET_PAYLOAD) + 1;
}

/** Rewrites the sequence id of every packet in a buffer of whole packets, starting at `seq`. */
export function renumberPackets(buf: Buffer, seq: number): number {
  let off = 0;
  while (off + HEADER_SIZE <= buf.length) {
    const len = buf.readUIntLE(off, 3);
    buf[off + 3] = seq & 0xff;
    seq = (seq + 1) & 0xff;
    off += HEADER_SIZE + len;
  }
  return seq;
}

export interface Packet {
  /** The joined payload of all fragments. */
  payload: Buffer;
  /** The bytes exactly as received: every fragment with its header. */
  raw: Buffer;
  /** Sequence id of the first fragment. */
  seq: number;
  /** Sequence id of the last fragment (equals seq unless the payload was split). */
  lastSeq: number;
}

/**
 * A packet header announces more payload than the reader accepts. Thrown as soon as the
 * header is read, before the payload is buffered; `seq` is the offending packet's sequence id.
 */
export class PacketTooLargeError extends RangeError {
  constructor(
    readonly limit: number,
    readonly seq: number,
  ) {
    super(`packet payload exceeds ${limit} bytes`);
    this.name = 'PacketTooLargeError';
  }
}

/**
 * Assembles logical packets from a byte stream delivered in arbitrary chunks. A packet that
 * fits in one chunk is returned as views of that chunk (no copy); partial data is concatenated
 * only once enough bytes have arrived to make progress, so a 20 MiB packet arriving in 64 KiB
 * chunks is copied a constant number of times, not once per chunk.
 *
 * `maxPayload` bounds one logical payload; a header announcing more throws PacketTooLargeError
 * at once, so an oversized packet is never held in memory. The owner may change the bound
 * between packets (a session raises it once the client is authenticated).
 */
export class PacketReader {
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  private buf: Buffer = Buffer.alloc(0);
  private pos = 0;
  /** Bytes needed (counted from pos) before parsing can make progress. */
  private want = HEADER_SIZE;

  constructor(public maxPayload = 1 << 30) {}

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
  }

  /** Bytes received but not yet returned in a packet. */
  get pendingBytes(): number {
    return this.buf.length - this.pos + this.buffered;
  }

  /** Takes every byte not yet returned (e.g. to hand the stream to another reader). */
  drain(): Buffer {
    this.consolidate();
    const rest = this.buf.subarray(this.pos);
    this.buf = Buffer.alloc(0);
    this.pos = 0;
    this.want = HEADER_SIZE;
    return rest;
  }

  private consolidate(): void {
    if (this.buffered === 0) return;
    const head = this.buf.subarray(this.pos);
    if (head.length === 0 && this.chunks.length === 1) {
      this.buf = this.chunks[0];
    } else {
      this.buf = Buffer.concat(head.length ? [head, ...this.chunks] : this.chunks, head.length + this.buffered);
    }
    this.pos = 0;
    this.chunks.length = 0;
    this.buffered = 0;
  }

  /** The next complete logical packet, or null when more bytes are needed. */
  next(): Packet | null {
    if (this.buf.length - this.pos + this.buffered < this.want) return null;
    this.consolidate();
    const buf = this.buf;
    const start = this.pos;
    let off = start;
    let total = 0;
    let fragments = 0;
    for (;;) {
      if (off + HEADER_SIZE > buf.length) {
        this.want = off + HEADER_SIZE - start;
        return null;
      }
      const len = buf.readUIntLE(off, 3);
      if (total + len > this.maxPayload) throw new PacketTooLargeError(this.maxPayload, buf[start + 3]);
      if (off + HEADER_SIZE + len > buf.length) {
        this.want = off + HEADER_SIZE + len - start;
        return null;
      }
      total += len;
      fragments++;
      off += HEADER_SIZE + len;
      if (len < MAX_PACKET_PAYLOAD) break;
    }
    this.pos = off;
    this.want = HEADER_SIZE;
    const raw = buf.subarray(start, off);
    const seq = buf[start + 3];
    let payload: Buffer;
    if (fragments === 1) {
      payload = buf.subarray(start + HEADER_SIZE, off);
    } else {
      payload = Buffer.allocUnsafe(total);
      let p = start;
      let d = 0;
      while (p < off) {
        const len = buf.readUIntLE(p, 3);
        buf.copy(payload, d, p + HEADER_SIZE, p + HEADER_SIZE + len);
        d += len;
        p += HEADER_SIZE + len;
      }
    }
    return { payload, raw, seq, lastSeq: (seq + fragments - 1) & 0xff };
  }
}
