/**
 * Full-metadata read of one table, ours against Paimon Java, measured in the same run.
 *
 *   node --import tsx bench/metadata-read.ts [--snapshots 5000] [--entries 1000000] [--rounds 3] [--keep 1]
 *   node --import tsx bench/metadata-read.ts [--per-commit 200] ...   (files per commit instead of --entries)
 *   node --import tsx bench/metadata-read.ts --reuse <warehouse> [--rounds 3] [--only ours]   (--only ours: no Java, for profiling)
 *
 * The table: an append table (bucket -1, partitioned by a STRING day over 28 values) built with our
 * own commit path (FileStoreCommit: delta manifest, base + delta manifest lists, snapshot, LATEST
 * hint per commit, and the base manifests merged as Paimon's ManifestFileMerger does with its
 * defaults: a run of small manifests reaching `manifest.target-file-size` (8 MiB) or a trailing run
 * of `manifest.merge-min-count` (30) is rewritten as one). Each commit adds a few data files named
 * as a writer would name them (a fresh UUID per commit), with value stats on 3 columns. The build
 * writes files synchronously, without fsync or temp-file-and-rename (same bytes; see BuildFileIO).
 *
 * "A million manifest entries": the manifest files of the table hold 1,000,000 entries (records)
 * in total, counting every distinct manifest once (delta manifests and every merged rewrite that
 * some snapshot still references). That is the number of entries a full-metadata read decodes.
 * The files-per-commit rate is chosen (by simulating the merge) so that 5,000 snapshots reach it;
 * the live files of the latest snapshot are fewer and printed too. (With --per-commit 200, i.e. a
 * million LIVE files after 5,000 commits, Paimon's merging rewrites the growing base manifest
 * every ~30 commits until it reaches 8 MiB, and a full read decodes tens of millions of entries
 * (an estimate, not measured): a different, much larger benchmark.)
 *
 * "Full metadata": every snapshot file, every distinct manifest list (base and delta lists of every
 * snapshot) and every entry of every distinct manifest those lists name, streamed: nothing of a
 * manifest is kept after its entries were counted. Paimon Java 1.4.2 does the same in one JVM
 * (bench/java/MetadataRead.java, normal tiered JIT, same number of rounds, catalog cache off and
 * fresh readers per round, so no manifest is served from memory). Both sides also plan the latest snapshot (live
 * files after merging ADD/DELETE), which checks that Java reads the table we built. Our side
 * fetches up to --read-ahead (4) files ahead of the one it decodes; decoding is single-threaded on
 * both sides (Java's reader is sequential; its JIT and GC threads run alongside). Prints wall and
 * process CPU times per round, the ratios of their medians (ours / Java; target <= 1), our peak
 * heap and RSS, and the load average: on a shared machine the CPU ratio is the steadier figure.
 * Needs the Java peer from tests/setup/paimon-java.sh (tests/interop/java/lib-1.4.2).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { LocalFileIO } from '../src/paimon/fs/local-file-io.js';
import { FileStoreCommit } from '../src/paimon/table/file-store-commit.js';
import { binaryFieldTypeFromSql, toBinaryRow } from '../src/paimon/spec/binary-row.js';
import { toSimpleStats } from '../src/paimon/spec/simple-stats.js';
import { newAppendFileMeta } from '../src/paimon/spec/data-file-meta.js';
import type { ManifestEntry } from '../src/paimon/spec/manifest-entry.js';
import type { ManifestFileMeta } from '../src/paimon/spec/manifest-file-meta.js';
import type { Snapshot } from '../src/paimon/spec/snapshot.js';

const args = new Map<string, string>();
for (let i = 2; i + 1 < process.argv.length; i += 2) args.set(process.argv[i].replace(/^--/, ''), process.argv[i + 1]);
const SNAPSHOTS = Number(args.get('snapshots') ?? 5000);
const ENTRIES = Number(args.get('entries') ?? 1_000_000);
const ROUNDS = Number(args.get('rounds') ?? 3);
/** How many manifests are read ahead of the one being decoded. */
const READ_AHEAD = Number(args.get('read-ahead') ?? 4);
const MERGE_MIN_COUNT = 30;

/**
 * Total entries in distinct manifests after `snapshots` commits of `perCommit(s)` files each, under
 * the count trigger of Paimon's minor merge (every manifest stays far below 8 MiB at these sizes):
 * each commit's base list is the previous base + delta manifests, merged into one when >= 30.
 */
