/**
 * Reads the MySQL basic data types (fixed-length little-endian integers, length-encoded
 * integers and strings, NUL-terminated strings) from one packet payload. Every read checks
 * bounds and throws ProtocolError, so a truncated or malicious packet never reads past its end.
 */

export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}

export class BufferReader {
  offset: number;

  constructor(
    readonly buf: Buffer,
    offset = 0,
    readonly end = buf.length,
  ) {
    this.offset = offset;
  }

  get remaining(): number {
    return this.end - this.offset;
  }

  private need(n: number, what: string): void {
    if (this.offset + n > this.end) {
      throw new ProtocolError(`packet too short: ${what} needs ${n} byte(s) at offset ${this.offset}, ${this.end - this.offset} left`);
    }
  }

  u8(): number {
    this.need(1, 'int<1>');
    return this.buf[this.offset++];
  }

  u16(): number {
    this.need(2, 'int<2>');
    const v = this.buf.readUInt16LE(this.offset);
    this.offset += 2;
    return v;
  }

  u24(): number {
    this.need(3, 'int<3>');
    const v = this.buf.readUIntLE(this.offset, 3);
    this.offset += 3;
    return v;
  }

  u32(): number {
    this.need(4, 'int<4>');
    const v = this.buf.readUInt32LE(this.offset);
    this.offset += 4;
    return v;
  }

  u64(): bigint {
    this.need(8, 'int<8>');
    const v = this.buf.readBigUInt64LE(this.offset);
    this.offset += 8;
    return v;
  }

  skip(n: number): void {
    this.need(n, `${n} skipped bytes`);
    this.offset += n;
  }

  bytes(n: number): Buffer {
    this.need(n, `${n} bytes`);
    const b = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return b;
  }

  /** Length-encoded integer; null for the 0xFB NULL marker. Values above 2^53 throw (use lenencBig). */
  lenenc(): number | null {
    const v = this.lenencBig();
    if (v === null) return null;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ProtocolError(`length-encoded integer ${v} exceeds 2^53`);
    return Number(v);
  }

  lenencBig(): bigint | null {
    const first = this.u8();
    if (first < 0xfb) return BigInt(first);
    switch (first) {
      case 0xfb:
        return null;
      case 0xfc:
        return BigInt(this.u16());
      case 0xfd:
        return BigInt(this.u24());
      case 0xfe:
        return this.u64();
      default:
        throw new ProtocolError(`0x${first.toString(16)} is not a length-encoded integer`);
    }
  }

  /** Length-encoded string as raw bytes; null for the NULL marker. */
  lenencBytes(): Buffer | null {
    const n = this.lenenc();
    if (n === null) return null;
    return this.bytes(n);
  }

  lenencString(): string {
    const b = this.lenencBytes();
    if (b === null) throw new ProtocolError('unexpected NULL where a string was required');
    return b.toString('utf8');
  }

  /** NUL-terminated bytes; when strict is false a missing NUL takes the rest of the packet. */
  nulBytes(strict = true): Buffer {
    const i = this.buf.indexOf(0, this.offset);
    if (i < 0 || i >= this.end) {
      if (strict) throw new ProtocolError(`missing NUL terminator after offset ${this.offset}`);
      return this.restBytes();
    }
    const b = this.buf.subarray(this.offset, i);
    this.offset = i + 1;
    return b;
  }

  nulString(strict = true): string {
    return this.nulBytes(strict).toString('utf8');
  }

  restBytes(): Buffer {
    const b = this.buf.subarray(this.offset, this.end);
    this.offset = this.end;
    return b;
  }

  restString(): string {
    return this.restBytes().toString('utf8');
  }
}
