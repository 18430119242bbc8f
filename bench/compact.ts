/**
 * Full compaction of one primary-key table, ours against Paimon Java's in-process compaction
 * (PaimonTool `compact`: `write.compact(partition, bucket, true)` per bucket), in the same run,
 * on two copies of the same table.
 *
 *   node --import tsx bench/compact.ts [--buckets 4] [--files 40] [--rows 5000] [--budget-mb 512] [--keep 1]
 *
 * The table (deduplicate, bucket = --buckets) is built with our writer and commit path: --files
 * level-0 files per bucket of --rows rows each, keys overlapping across files (each file covers a
 * random half of the bucket's key space), value columns a string, a bigint and a double. Prints
 * rows read per second and peak memory (ours: process RSS sampled every 20 ms; Java: peak heap
 * used as PaimonTool reports it) and their ratios, and checks that both compactions leave the
 * same number of rows. Needs the Java peer (tests/setup/paimon-java.sh).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileIO } from '../src/paimon/local-file-io.js';
import { FileStoreCommit } from '../src/paimon/file-store-commit.js';
import { KeyValueDataFileWriter } from '../src/paimon/data/parquet-writer.js';
import type { KeyValue } from '../src/paimon/data/internal-row.js';
import type { ManifestEntry } from '../src/paimon/manifest-entry.js';
import { BinaryRow } from '../src/paimon/binary-row.js';
import { compactTable } from '../src/paimon/compact/compact-table.js';
import { closeDataEngine } from '../src/paimon/data/duckdb-engine.js';
import { PaimonJava } from '../tests/interop/peers.js';

const args = new Map<string, string>();
for (let i = 2; i + 1 < process.argv.length; i += 2) args.set(process.argv[i].replace(/^--/, ''), process.argv[i + 1]);
const BUCKETS = Number(args.get('buckets') ?? 4);
const FILES = Number(args.get('files') ?? 40);
const ROWS = Number(args.get('rows') ?? 5000);
const BUDGET_MB = Number(args.get('budget-mb') ?? 512);
const KEYSPACE = ROWS * 4;

const wh = mkdtempSync(join(process.env.TEST_TMP ?? tmpdir(), 'bench-compact-'));
const oursWh = join(wh, 'ours');
const table = join(oursWh, 'bench.db', 't');
mkdirSync(join(table, 'schema'), { recursive: true });
const schema = {
  version: 3,
  id: 0,
  fields: [
    { id: 0, name: 'id', type: 'BIGINT NOT NULL' },
    { id: 1, name: 's', type: 'STRING' },
    { id: 2, name: 'n', type: 'BIGINT' },
    { id: 3, name: 'd', type: 'DOUBLE' },
  ],
  highestFieldId: 3,
  partitionKeys: [] as string[],
  primaryKeys: ['id'],
  options: { bucket: String(BUCKETS), 'file.format': 'parquet', 'write-only': 'true' },
  timeMillis: Date.now(),
};
writeFileSync(join(table, 'schema', 'schema-0'), JSON.stringify(schema, null, 2));

const io = new LocalFileIO();
const commit = new FileStoreCommit({ fileIO: io, tablePath: table, commitUser: 'bench', partitionFields: [], keyTypes: [{ root: 'BIGINT' }], bucketMode: 'HASH_FIXED' });
let rnd = 12345;
const rand = (): number => ((rnd = (rnd * 1103515245 + 12345) % 2147483648) / 2147483648);

console.log(`building ${BUCKETS} buckets x ${FILES} files x ${ROWS} rows (load average ${loadavg().map((x) => x.toFixed(1)).join(' ')})`);
const t0 = performance.now();
const seq = new Array<bigint>(BUCKETS).fill(0n);
for (let f = 0; f < FILES; f++) {
  const entries: ManifestEntry[] = [];
  for (let b = 0; b < BUCKETS; b++) {
    const start = Math.floor(rand() * KEYSPACE / 2);
    const ids = new Set<number>();
    while (ids.size < ROWS) ids.add(start + Math.floor(rand() * (KEYSPACE / 2)));
    const sorted = [...ids].sort((a, c) => a - c);
    const kvs: KeyValue[] = sorted.map((i) => {
      const id = BigInt(i * BUCKETS + b);
      return { key: [id], sequenceNumber: seq[b]++, valueKind: 0, value: [id, `value-${f}-${i}-${'x'.repeat(20)}`, BigInt(f * 1_000_000 + i), i / 7] };
    });
    const w = new KeyValueDataFileWriter({ fileIO: io, bucketDir: join(table, `bucket-${b}`), schema, level: 0, fileSource: 0, targetFileSize: 1 << 30 });
    await w.write(kvs);
    for (const m of await w.close()) entries.push({ kind: 'ADD', partition: BinaryRow.EMPTY_ROW, bucket: b, totalBuckets: BUCKETS, file: m });
  }
  await commit.commit({ kind: 'APPEND', deltaEntries: entries, commitIdentifier: BigInt(f) });
}
await closeDataEngine();
const bytes = (await commit.scan.readLiveEntries(await commit.snapshotManager.latestSnapshot())).reduce((s, e) => s + Number(e.file.fileSize), 0);
console.log(`built ${BUCKETS * FILES} files, ${(bytes / 2 ** 20).toFixed(1)} MiB of Parquet, ${BUCKETS * FILES * ROWS} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const javaWh = join(wh, 'java');
cpSync(oursWh, javaWh, { recursive: true });

// ---- ours
let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 20);
const baseRss = process.memoryUsage().rss;
const s0 = performance.now();
const r = await compactTable({ fileIO: io, tablePath: table, table: 'bench.t', strategy: 'full', memoryBudgetBytes: BUDGET_MB << 20, concurrency: 2 });
const oursMs = performance.now() - s0;
clearInterval(sampler);
await closeDataEngine();
const oursRowsPerSec = Number(r.rowsRead) / (oursMs / 1000);

// ---- Java (full JIT)
const java = new PaimonJava('1.4', { quickStart: false });
const j = await java.compact(javaWh, 'bench', 't', 'full');
const javaRowsPerSec = BUCKETS * FILES * ROWS / (j.millis / 1000);
const javaRead = (await java.read(javaWh, 'bench', 't')).length;
if (BigInt(javaRead) !== r.rowsWritten) throw new Error(`Java's compacted table reads ${javaRead} rows, ours wrote ${r.rowsWritten}`);

console.log(`ours: ${r.rowsRead} rows read, ${r.rowsWritten} written, ${r.filesBefore} -> ${r.filesAfter} files in ${(oursMs / 1000).toFixed(2)} s = ${oursRowsPerSec.toFixed(0)} rows/s; peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB (before: ${(baseRss / 2 ** 20).toFixed(0)} MiB; budget ${BUDGET_MB} MiB)`);
console.log(`java: ${(j.millis / 1000).toFixed(2)} s = ${javaRowsPerSec.toFixed(0)} rows/s; peak heap ${(Number(j.peakHeapBytes) / 2 ** 20).toFixed(0)} MiB`);
console.log(`ratios ours/java: throughput ${(oursRowsPerSec / javaRowsPerSec).toFixed(2)} (target >= 1), peak memory ${(peakRss / Number(j.peakHeapBytes)).toFixed(2)} (RSS vs Java heap); load average ${loadavg()[0].toFixed(1)}`);
if (!args.has('keep')) rmSync(wh, { recursive: true, force: true });
else console.log(`kept ${wh}`);