function simulateDistinct(snapshots: number, perCommit: (s: number) => number): number {
  let total = 0;
  let base: number[] = [];
  let delta = 0;
  for (let s = 0; s < snapshots; s++) {
    const previous = s === 0 ? [] : [...base, delta];
    if (previous.length >= MERGE_MIN_COUNT) {
      const merged = previous.reduce((a, b) => a + b, 0);
      total += merged;
      base = [merged];
    } else base = previous;
    delta = perCommit(s);
    total += delta;
  }
  return total;
}

/** Files added by commit s for an average rate (spread evenly: floor((s+1)r) - floor(s r)). */
const spread = (rate: number) => (s: number): number => Math.floor((s + 1) * rate) - Math.floor(s * rate);

let rate: number;
if (args.has('per-commit')) rate = Number(args.get('per-commit'));
else {
  // Smallest rate (to 1/1000) whose simulated distinct-entry total reaches ENTRIES.
  let lo = 0;
  let hi = Math.max(1, ENTRIES / SNAPSHOTS);
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (simulateDistinct(SNAPSHOTS, spread(mid)) >= ENTRIES) hi = mid;
    else lo = mid;
  }
  rate = Math.ceil(hi * 1000) / 1000;
}
const filesOf = spread(rate);

const ROOT = resolve(import.meta.dirname, '..');
const JAVA_LIB = join(ROOT, 'tests', 'interop', 'java', 'lib-1.4.2');
if (!existsSync(JAVA_LIB)) throw new Error(`Paimon Java libraries missing (${JAVA_LIB}); run tests/setup/paimon-java.sh's install first`);

const STRING = binaryFieldTypeFromSql('STRING');
const BIGINT = binaryFieldTypeFromSql('BIGINT');

// --reuse <warehouse>: read a table built by an earlier run (kept with --keep) instead of building one.
const reuse = args.get('reuse');
const wh = reuse !== undefined ? resolve(reuse) : mkdtempSync(join(process.env.TEST_TMP ?? tmpdir(), 'bench-meta-'));
const table = join(wh, 'bench.db', 't');
mkdirSync(join(table, 'schema'), { recursive: true });
if (!reuse) writeFileSync(
  join(table, 'schema', 'schema-0'),
  JSON.stringify(
    {
      version: 3,
      id: 0,
      fields: [
        { id: 0, name: 'dt', type: 'STRING' },
        { id: 1, name: 'id', type: 'BIGINT' },
        { id: 2, name: 'v', type: 'STRING' },
      ],
      highestFieldId: 2,
      partitionKeys: ['dt'],
      primaryKeys: [],
      options: { bucket: '-1', 'file.format': 'parquet' },
      timeMillis: Date.now(),
    },
    null,
    2,
  ),
);

/**
 * The build's storage: LocalFileIO writing synchronously, without the temp file, fsync and rename
 * (or link) that make each commit durable and atomic. The bytes are the same; a bench table does
 * not need to survive a crash, and on a shared machine the durable path made building 5,000
 * snapshots take many minutes of waiting for the disk. Snapshot files are still created only if
 * absent. Reads go through the ordinary LocalFileIO.
 */
class BuildFileIO extends LocalFileIO {
  override async writeFile(path: string, data: Buffer | string): Promise<void> {
    mkdirSync(dirname(path), { recursive: true });
    // A new file rather than a truncated one: ext4 flushes a file that is truncated and rewritten
    // (the LATEST hint, once per commit) to disk at close.
    rmSync(path, { force: true });
    writeFileSync(path, data);
  }

