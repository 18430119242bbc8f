/**
 * Full-metadata read of one table, ours against Paimon Java, measured in the same run.
 *
 *   node --import tsx bench/metadata-read.ts [--snapshots 5000] [--entries 1000000] [--rounds 3] [--keep 1]
 *   node --import tsx bench/metadata-read.ts --reuse <warehouse> [--rounds 3]
 *
 * Builds an append table with our commit path (each commit adds entries/snapshots files; our commit
 * merges small base manifests as Java's ManifestFileMerger does), then reads every snapshot, every
 * distinct manifest list and every distinct manifest entry, streamed (nothing is kept), with our
 * library and with Paimon Java 1.4.2 (bench/java/MetadataRead.java, one JVM, same rounds). Prints
 * the medians and their ratio (ours / Java; target <= 1) and our peak heap during the read.
 * Needs the Java peer from tests/setup/paimon-java.sh (tests/interop/java/lib-1.4.2).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LocalFileIO } from '../src/paimon/local-file-io.js';
import { FileStoreCommit } from '../src/paimon/file-store-commit.js';
import { binaryFieldTypeFromSql, toBinaryRow } from '../src/paimon/binary-row.js';
import { toSimpleStats } from '../src/paimon/simple-stats.js';
import { newAppendFileMeta } from '../src/paimon/data-file-meta.js';
import type { ManifestEntry } from '../src/paimon/manifest-entry.js';
import { SnapshotManager } from '../src/paimon/snapshot-manager.js';

const args = new Map<string, string>();
for (let i = 2; i + 1 < process.argv.length; i += 2) args.set(process.argv[i].replace(/^--/, ''), process.argv[i + 1]);
const SNAPSHOTS = Number(args.get('snapshots') ?? 5000);
const ENTRIES = Number(args.get('entries') ?? 1_000_000);
const ROUNDS = Number(args.get('rounds') ?? 3);
const PER_COMMIT = Math.max(1, Math.round(ENTRIES / SNAPSHOTS));

const ROOT = resolve(import.meta.dirname, '..');
const JAVA_LIB = join(ROOT, 'tests', 'interop', 'java', 'lib-1.4.2');
if (!existsSync(JAVA_LIB)) throw new Error(`Paimon Java libraries missing (${JAVA_LIB}); run tests/setup/paimon-java.sh's install first`);

const STRING = binaryFieldTypeFromSql('STRING');
const BIGINT = binaryFieldTypeFromSql('BIGINT');

// --reuse <warehouse>: read a table built by an earlier run (kept with --keep) instead of building one.
const reuse = args.get('reuse');
const wh = reuse ?? mkdtempSync(join(process.env.TEST_TMP ?? tmpdir(), 'bench-meta-'));
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

const io = new LocalFileIO();
const commit = new FileStoreCommit({
  fileIO: io,
  tablePath: table,
  commitUser: 'bench',
  partitionFields: [{ name: 'dt', type: STRING }],
  bucketMode: 'BUCKET_UNAWARE',
});

if (!reuse) console.log(`building ${SNAPSHOTS} snapshots x ${PER_COMMIT} entries (load average ${loadavg().map((x) => x.toFixed(1)).join(' ')})`);
const t0 = performance.now();
let n = 0;
for (let s = 0; s < (reuse ? 0 : SNAPSHOTS); s++) {
  const entries: ManifestEntry[] = [];
  for (let i = 0; i < PER_COMMIT; i++, n++) {
    const file = newAppendFileMeta({
      fileName: `data-${String(n).padStart(8, '0')}-2b1c6f8e-5a77-4f0e-9d1a-7c3e2f1b0a9d-0.parquet`,
      fileSize: 1_000_000n + BigInt(n),
      rowCount: 1000n,
      valueStats: toSimpleStats([STRING, BIGINT, STRING], [
        { min: `2024-01-${String((n % 28) + 1).padStart(2, '0')}`, max: `2024-01-${String((n % 28) + 1).padStart(2, '0')}`, nullCount: 0n },
        { min: BigInt(n) * 1000n, max: BigInt(n) * 1000n + 999n, nullCount: 0n },
        { min: 'aaaa', max: 'zzzz-value', nullCount: 3n },
      ]),
      minSequenceNumber: BigInt(n) * 1000n,
      maxSequenceNumber: BigInt(n) * 1000n + 999n,
      schemaId: 0n,
    });
    entries.push({ kind: 'ADD', partition: toBinaryRow([STRING], [`2024-01-${String((n % 28) + 1).padStart(2, '0')}`]), bucket: 0, totalBuckets: -1, file });
  }
  await commit.commit({ kind: 'APPEND', deltaEntries: entries, commitIdentifier: BigInt(s) });
  if ((s + 1) % 500 === 0) console.log(`  ${s + 1} snapshots (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
}
if (!reuse) console.log(`built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

async function readOurs(): Promise<{ snapshots: number; lists: number; manifests: number; entries: number; ms: number; heapMb: number }> {
  const start = performance.now();
  const sm = new SnapshotManager(io, table);
  const seenLists = new Set<string>();
  const seenManifests = new Set<string>();
  let snapshots = 0;
  let lists = 0;
  let manifests = 0;
  let entries = 0;
  let heap = 0;
  for await (const s of sm.snapshots()) {
    snapshots++;
    for (const name of [s.baseManifestList, s.deltaManifestList]) {
      if (seenLists.has(name)) continue;
      seenLists.add(name);
      lists++;
      for (const m of await commit.manifestList.read(name)) {
        if (seenManifests.has(m.fileName)) continue;
        seenManifests.add(m.fileName);
        manifests++;
        for (const e of await commit.manifestFile.iterate(m.fileName)) {
          if (e.file.rowCount >= 0n) entries++;
        }
        if (manifests % 64 === 0) heap = Math.max(heap, process.memoryUsage().heapUsed);
      }
    }
  }
  return { snapshots, lists, manifests, entries, ms: performance.now() - start, heapMb: heap / 2 ** 20 };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ours: number[] = [];
let last = { snapshots: 0, lists: 0, manifests: 0, entries: 0, heapMb: 0 };
for (let r = 0; r < ROUNDS; r++) {
  const o = await readOurs();
  ours.push(o.ms);
  last = o;
}
const classes = mkdtempSync(join(tmpdir(), 'bench-classes-'));
execFileSync('javac', ['-nowarn', '-encoding', 'UTF-8', '-cp', `${JAVA_LIB}/*`, '-d', classes, join(ROOT, 'bench', 'java', 'MetadataRead.java')], { stdio: 'inherit' });
const out = execFileSync('java', ['-cp', `${classes}:${JAVA_LIB}/*`, 'MetadataRead', wh, 'bench', 't', String(ROUNDS)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 });
const java = JSON.parse(out.trim().split('\n').pop() ?? '{}') as { snapshots: number; lists: number; manifests: number; entries: number; millis: number[] };
if (java.entries !== last.entries || java.snapshots !== last.snapshots) {
  throw new Error(`Java read ${java.snapshots} snapshots / ${java.entries} entries, we read ${last.snapshots} / ${last.entries}`);
}
console.log(`table: ${last.snapshots} snapshots, ${last.lists} manifest lists, ${last.manifests} manifests, ${last.entries} entries`);
console.log(`ours  (ms per round): ${ours.map((x) => x.toFixed(0)).join(', ')}; peak heap during read ${last.heapMb.toFixed(0)} MiB`);
console.log(`java  (ms per round): ${java.millis.join(', ')}`);
console.log(`ratio ours/java (medians): ${(median(ours) / median(java.millis)).toFixed(2)}  (target <= 1; load average ${loadavg()[0].toFixed(1)})`);
rmSync(classes, { recursive: true, force: true });
if (!args.has('keep') && !reuse) rmSync(wh, { recursive: true, force: true });
else console.log(`kept ${wh}`);
