/**
 * Temporary sorted-run files of a compaction (what Paimon's external sort buffer spills to
 * disk, `sort-spill-threshold`): when a section has more sorted runs than the memory budget lets
 * the merge keep open at once, contiguous groups of runs are first merged into one sorted stream
 * each, WITHOUT the merge function (raw records in merge order), and written here; the final
 * merge reads these back like any other run. They are private to this process, never Paimon
 * files, and removed when the compaction ends (success, failure or abort).
 *
 * Format: a sequence of frames, each `u32 LE payload length` + a V8 structured-clone payload
 * (`node:v8` serialize) of `[sequenceNumbers: BigInt64Array, valueKinds: Uint8Array,
 * values: Datum[][]]` for up to a few thousand records. The key is not stored: it is the key
 * fields of the value (as the data-file readers build it). Decimal and Timestamp values come
 * back from the clone as plain objects and are revived by the field types.
 */
import { open, rm, type FileHandle } from 'node:fs/promises';
import { serialize, deserialize } from 'node:v8';
import { PaimonError } from '../errors.js';
import type { DataFieldSpec, FieldType } from '../data/field-type.js';
import { Decimal, Timestamp, type Datum, type InternalRow, type KeyValue, type RowKindByte } from '../data/internal-row.js';

/** Records per frame (small: records read back die young, before V8 promotes them). */
const FRAME_RECORDS = 512;
const WRITE_BUFFER = 1 << 20;

/** Writes records (in merge order) to a spill file. */
export class SpillWriter {
  private seqs: bigint[] = [];
  private kinds: number[] = [];
  private values: InternalRow[] = [];
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private closed = false;
  records = 0;
  bytes = 0;

  private constructor(readonly path: string, private readonly fh: FileHandle) {}

  static async create(path: string): Promise<SpillWriter> {
    // 'wx': never overwrite; the name is random in the compaction's own directory.
    return new SpillWriter(path, await open(path, 'wx'));
  }

  async write(batch: readonly KeyValue[]): Promise<void> {
    for (let i = 0; i < batch.length; i++) {
      const kv = batch[i];
      this.seqs.push(kv.sequenceNumber);
      this.kinds.push(kv.valueKind);
      this.values.push(kv.value);
      if (this.values.length >= FRAME_RECORDS) this.frame();
    }
    this.records += batch.length;
    if (this.pendingBytes >= WRITE_BUFFER) await this.flush();
  }

  private frame(): void {
    if (this.values.length === 0) return;
    const payload = serialize([BigInt64Array.from(this.seqs), Uint8Array.from(this.kinds), this.values]);
    const head = Buffer.allocUnsafe(4);
    head.writeUInt32LE(payload.length, 0);
    this.pending.push(head, payload);
    this.pendingBytes += 4 + payload.length;
    this.seqs = [];
    this.kinds = [];
    this.values = [];
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const bufs = this.pending;
    this.pending = [];
    const n = this.pendingBytes;
    this.pendingBytes = 0;
    await this.fh.writev(bufs);
    this.bytes += n;
  }

  /** Writes what is buffered and closes the file (it stays on disk for reading). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      this.frame();
      await this.flush();
    } finally {
      await this.fh.close();
    }
  }

  /** Closes and deletes the file. */
  async discard(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      await this.fh.close().catch(() => undefined);
    }
    await rm(this.path, { force: true });
  }
}

/** Revives the class instances (Decimal, Timestamp) of one value by its type; null = nothing to do. */
type Reviver = (v: Datum) => Datum;