  override async tryCreateAtomic(path: string, data: Buffer | string): Promise<boolean> {
    mkdirSync(dirname(path), { recursive: true });
    try {
      writeFileSync(path, data, { flag: 'wx' });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
  }
}

const tableOf = (fileIO: LocalFileIO): FileStoreCommit =>
  new FileStoreCommit({
    fileIO,
    tablePath: table,
    commitUser: 'bench',
    partitionFields: [{ name: 'dt', type: STRING }],
    bucketMode: 'BUCKET_UNAWARE',
    latestSchemaId: async () => 0,
  });
const builder = tableOf(new BuildFileIO());
/** Our reading side (snapshot manager, manifest list and manifest readers) over the ordinary file IO. */
const commit = tableOf(new LocalFileIO());

const la = (): string => loadavg().map((x) => x.toFixed(1)).join(' ');
let buildSeconds = 0;
let buildCpuSeconds = 0;
if (!reuse) {
  const expected = simulateDistinct(SNAPSHOTS, filesOf);
  console.log(`building ${SNAPSHOTS} snapshots, ${rate} data files per commit on average (expected ${expected} entries in distinct manifests); load average ${la()}`);
  const t0 = performance.now();
  const buildCpu0 = process.cpuUsage();
  const baseTime = 1_790_000_000_000n;
  let n = 0;
  for (let s = 0; s < SNAPSHOTS; s++) {
    const writer = randomUUID();
    const entries: ManifestEntry[] = [];
    for (let i = 0, k = filesOf(s); i < k; i++, n++) {
      const day = `2024-01-${String((n % 28) + 1).padStart(2, '0')}`;
      const file = newAppendFileMeta({
        fileName: `data-${writer}-${i}.parquet`,
        fileSize: 1_000_000n + BigInt((n * 7919) % 500_000),
        rowCount: 1000n + BigInt(n % 97),
        valueStats: toSimpleStats([STRING, BIGINT, STRING], [
          { min: day, max: day, nullCount: 0n },
          { min: BigInt(n) * 1000n, max: BigInt(n) * 1000n + 999n, nullCount: 0n },
          { min: `a${(n * 31) % 1000}`, max: `z${(n * 17) % 1000}-value`, nullCount: BigInt(n % 5) },
        ]),
        minSequenceNumber: 0n,
        maxSequenceNumber: 999n,
        schemaId: 0n,
        creationTime: baseTime + BigInt(s) * 60_000n + BigInt(i),
      });
      entries.push({ kind: 'ADD', partition: toBinaryRow([STRING], [day]), bucket: 0, totalBuckets: -1, file });
    }
    await builder.commit({ kind: 'APPEND', deltaEntries: entries, commitIdentifier: BigInt(s) });
    if ((s + 1) % 500 === 0) console.log(`  ${s + 1} snapshots (${((performance.now() - t0) / 1000).toFixed(0)} s, load average ${la()})`);
  }
  buildSeconds = (performance.now() - t0) / 1000;
  const buildCpu = process.cpuUsage(buildCpu0);
  buildCpuSeconds = (buildCpu.user + buildCpu.system) / 1e6;
  console.log(`built in ${buildSeconds.toFixed(1)} s (CPU ${buildCpuSeconds.toFixed(1)} s)`);
}

interface ReadResult {
  /** CPU time of the whole process (all threads) during the round, ms. */
  cpuMs: number;
  snapshots: number;
  lists: number;
  manifests: number;
  entries: number;
  ms: number;
  heapMb: number;
}

/**
 * Every snapshot, every distinct manifest list, every entry of every distinct manifest, in snapshot
 * order. Files are fetched up to READ_AHEAD ahead of the one being decoded (file reads overlap the
 * decoding); entries are counted and dropped manifest by manifest.
 */
async function readOurs(): Promise<ReadResult> {
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  const seenLists = new Set<string>();
  const seenManifests = new Set<string>();
  let snapshots = 0;
  let lists = 0;
  let manifests = 0;
  let entries = 0;
  let heap = 0;
  // Manifest lists in snapshot order, read ahead.
  async function* manifestLists(): AsyncGenerator<ManifestFileMeta[]> {
    const pending: Promise<ManifestFileMeta[]>[] = [];
    for await (const s of commit.snapshotManager.snapshots()) {
      snapshots++;
      for (const name of [s.baseManifestList, s.deltaManifestList]) {
        if (seenLists.has(name)) continue;
        seenLists.add(name);
        lists++;
        const p = commit.manifestList.read(name);
        p.catch(() => undefined);
        pending.push(p);
        if (pending.length > READ_AHEAD) yield await (pending.shift() as Promise<ManifestFileMeta[]>);
      }
    }
    while (pending.length > 0) yield await (pending.shift() as Promise<ManifestFileMeta[]>);
  }
  const pending: Promise<Iterable<ManifestEntry>>[] = [];
  const drain = async (): Promise<void> => {
    for (const e of await (pending.shift() as Promise<Iterable<ManifestEntry>>)) if (e.file.rowCount >= 0n) entries++;
    if (++manifests % 64 === 0) heap = Math.max(heap, getHeapStatistics().used_heap_size);
  };
  for await (const metas of manifestLists()) {
    for (const m of metas) {
      if (seenManifests.has(m.fileName)) continue;
      seenManifests.add(m.fileName);
      const p = commit.manifestFile.iterate(m.fileName);
      p.catch(() => undefined);
      pending.push(p);
      if (pending.length > READ_AHEAD) await drain();
    }
  }
  while (pending.length > 0) await drain();
  heap = Math.max(heap, getHeapStatistics().used_heap_size);
  const cpu = process.cpuUsage(cpu0);
  return { snapshots, lists, manifests, entries, ms: performance.now() - start, cpuMs: (cpu.user + cpu.system) / 1000, heapMb: heap / 2 ** 20 };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ours: number[] = [];
let last: ReadResult = { snapshots: 0, lists: 0, manifests: 0, entries: 0, ms: 0, cpuMs: 0, heapMb: 0 };
const oursCpu: number[] = [];
let peakHeap = 0;
for (let r = 0; r < ROUNDS; r++) {
  const o = await readOurs();
  ours.push(o.ms);
  oursCpu.push(o.cpuMs);
  peakHeap = Math.max(peakHeap, o.heapMb);
  last = o;
}
const rssMb = process.resourceUsage().maxRSS / 1024;
if (args.get('only') === 'ours') {
  // Profiling aid (node --cpu-prof): our read only, no Java, no comparison.
  console.log(`ours only: ${JSON.stringify(last)}; rounds ${ours.map((x) => x.toFixed(0)).join(', ')} ms (CPU ${oursCpu.map((x) => x.toFixed(0)).join(', ')} ms); peak heap ${peakHeap.toFixed(0)} MiB, RSS ${rssMb.toFixed(0)} MiB`);
  process.exit(0);
}

// The latest snapshot's live files (both sides must agree: Java reads the table we built).
const latest = (await commit.snapshotManager.latestSnapshot()) as Snapshot;
const live = await commit.scan.readLiveEntries(latest);
let liveSize = 0n;
for (const e of live) liveSize += e.file.fileSize;

const classes = mkdtempSync(join(tmpdir(), 'bench-classes-'));
execFileSync('javac', ['-nowarn', '-encoding', 'UTF-8', '-cp', `${JAVA_LIB}/*`, '-d', classes, join(ROOT, 'bench', 'java', 'MetadataRead.java')], { stdio: 'inherit' });
const out = execFileSync('java', ['-cp', `${classes}:${JAVA_LIB}/*`, 'MetadataRead', wh, 'bench', 't', String(ROUNDS)], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'ignore'],
  maxBuffer: 64 << 20,
});
const java = JSON.parse(out.trim().split('\n').pop() ?? '{}') as {
  snapshots: number;
  lists: number;
  manifests: number;
  entries: number;
  millis: number[];
  cpuMillis: number[];
  liveFiles: number;
  liveFileSize: string;
};
if (java.entries !== last.entries || java.snapshots !== last.snapshots || java.lists !== last.lists || java.manifests !== last.manifests) {
  throw new Error(`Java read ${java.snapshots} snapshots / ${java.lists} lists / ${java.manifests} manifests / ${java.entries} entries, we read ${last.snapshots} / ${last.lists} / ${last.manifests} / ${last.entries}`);
}
if (java.liveFiles !== live.length || BigInt(java.liveFileSize) !== liveSize) {
  throw new Error(`Java plans ${java.liveFiles} live files (${java.liveFileSize} bytes), we plan ${live.length} (${liveSize} bytes)`);
}
console.log(`table: ${last.snapshots} snapshots, ${last.lists} manifest lists, ${last.manifests} manifests, ${last.entries} entries in them; latest snapshot: ${live.length} live files (Java agrees)`);
if (buildSeconds > 0) console.log(`build: ${buildSeconds.toFixed(1)} s (CPU ${buildCpuSeconds.toFixed(1)} s)`);
console.log(`ours  (ms per round): ${ours.map((x) => x.toFixed(0)).join(', ')}; peak heap during read ${peakHeap.toFixed(0)} MiB, peak RSS of the process ${rssMb.toFixed(0)} MiB`);
console.log(`java  (ms per round): ${java.millis.join(', ')}`);
console.log(`CPU time of the process per round (all threads: JIT, GC): ours ${oursCpu.map((x) => x.toFixed(0)).join(', ')} ms, java ${java.cpuMillis.join(', ')} ms`);
console.log(`ratio ours/java (medians of wall time): ${(median(ours) / median(java.millis)).toFixed(2)}  (target <= 1; load average ${la()})`);
console.log(`ratio ours/java (medians of CPU time):  ${(median(oursCpu) / median(java.cpuMillis)).toFixed(2)}`);
rmSync(classes, { recursive: true, force: true });
if (!args.has('keep') && !reuse) rmSync(wh, { recursive: true, force: true });
else console.log(`kept ${wh}`);
