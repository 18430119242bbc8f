/**
 * Walks packet boundaries in a byte stream delivered in arbitrary chunks, without copying
 * packets: for each packet it hands the subclass the header's length and up to PREFIX_SIZE
 * first payload bytes (in place when they are in one chunk, from a small scratch buffer when
 * a header or prefix straddles two chunks), then skips the rest of the payload.
 * This is the forwarding path's only per-packet work, so it allocates nothing.
 */
import { MAX_PACKET_PAYLOAD } from './constants.js';

/** Enough for an OK packet's header, two 9-byte lenencs and the status word. */
export const PREFIX_SIZE = 24;

export abstract class PacketWalker {
  /** Payload bytes of the current packet still to pass over. */
  private skip = 0;
  private readonly scratch = Buffer.alloc(4 + PREFIX_SIZE);
  private scratchFill = 0;
  /** The current packet continues a 0xFFFFFF-byte one: its first byte is not a packet type. */
  private continuation = false;
  /** Set by onPacket to stop the walk right after the current packet. */
  protected stopAfterPacket = false;

  /**
   * Called once per packet with `buf[off .. off + min(len, PREFIX_SIZE))` readable.
   * `continued` is true for the fragments that follow a 0xFFFFFF-byte packet.
   */
  protected abstract onPacket(buf: Buffer, off: number, len: number, continued: boolean): void;

  /** Resets the boundary state (use only at a known packet boundary). */
  protected resetWalker(): void {
    this.skip = 0;
    this.scratchFill = 0;
    this.continuation = false;
    this.stopAfterPacket = false;
  }

  /** True when the walk is at a packet boundary (nothing partial pending). */
  get atBoundary(): boolean {
    return this.skip === 0 && this.scratchFill === 0;
  }

  /**
   * Walks `chunk` from `start`. Returns the index just past the packet on which onPacket set
   * stopAfterPacket, or -1 when the whole chunk was consumed without stopping.
   */
  walk(chunk: Buffer, start = 0): number {
    const n = chunk.length;
    let i = start;
    while (i < n) {
      if (this.skip > 0) {
        const avail = n - i;
        if (avail < this.skip) {
          this.skip -= avail;
          return -1;
        }
        i += this.skip;
        this.skip = 0;
      } else if (this.scratchFill === 0 && n - i >= 4) {
        const len = chunk[i] | (chunk[i + 1] << 8) | (chunk[i + 2] << 16);
        const need = len < PREFIX_SIZE ? len : PREFIX_SIZE;
        if (n - i - 4 < need) {
          this.fillScratch(chunk, i, n);
          return -1;
        }
        const continued = this.continuation;
        this.continuation = len === MAX_PACKET_PAYLOAD;
        this.onPacket(chunk, i + 4, len, continued);
        i += 4;
        this.skip = len;
        if (this.stopAfterPacket) {
          if (n - i < this.skip) {
            this.skip -= n - i;
            return -1; // stop is remembered; reported when the packet's last byte arrives
          }
          i += this.skip;
          this.skip = 0;
          this.stopAfterPacket = false;
          return i;
        }
        continue;
      } else {
        i = this.fillScratch(chunk, i, n);
        if (i < 0) return -1;
        if (this.stopAfterPacket && this.skip === 0) {
          this.stopAfterPacket = false;
          return i;
        }
        continue;
      }
      if (this.stopAfterPacket) {
        this.stopAfterPacket = false;
        return i;
      }
    }
    return -1;
  }

  /**
   * Slow path: gathers a header and prefix that straddle chunks into the scratch buffer.
   * Returns the new index, or -1 when the chunk ran out before the prefix was complete.
   */
  private fillScratch(chunk: Buffer, i: number, n: number): number {
    const s = this.scratch;
    while (this.scratchFill < 4) {
      if (i >= n) return -1;
      s[this.scratchFill++] = chunk[i++];
    }
    const len = s[0] | (s[1] << 8) | (s[2] << 16);
    const need = 4 + (len < PREFIX_SIZE ? len : PREFIX_SIZE);
    while (this.scratchFill < need) {
      if (i >= n) return -1;
      s[this.scratchFill++] = chunk[i++];
    }
    this.scratchFill = 0;
    const continued = this.continuation;
    this.continuation = len === MAX_PACKET_PAYLOAD;
    this.onPacket(s, 4, len, continued);
    this.skip = len - (need - 4);
    if (this.stopAfterPacket && this.skip > 0) {
      if (n - i < this.skip) {
        this.skip -= n - i;
        return -1;
      }
      i += this.skip;
      this.skip = 0;
    }
    return i;
  }
}
