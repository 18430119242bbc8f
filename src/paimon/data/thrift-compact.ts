/**
 * Thrift's compact protocol (`TCompactProtocol`), as the Parquet footer and page headers use it,
 * decoded to a generic tree that keeps every field (known to us or not) with its wire type, and
 * encoded back. A rewrite of Parquet metadata changes the few fields it means to and writes the
 * rest as they were, so fields of newer Parquet versions survive it.
 */
import { PaimonError } from '../errors.js';

/** Compact-protocol type ids (booleans in a struct field carry their value in the type). */
export const T = {
  STOP: 0, TRUE: 1, FALSE: 2, BYTE: 3, I16: 4, I32: 5, I64: 6, DOUBLE: 7, BINARY: 8, LIST: 9, SET: 10, MAP: 11, STRUCT: 12,
} as const;

export type ThriftValue =
  | { type: typeof T.TRUE; value: boolean }
  | { type: typeof T.BYTE | typeof T.I16 | typeof T.I32 | typeof T.DOUBLE; value: number }
  | { type: typeof T.I64; value: bigint }
  | { type: typeof T.BINARY; value: Uint8Array }
  | { type: typeof T.LIST | typeof T.SET; elemType: number; items: ThriftValue[] }
  | { type: typeof T.MAP; keyType: number; valueType: number; entries: [ThriftValue, ThriftValue][] }
  | { type: typeof T.STRUCT; fields: ThriftStruct };

/** A struct: its fields by id, in wire order. */
export type ThriftStruct = Map<number, ThriftValue>;

const MAX_DEPTH = 64;

function corrupt(what: string): PaimonError {
  return new PaimonError('CORRUPT_METADATA', `Parquet metadata (Thrift compact protocol): ${what}; rewrite the file with Paimon's own writer`);
}

class Reader {
  constructor(private readonly buf: Uint8Array, public pos: number) {}

  byte(): number {
    if (this.pos >= this.buf.length) throw corrupt('truncated');
    return this.buf[this.pos++];
  }

  varint(): bigint {
    let v = 0n, shift = 0n;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      v |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return v;
      shift += 7n;
    }
    throw corrupt('varint longer than 10 bytes');
  }

  zigzag(): bigint {
    const v = this.varint();
    return (v >> 1n) ^ -(v & 1n);
  }

  bytes(n: number): Uint8Array {
    if (n < 0 || this.pos + n > this.buf.length) throw corrupt('truncated');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  value(type: number, depth: number, inCollection: boolean): ThriftValue {
    if (depth > MAX_DEPTH) throw corrupt('nested too deeply');
    switch (type) {
      case T.TRUE: case T.FALSE:
        // In a collection a boolean is a byte of its own (1 true, 2 false); as a field it is the type.
        return { type: T.TRUE, value: inCollection ? this.byte() === T.TRUE : type === T.TRUE };
      case T.BYTE: {
        const b = this.byte();
        return { type: T.BYTE, value: b > 127 ? b - 256 : b };
      }
      case T.I16: return { type: T.I16, value: Number(this.zigzag()) };
      case T.I32: return { type: T.I32, value: Number(this.zigzag()) };
      case T.I64: return { type: T.I64, value: BigInt.asIntN(64, this.zigzag()) };
      case T.DOUBLE: {
        const b = this.bytes(8);
        return { type: T.DOUBLE, value: new DataView(b.buffer, b.byteOffset, 8).getFloat64(0, true) };
      }
      case T.BINARY: return { type: T.BINARY, value: this.bytes(Number(this.varint())) };
      case T.LIST: case T.SET: {
        const h = this.byte();
        const elemType = h & 0x0f;
        const size = (h >> 4) === 15 ? Number(this.varint()) : h >> 4;
        if (size > this.buf.length - this.pos + 1 && elemType !== T.TRUE) throw corrupt('list longer than the bytes left');
        const items: ThriftValue[] = [];
        for (let i = 0; i < size; i++) items.push(this.value(elemType, depth + 1, true));
        return { type, elemType, items };
      }
      case T.MAP: {
        const size = Number(this.varint());
        if (size === 0) return { type: T.MAP, keyType: 0, valueType: 0, entries: [] };
        const kv = this.byte();
        const entries: [ThriftValue, ThriftValue][] = [];
        for (let i = 0; i < size; i++) entries.push([this.value(kv >> 4, depth + 1, true), this.value(kv & 0x0f, depth + 1, true)]);
        return { type: T.MAP, keyType: kv >> 4, valueType: kv & 0x0f, entries };
      }
      case T.STRUCT: return { type: T.STRUCT, fields: this.struct(depth + 1) };
      default: throw corrupt(`unknown type ${type}`);
    }
  }

  struct(depth: number): ThriftStruct {
    const fields: ThriftStruct = new Map();
    let last = 0;
    for (;;) {
      const h = this.byte();
      const type = h & 0x0f;
      if (type === T.STOP) return fields;
      const id = (h >> 4) === 0 ? Number(this.zigzag()) : last + (h >> 4);
      fields.set(id, this.value(type, depth, false));
      last = id;
    }
  }
}