function reviverOf(t: FieldType): Reviver | null {
  switch (t.root) {
    case 'DECIMAL':
      return (v) => {
        if (v === null || v instanceof Decimal) return v;
        const o = v as unknown as { unscaled: bigint; precision: number; scale: number };
        return new Decimal(o.unscaled, o.precision, o.scale);
      };
    case 'TIMESTAMP': case 'TIMESTAMP_LTZ':
      return (v) => {
        if (v === null || v instanceof Timestamp) return v;
        const o = v as unknown as { millisecond: bigint; nanoOfMillisecond: number };
        return new Timestamp(o.millisecond, o.nanoOfMillisecond);
      };
    case 'ARRAY': {
      const e = reviverOf(t.element);
      return e === null ? null : (v) => (v === null ? null : (v as Datum[]).map(e));
    }
    case 'MULTISET': {
      const e = reviverOf(t.element);
      return e === null ? null : (v) => (v === null ? null : (v as Array<[Datum, Datum]>).map(([a, b]) => [e(a), b] as [Datum, Datum]));
    }
    case 'MAP': {
      const k = reviverOf(t.key), val = reviverOf(t.value);
      if (k === null && val === null) return null;
      const kk = k ?? ((x: Datum) => x), vv = val ?? ((x: Datum) => x);
      return (v) => (v === null ? null : (v as Array<[Datum, Datum]>).map(([a, b]) => [kk(a), vv(b)] as [Datum, Datum]));
    }
    case 'ROW': {
      const fs = t.fields.map((f) => reviverOf(f.type));
      if (fs.every((f) => f === null)) return null;
      return (v) => (v === null ? null : (v as Datum[]).map((x, i) => (fs[i] === null ? x : fs[i]!(x))));
    }
    default:
      return null;
  }
}

/**
 * Reads a spill file back as KeyValue batches (one frame each), keys taken from the value's key
 * fields. Reads 1 MiB at a time; holds one frame.
 */
export async function* readSpill(
  path: string,
  fields: readonly DataFieldSpec[],
  keyIndexes: readonly number[],
  signal?: AbortSignal,
): AsyncGenerator<KeyValue[]> {
  const revivers = fields.map((f) => reviverOf(f.type));
  const revive = revivers.some((r) => r !== null);
  const nKey = keyIndexes.length;
  const fh = await open(path, 'r');
  try {
    let buf = Buffer.alloc(0);
    let pos = 0;
    let eof = false;
    // Ensures at least n unread bytes in buf (fewer only at the end of the file).
    const fill = async (n: number): Promise<void> => {
      if (buf.length - pos >= n || eof) return;
      const rest = buf.subarray(pos);
      const chunk = Buffer.allocUnsafe(Math.max(n - rest.length, WRITE_BUFFER));
      let have = 0;
      while (rest.length + have < n) {
        const { bytesRead } = await fh.read(chunk, have, chunk.length - have, null);
        if (bytesRead === 0) {
          eof = true;
          break;
        }
        have += bytesRead;
      }
      buf = rest.length === 0 ? chunk.subarray(0, have) : Buffer.concat([rest, chunk.subarray(0, have)]);
      pos = 0;
    };
    for (;;) {
      signal?.throwIfAborted();
      await fill(4);
      if (buf.length - pos === 0) return;
      if (buf.length - pos < 4) throw new PaimonError('STORAGE_ERROR', `compaction spill file ${path} is truncated`);
      const len = buf.readUInt32LE(pos);
      await fill(4 + len);
      if (buf.length - pos < 4 + len) throw new PaimonError('STORAGE_ERROR', `compaction spill file ${path} is truncated`);
      const [seqs, kinds, values] = deserialize(buf.subarray(pos + 4, pos + 4 + len)) as [BigInt64Array, Uint8Array, InternalRow[]];
      pos += 4 + len;
      const out: KeyValue[] = new Array(values.length);
      for (let r = 0; r < values.length; r++) {
        const value = values[r];
        if (revive) {
          for (let c = 0; c < value.length; c++) {
            const rv = revivers[c];
            if (rv !== null) value[c] = rv(value[c]);
          }
        }
        const key: InternalRow = new Array(nKey);
        for (let k = 0; k < nKey; k++) key[k] = value[keyIndexes[k]];
        out[r] = { key, sequenceNumber: seqs[r], valueKind: kinds[r] as RowKindByte, value };
      }
      yield out;
    }
  } finally {
    await fh.close();
  }
}
