/**
 * Streaming k-way merge of sorted runs (`SortMergeReaderWithMinHeap` + `MergeFunctionWrapper`):
 * each run is read file by file in batches (one open file per run at a time), records of equal
 * key are handed to the merge function in (sequence.field, sequence number) order and the merged
 * record is yielded. Memory holds one batch per run: batch sizes come from the caller's budget.
 */
import type { FileIO } from '../fs/file-io.js';
import type { DataFileMeta } from '../spec/data-file-meta.js';
import type { DataFieldSpec, FieldType } from '../data/field-type.js';
import type { TableSchemaLike } from '../data/data-file-layout.js';
import { readKeyValues } from '../data/parquet-reader.js';
import type { DataEngine } from '../data/duckdb-engine.js';
import { rowEvolution } from '../data/schema-evolution.js';
import { compareAtomic, compareRows, isRetract, type Datum, type KeyValue } from '../data/internal-row.js';
import type { MergeFunction } from './merge-function.js';

export interface RunSource {
  fileIO: FileIO;
  bucketDir: string;
  /** Schema of a data file by its `_SCHEMA_ID`. */
  schemaOf(id: bigint): Promise<TableSchemaLike & { fieldSpecs: DataFieldSpec[] }>;
  /** The schema the merged records follow (latest). */
  target: TableSchemaLike & { fieldSpecs: DataFieldSpec[] };
  /** Trimmed primary-key positions in the target fields. */
  keyIndexes: readonly number[];
  table: string;
  /** The DuckDB instance to read with (default: the shared one). */
  engine?: DataEngine | null;
}

/** Reads one sorted run (files in key order) as a stream of KeyValue batches, evolved to the target schema. */
export async function* readRun(src: RunSource, files: readonly DataFileMeta[], batchSize: number, signal?: AbortSignal): AsyncGenerator<KeyValue[]> {
  for (const f of files) {
    signal?.throwIfAborted();
    const schema = await src.schemaOf(BigInt(f.schemaId));
    const evolve = rowEvolution(schema.fieldSpecs, src.target.fieldSpecs, `${src.table} file ${f.fileName}`);
    for await (const batch of readKeyValues({ fileIO: src.fileIO, path: f.externalPath ?? `${src.bucketDir}/${f.fileName}`, schema, table: src.table, batchSize, engine: src.engine, lazyValues: true })) {
      if (evolve === null) yield batch;
      else {
        yield batch.map((kv) => {
          const value = evolve(kv.value);
          return { key: src.keyIndexes.map((i) => value[i]), sequenceNumber: kv.sequenceNumber, valueKind: kv.valueKind, value };
        });
      }
    }
  }
}

class Cursor {
  batch: KeyValue[] = [];
  pos = 0;
  constructor(readonly index: number, private readonly it: AsyncGenerator<KeyValue[]>) {}
  get current(): KeyValue {
    return this.batch[this.pos];
  }
  /** Moves to the next record; false at the end of the run. */
  async advance(): Promise<boolean> {
    this.pos++;
    while (this.pos >= this.batch.length) {
      const n = await this.it.next();
      if (n.done) return false;
      this.batch = n.value;
      this.pos = 0;
    }
    return true;
  }
  async close(): Promise<void> {
    await this.it.return(undefined);
  }
}

export interface MergeOrder {
  keyTypes: readonly FieldType[];
  /** `sequence.field` positions and types in the value (ascending), empty when not set. */
  sequenceFields: ReadonlyArray<{ index: number; type: FieldType }>;
}

export function recordComparator(order: MergeOrder): (a: KeyValue, b: KeyValue) => number {
  const keyTypes = order.keyTypes as FieldType[];
  return (a, b) => {
    const k = compareRows(keyTypes, a.key, b.key);
    if (k !== 0) return k;
    for (const s of order.sequenceFields) {
      const x = a.value[s.index] as Datum, y = b.value[s.index] as Datum;
      if (x === y) continue;
      if (x === null) return -1;
      if (y === null) return 1;
      const c = compareAtomic(s.type, x, y);
      if (c !== 0) return c;
    }
    return a.sequenceNumber < b.sequenceNumber ? -1 : a.sequenceNumber > b.sequenceNumber ? 1 : 0;
  };
}