/** Decodes the struct starting at `offset`; returns it and the offset just past it. */
export function decodeStruct(buf: Uint8Array, offset = 0): { struct: ThriftStruct; end: number } {
  const r = new Reader(buf, offset);
  const struct = r.struct(0);
  return { struct, end: r.pos };
}

class Writer {
  private chunks: number[] = [];
  private parts: Uint8Array[] = [];

  private flush(): void {
    if (this.chunks.length > 0) {
      this.parts.push(Uint8Array.from(this.chunks));
      this.chunks = [];
    }
  }

  byte(b: number): void {
    this.chunks.push(b & 0xff);
  }

  varint(v: bigint): void {
    let x = BigInt.asUintN(64, v);
    while (x >= 0x80n) {
      this.byte(Number(x & 0x7fn) | 0x80);
      x >>= 7n;
    }
    this.byte(Number(x));
  }

  zigzag(v: bigint): void {
    this.varint(BigInt.asUintN(64, (v << 1n) ^ (v >> 63n)));
  }

  raw(b: Uint8Array): void {
    this.flush();
    this.parts.push(b);
  }

  value(v: ThriftValue, inCollection: boolean): void {
    switch (v.type) {
      case T.TRUE: if (inCollection) this.byte(v.value ? T.TRUE : T.FALSE); return;
      case T.BYTE: this.byte(v.value); return;
      case T.I16: case T.I32: this.zigzag(BigInt(v.value)); return;
      case T.I64: this.zigzag(v.value); return;
      case T.DOUBLE: {
        const b = new Uint8Array(8);
        new DataView(b.buffer).setFloat64(0, v.value, true);
        this.raw(b);
        return;
      }
      case T.BINARY: this.varint(BigInt(v.value.length)); this.raw(v.value); return;
      case T.LIST: case T.SET:
        if (v.items.length < 15) this.byte((v.items.length << 4) | v.elemType);
        else { this.byte(0xf0 | v.elemType); this.varint(BigInt(v.items.length)); }
        for (const x of v.items) this.value(x, true);
        return;
      case T.MAP:
        this.varint(BigInt(v.entries.length));
        if (v.entries.length === 0) return;
        this.byte((v.keyType << 4) | v.valueType);
        for (const [k, x] of v.entries) { this.value(k, true); this.value(x, true); }
        return;
      case T.STRUCT: this.struct(v.fields); return;
    }
  }

  struct(s: ThriftStruct): void {
    let last = 0;
    for (const [id, v] of s) {
      const type = v.type === T.TRUE ? (v.value ? T.TRUE : T.FALSE) : v.type;
      const delta = id - last;
      if (delta > 0 && delta <= 15) this.byte((delta << 4) | type);
      else { this.byte(type); this.zigzag(BigInt(id)); }
      this.value(v, false);
      last = id;
    }
    this.byte(T.STOP);
  }

  result(): Buffer {
    this.flush();
    return Buffer.concat(this.parts);
  }
}

export function encodeStruct(s: ThriftStruct): Buffer {
  const w = new Writer();
  w.struct(s);
  return w.result();
}

// ---------------------------------------------------------------- typed access to a decoded tree

/** The member of ThriftValue whose type ids include K. */
type Of<K extends ThriftValue['type'], V = ThriftValue> = V extends { type: infer U } ? (K extends U ? V : never) : never;

function field<K extends ThriftValue['type']>(s: ThriftStruct, id: number, type: K, what: string): Of<K> | undefined {
  const v = s.get(id);
  if (v === undefined) return undefined;
  if (v.type !== type) throw corrupt(`${what} (field ${id}) has wire type ${v.type}, not ${type}`);
  return v as Of<K>;
}

export const getI32 = (s: ThriftStruct, id: number, what: string): number | undefined => field(s, id, T.I32, what)?.value;
export const getI64 = (s: ThriftStruct, id: number, what: string): bigint | undefined => field(s, id, T.I64, what)?.value;
export const getBinary = (s: ThriftStruct, id: number, what: string): Uint8Array | undefined => field(s, id, T.BINARY, what)?.value;
export const getStruct = (s: ThriftStruct, id: number, what: string): ThriftStruct | undefined => field(s, id, T.STRUCT, what)?.fields;
export const getList = (s: ThriftStruct, id: number, what: string): ThriftValue[] | undefined => field(s, id, T.LIST, what)?.items;

/** The items of a list of structs. */
export function structsOf(items: readonly ThriftValue[], what: string): ThriftStruct[] {
  return items.map((x) => {
    if (x.type !== T.STRUCT) throw corrupt(`${what}: a list item is not a struct`);
    return x.fields;
  });
}

/** Replaces an existing field's value (keeping its place in wire order) or appends it. */
export function setI32(s: ThriftStruct, id: number, value: number): void {
  s.set(id, { type: T.I32, value });
}

export function setI64(s: ThriftStruct, id: number, value: bigint): void {
  s.set(id, { type: T.I64, value });
}
