/**
 * Builds one packet payload from MySQL basic data types. Grows geometrically; `finish()`
 * returns a view of the written bytes. Used only for packets the proxy writes itself
 * (greetings, OK/ERR, local result sets), never on the forwarding path.
 */

export class BufferWriter {
  private buf: Buffer;
  private len = 0;

  constructor(initialSize = 64) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  get length(): number {
    return this.len;
  }

  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  u8(v: number): this {
    this.ensure(1);
    this.buf[this.len++] = v & 0xff;
    return this;
  }

  u16(v: number): this {
    this.ensure(2);
    this.buf.writeUInt16LE(v & 0xffff, this.len);
    this.len += 2;
    return this;
  }

  u24(v: number): this {
    this.ensure(3);
    this.buf.writeUIntLE(v & 0xffffff, this.len, 3);
    this.len += 3;
    return this;
  }

  u32(v: number): this {
    this.ensure(4);
    this.buf.writeUInt32LE(v >>> 0, this.len);
    this.len += 4;
    return this;
  }

  u64(v: bigint): this {
    this.ensure(8);
    this.buf.writeBigUInt64LE(v, this.len);
    this.len += 8;
    return this;
  }

  zeros(n: number): this {
    this.ensure(n);
    this.buf.fill(0, this.len, this.len + n);
    this.len += n;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }

  string(s: string): this {
    const n = Buffer.byteLength(s, 'utf8');
    this.ensure(n);
    this.buf.write(s, this.len, 'utf8');
    this.len += n;
    return this;
  }

  nulString(s: string): this {
    return this.string(s).u8(0);
  }

  lenenc(v: number | bigint): this {
    const n = typeof v === 'bigint' ? v : BigInt(v);
    if (n < 0n) throw new RangeError(`length-encoded integer must not be negative: ${n}`);
    if (n < 0xfbn) return this.u8(Number(n));
    if (n <= 0xffffn) return this.u8(0xfc).u16(Number(n));
    if (n <= 0xffffffn) return this.u8(0xfd).u24(Number(n));
    if (n > 0xffffffffffffffffn) throw new RangeError(`length-encoded integer too large: ${n}`);
    return this.u8(0xfe).u64(n);
  }

  lenencBytes(b: Uint8Array): this {
    return this.lenenc(b.length).bytes(b);
  }

  lenencString(s: string): this {
    const n = Buffer.byteLength(s, 'utf8');
    this.lenenc(n);
    this.ensure(n);
    this.buf.write(s, this.len, 'utf8');
    this.len += n;
    return this;
  }

  finish(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}

/** Byte length of a length-encoded integer. */
export function lenencSize(n: number): number {
  if (n < 0xfb) return 1;
  if (n <= 0xffff) return 3;
  if (n <= 0xffffff) return 4;
  return 9;
}