/**
 * Merges the runs; yields merged records in key order. With `dropDelete`, merged retract
 * records are not yielded. `stats.read` counts input records.
 *
 * With no merge function (null), every input record is yielded, in merge order: key, then
 * `sequence.field`, then sequence number, equal records in run order. This is the order the
 * merge function would see them in, so merging contiguous groups of runs this way first (the
 * spill passes) and the results with the merge function afterwards gives the same records.
 */
export async function* mergeRuns(
  runs: ReadonlyArray<AsyncGenerator<KeyValue[]>>,
  order: MergeOrder,
  mergeFunction: MergeFunction | null,
  opts: { dropDelete: boolean; stats: { read: bigint }; signal?: AbortSignal; outBatch?: number },
): AsyncGenerator<KeyValue[]> {
  const cmp = recordComparator(order);
  const keyTypes = order.keyTypes as FieldType[];
  const heap: Cursor[] = [];
  const cursors = runs.map((r, i) => new Cursor(i, r));
  const less = (a: Cursor, b: Cursor): boolean => {
    const c = cmp(a.current, b.current);
    return c < 0 || (c === 0 && a.index < b.index);
  };
  const up = (i: number): void => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(heap[i], heap[p])) break;
      [heap[i], heap[p]] = [heap[p], heap[i]];
      i = p;
    }
  };
  const down = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < heap.length && less(heap[l], heap[m])) m = l;
      if (r < heap.length && less(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  try {
    for (const c of cursors) {
      c.pos = -1;
      if (await c.advance()) {
        heap.push(c);
        up(heap.length - 1);
      }
    }
    const outSize = opts.outBatch ?? 1024;
    let out: KeyValue[] = [];
    let n = 0;
    // Moves the top cursor to its next record and restores the heap.
    const step = async (top: Cursor): Promise<void> => {
      // Within a batch the cursor moves synchronously (no await per record); only the end of
      // a batch waits for the run's next one.
      if (top.pos + 1 < top.batch.length) {
        top.pos++;
        down(0);
      } else if (await top.advance()) down(0);
      else {
        const last = heap.pop()!;
        if (heap.length > 0) {
          heap[0] = last;
          down(0);
        }
      }
    };
    if (mergeFunction === null) {
      while (heap.length > 0) {
        if ((++n & 0xfff) === 0) opts.signal?.throwIfAborted();
        const top = heap[0];
        out.push(top.current);
        opts.stats.read++;
        if (top.pos + 1 < top.batch.length) {
          top.pos++;
          down(0);
        } else await step(top);
        if (out.length >= outSize) {
          yield out;
          out = [];
        }
      }
      if (out.length > 0) yield out;
      return;
    }
    while (heap.length > 0) {
      if ((++n & 0xfff) === 0) opts.signal?.throwIfAborted();
      mergeFunction.reset();
      const key = heap[0].current.key;
      while (heap.length > 0 && compareRows(keyTypes, heap[0].current.key, key) === 0) {
        const top = heap[0];
        mergeFunction.add(top.current);
        opts.stats.read++;
        if (top.pos + 1 < top.batch.length) {
          top.pos++;
          down(0);
        } else await step(top);
      }
      const r = mergeFunction.result();
      if (r !== null && !(opts.dropDelete && isRetract(r.valueKind))) {
        // Read the value now (lazily read records): the output batch must not hold the files' chunks.
        void r.value;
        out.push(r);
        if (out.length >= outSize) {
          yield out;
          out = [];
        }
      }
    }
    if (out.length > 0) yield out;
  } finally {
    await Promise.all(cursors.map((c) => c.close().catch(() => undefined)));
  }
}
