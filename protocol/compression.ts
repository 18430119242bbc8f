/**
 * The compressed protocol (CLIENT_COMPRESS, zlib): once negotiated, the packet stream of a
 * connection is carried in frames with a 7-byte header of their own:
 *
 *   int<3> compressed length   bytes of frame payload that follow the header
 *   int<1> compressed sequence a counter of frames, separate from the packets' sequence ids
 *   int<3> uncompressed length 0: the payload is stored as it is (too short to be worth it)
 *
 * A frame holds any slice of the uncompressed packet stream: a packet may span frames and a
 * frame may hold several packets, so the codec here works on byte streams and the packet
 * reader and writer above it stay as they are. Compressed sequence ids follow MySQL's
 * net_serv.cc: each side numbers its frames on from the last frame it received, and a client
 * starts again at 0 with each command. Payloads under MIN_COMPRESS_LENGTH, and payloads that
 * deflate does not shrink, are stored uncompressed, as MySQL's my_compress does.
 *
 * zstd (CLIENT_ZSTD_COMPRESSION_ALGORITHM) is not implemented: the proxy never offers it.
 */
import { deflateSync, inflateSync } from 'node:zlib';
import { ProtocolError } from './buffer-reader.js';

export const COMPRESSED_HEADER_SIZE = 7;
/** Shorter payloads go uncompressed (MySQL's MIN_COMPRESS_LENGTH, include/mysql_com.h). */
export const MIN_COMPRESS_LENGTH = 50;
/**
 * Most uncompressed bytes the proxy puts in one frame toward a client. The format allows
 * 0xFFFFFF; smaller frames keep each synchronous deflate short, and 1 MiB loses nothing
 * measurable in ratio. (Clients do not tie packet sequence ids to frames.)
 */
export const MAX_FRAME_INPUT = 1 << 20;
/** Largest value of the two 3-byte length fields. */
export const MAX_FRAME_LENGTH = 0xffffff;

/** One frame around `data` (at most 0xFFFFFF bytes), compressed when that makes it shorter. */
export function encodeCompressedFrame(data: Uint8Array, seq: number, level = -1): Buffer {
  if (data.length > MAX_FRAME_LENGTH) throw new RangeError(`a compressed frame carries at most ${MAX_FRAME_LENGTH} bytes`);
  let body: Uint8Array = data;
  let uncompressedLength = 0;
  if (data.length >= MIN_COMPRESS_LENGTH) {
    const deflated = deflateSync(data, { level });
    if (deflated.length < data.length) {
      body = deflated;
      uncompressedLength = data.length;
    }
  }
  const out = Buffer.allocUnsafe(COMPRESSED_HEADER_SIZE + body.length);
  out.writeUIntLE(body.length, 0, 3);
  out[3] = seq & 0xff;
  out.writeUIntLE(uncompressedLength, 4, 3);
  out.set(body, COMPRESSED_HEADER_SIZE);
  return out;
}

/**
 * One leg of a compressed connection: frames what the proxy writes, unframes what the peer
 * sent. The sequence of the next outgoing frame follows the last incoming one; `startCommand`
 * restarts it at 0 where the proxy is the client and sends a new command.
 */
export class CompressedChannel {
  private nextSeq = 0;
  private chunks: Buffer[] = [];
  private buffered = 0;

  /**
   * `maxFrameInput`: most uncompressed bytes per frame. Toward a MySQL/MariaDB server use
   * MAX_FRAME_LENGTH, as clients do: the server numbers its answer's packets on from the
   * last frame of the command (net_serv.cc), so a command cut in more frames than the client
   * itself used would shift the sequence ids the client sees.
   */
  constructor(
    private readonly maxFrameInput = MAX_FRAME_INPUT,
    private readonly level = -1,
  ) {}

  /** Frames a slice of the packet stream (split into frames of at most maxFrameInput bytes). */
  encode(data: Buffer): Buffer {
    const max = this.maxFrameInput;
    if (data.length <= max) return this.frame(data);
    const frames: Buffer[] = [];
    for (let at = 0; at < data.length; at += max) frames.push(this.frame(data.subarray(at, at + max)));
    return Buffer.concat(frames);
  }

  private frame(data: Buffer): Buffer {
    const out = encodeCompressedFrame(data, this.nextSeq, this.level);
    this.nextSeq = (this.nextSeq + 1) & 0xff;
    return out;
  }

  /** The proxy, as the client of this leg, starts a new command: its frames count from 0 again. */
  startCommand(): void {
    this.nextSeq = 0;
  }

  /** Bytes received but not yet part of a complete frame. */
  get pendingBytes(): number {
    return this.buffered;
  }

  /**
   * The uncompressed stream bytes in the complete frames received so far, in order (an empty
   * list while a frame is incomplete). Throws ProtocolError on a frame that does not inflate
   * to the length its header announces.
   */
  decode(chunk: Buffer): Buffer[] {
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    const out: Buffer[] = [];
    while (this.buffered >= COMPRESSED_HEADER_SIZE) {
      const head = this.peekHeader();
      const total = COMPRESSED_HEADER_SIZE + head.compressedLength;
      if (this.buffered < total) break;
      const frame = this.take(total);
      const body = frame.subarray(COMPRESSED_HEADER_SIZE);
      this.nextSeq = (head.seq + 1) & 0xff;
      if (head.uncompressedLength === 0) {
        if (body.length > 0) out.push(body);
        continue;
      }
      let data: Buffer;
      try {
        data = inflateSync(body, { maxOutputLength: head.uncompressedLength });
      } catch (e) {
        throw new ProtocolError(`compressed frame ${head.seq} does not inflate: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (data.length !== head.uncompressedLength) {
        throw new ProtocolError(`compressed frame ${head.seq} inflates to ${data.length} bytes, its header says ${head.uncompressedLength}`);
      }
      out.push(data);
    }
    return out;
  }

  private peekHeader(): { compressedLength: number; seq: number; uncompressedLength: number } {
    let first = this.chunks[0]!;
    if (first.length < COMPRESSED_HEADER_SIZE) {
      first = Buffer.concat(this.chunks, this.buffered);
      this.chunks = [first];
    }
    return { compressedLength: first.readUIntLE(0, 3), seq: first[3]!, uncompressedLength: first.readUIntLE(4, 3) };
  }

  /** The next `n` buffered bytes (a view when they lie in one chunk). */
  private take(n: number): Buffer {
    let first = this.chunks[0]!;
    if (first.length < n) {
      first = Buffer.concat(this.chunks, this.buffered);
      this.chunks = [first];
    }
    const out = first.subarray(0, n);
    if (first.length === n) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    this.buffered -= n;
    return out;
  }
}
