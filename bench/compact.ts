/**
 * Full compaction of one primary-key table, ours against Paimon Java's in-process full compaction,
 * in the same run, on copies of the same table written by Paimon Java.
 *
 *   node --import tsx bench/compact.ts [--buckets 4] [--files 40] [--rows-per-file 42000]
 *        [--value-chars 200] [--budget-mb 512] [--concurrency 1,2] [--node-heap-mb 0] [--java-heap-mb 1024]
 *        [--table <dir of a table built earlier with the same flags>] [--keep 1] [--columnar 0]
 *        [--merge-engine deduplicate|first-row] [--table-kind pk|append]
 *
 * The table (deduplicate, or --merge-engine first-row; id BIGINT primary key, s STRING, n BIGINT, d DOUBLE; bucket = --buckets,
 * parquet, write-only) is written by Paimon Java 1.4.2 itself (tests/interop/java/CompactBench.java
 * `write`): --files commits, each giving every bucket one level-0 file of about --rows-per-file
 * rows; each commit draws its keys from a random window of half the key space, so keys overlap
 * across files (about a tenth of the rows survive the merge). s is --value-chars pseudo-random
 * characters, so the Parquet bytes are real (~155 bytes a row; the defaults give about 1 GiB).
 *
 * With --table-kind append the table is an unaware-bucket append table of the same columns (no
 * primary key, bucket -1) of --files small files of about --rows-per-file rows each (one commit
 * each; --buckets is ignored), compacted by ours (compactTable full: AppendCompactCoordinator's
 * planning, the columnar rewrite of columnar-append.ts where it qualifies) and by Java
 * (CompactBench `compact`: AppendCompactCoordinator tasks run by AppendCompactTask.doCompact, as
 * Spark's CompactProcedure does); every row survives.
 *
 * Then, on separate copies:
 *   ours  — compactTable (strategy full, --budget-mb memory budget; --columnar 0 turns off the
 *           DuckDB merge of columnar-merge.ts, for an A/B run) in a child node process per
 *           --concurrency value and --node-heap-mb value (0: node's default heap sizing, else
 *           --max-old-space-size), so its peak RSS (sampled every 20 ms) is the compaction's alone;
 *   Java  — CompactBench `compact` with a normal JIT (no quick-start flags) and -Xmx --java-heap-mb:
 *           Paimon's BatchTableWrite.compact(partition, bucket, full=true) for every bucket, timed in
 *           the JVM (start-up excluded); Paimon runs compactions on one thread per writer.
 * Both results are read back by Paimon Java (CompactBench `digest`: row count and an
 * order-independent 64-bit digest of every row), which must equal the table's before compaction.
 * Prints rows read per second and peak memory (RSS for both; Java's peak heap too) and the ratios,
 * with the load average. Needs the Java peer (tests/setup/paimon-java.sh).
 *
 * How the budget is kept (src/paimon/compact/spill-merge.ts): the budget is split into a runtime
 * reserve, the compaction's own DuckDB instance (memory limit: its scans and the rows of the file
 * being written, evicted to disk beyond it)
 * and one share per bucket running at once; DuckDB holds about one Parquet row group per open scan
 * (~1.25x a 6.5 MiB file here), so a share opens at most share*0.55/scan-estimate sorted runs at
 * once (about 7 of the 40 at --budget-mb 512; at that budget a second bucket at once would get
 * too small a share, so buckets run one at a time whatever --concurrency says) and first merges the cheapest contiguous
 * groups of the others into temporary spill files (deduplicate and first-row merge there too; other
 * engines spill raw records), then merges the rest with the merge function. Records are made from
 * slices of DuckDB's chunks and their values are decoded only when read, so most of them die young
 * and a deduplicate merge never decodes what it supersedes.
 *
 * Before (session 2): peak RSS 1,102 MiB at --budget-mb 512 (the budget sized only JS batches; 40
 * open scans ~330 MiB; V8's heap grew to ~700 MiB of promoted records). Figures of this version:
 * see the report in the README (each with its load average: the machine is shared).
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalFileIO } from '../src/paimon/fs/local-file-io.js';
import { compactTable } from '../src/paimon/compact/compact-table.js';
import { setColumnarMerge } from '../src/paimon/compact/columnar-merge.js';
import { closeDataEngine } from '../src/paimon/data/duckdb-engine.js';
import { PaimonJava, parseJson } from '../tests/interop/peers.js';

const args = new Map<string, string>();
for (let i = 2; i + 1 < process.argv.length; i += 2) args.set(process.argv[i].replace(/^--/, ''), process.argv[i + 1]);
const num = (k: string, d: number): number => {
  const v = Number(args.get(k) ?? d);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${k} must be a positive number`);
  return v;
};

const MiB = 2 ** 20;
const mib = (b: number | bigint): string => (Number(b) / MiB).toFixed(0);

// ------------------------------------------------------------------ child: our compaction alone
if (args.has('ours-only')) {
  const tablePath = args.get('ours-only') as string;
  const budgetMb = num('budget-mb', 512);
  const concurrency = num('concurrency', 1);
  setColumnarMerge(args.get('columnar') !== '0');
  const io = new LocalFileIO();
  const baseRss = process.memoryUsage().rss;
  let peakRss = baseRss;
  let peakHeap = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed + m.external);
  }, 20);
  const s0 = performance.now();
  const r = await compactTable({ fileIO: io, tablePath, table: 'bench.t', strategy: 'full', memoryBudgetBytes: budgetMb * MiB, concurrency });
  const millis = performance.now() - s0;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  await closeDataEngine();
  process.stdout.write(
    JSON.stringify({
      millis,
      baseRss,
      peakRss,
      peakHeap,
      rowsRead: String(r.rowsRead),
      rowsWritten: String(r.rowsWritten),
      filesBefore: r.filesBefore,
      filesAfter: r.filesAfter,
      bytesBefore: String(r.bytesBefore),
      bytesAfter: String(r.bytesAfter),
      spillFiles: r.spill?.files ?? 0,
      spillRecords: String(r.spill?.records ?? 0n),
      spillBytes: String(r.spill?.bytes ?? 0n),
    }) + '\n',
  );
  process.exit(0);
}

// ------------------------------------------------------------------ parent
const BUCKETS = num('buckets', 4);
const FILES = num('files', 40);
const ROWS_PER_FILE = num('rows-per-file', 42_000);
const VALUE_CHARS = num('value-chars', 200);
/** The table's merge engine: deduplicate (default) or first-row (Java's writer then looks up every key it writes). */
const MERGE_ENGINE = args.get('merge-engine') ?? 'deduplicate';
if (MERGE_ENGINE !== 'deduplicate' && MERGE_ENGINE !== 'first-row') throw new Error('--merge-engine must be deduplicate or first-row');
const TABLE_KIND = args.get('table-kind') ?? 'pk';
if (TABLE_KIND !== 'pk' && TABLE_KIND !== 'append') throw new Error('--table-kind must be pk or append');
const BUDGET_MB = num('budget-mb', 512);
const JAVA_HEAP_MB = num('java-heap-mb', 1024);
const intList = (k: string, d: string, min: number): number[] =>
  (args.get(k) ?? d).split(',').map((x) => {
    const n = Number(x);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${k} takes integers >= ${min} separated by commas`);
    return n;
  });
const CONCURRENCY = intList('concurrency', '1,2', 1);
// V8 grows its heap lazily far beyond the live set (the merge's batches); 0 = node's default,
// otherwise the child runs with --max-old-space-size=<n> (what a deployment would set).
const NODE_HEAP_MB = intList('node-heap-mb', '0', 0);

const java = new PaimonJava('1.4', { quickStart: false });
const javaOpts = { timeoutMs: 3 * 3600_000, env: { JAVA_TOOL_OPTIONS: `-Xmx${JAVA_HEAP_MB}m` } };
const load = (): string => loadavg().map((x) => x.toFixed(1)).join(' ');

interface Digest {
  rows: number | bigint;
  digest: string;
  millis: number | bigint;
}
async function digest(wh: string): Promise<Digest> {
  const r = await java.runMain('CompactBench', ['digest', wh, 'bench', 't'], javaOpts);
  return parseJson(r.stdout.trim()) as unknown as Digest;
}

function parquetBytes(table: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const d of readdirSync(table)) {
    if (!d.startsWith('bucket-')) continue;
    for (const f of readdirSync(join(table, d))) {
      files++;
      bytes += statSync(join(table, d, f)).size;
    }
  }
  return { files, bytes };
}

const wh = mkdtempSync(join(process.env.TEST_TMP ?? tmpdir(), 'bench-compact-'));
let baseWh: string;
if (args.has('table')) {
  // a table built earlier (its warehouse is two levels up: <wh>/bench.db/t)
  const t = args.get('table') as string;
  if (!existsSync(join(t, 'snapshot'))) throw new Error(`--table ${t}: no snapshot directory`);
  baseWh = dirname(dirname(t));
  console.log(`reusing ${t}`);
} else {
  baseWh = join(wh, 'base');
  mkdirSync(baseWh);
  const append = TABLE_KIND === 'append';
  console.log(
    append
      ? `building with Paimon Java 1.4.2: unaware-bucket append table, ${FILES} files x ~${ROWS_PER_FILE} rows, s of ${VALUE_CHARS} chars (load average ${load()})`
      : `building with Paimon Java 1.4.2: ${BUCKETS} buckets x ${FILES} files x ~${ROWS_PER_FILE} rows, s of ${VALUE_CHARS} chars (load average ${load()})`,
  );
  const w = await java.runMain(
    'CompactBench',
    ['write', baseWh, 'bench', 't', String(BUCKETS), String(FILES), String(append ? ROWS_PER_FILE : ROWS_PER_FILE * BUCKETS), String(VALUE_CHARS), '12345', append ? 'append' : MERGE_ENGINE],
    javaOpts,
  );
  const wr = parseJson(w.stdout.trim()) as { rowsWritten: number | bigint; millis: number | bigint };
  console.log(`  Java wrote ${wr.rowsWritten} rows in ${(Number(wr.millis) / 1000).toFixed(1)} s`);
}
const baseTable = join(baseWh, 'bench.db', 't');
const built = parquetBytes(baseTable);
console.log(`table: ${built.files} data files, ${(built.bytes / MiB).toFixed(1)} MiB of Parquet`);
const before = await digest(baseWh);
console.log(`Java reads ${before.rows} merged rows before compaction (digest ${before.digest}, ${(Number(before.millis) / 1000).toFixed(1)} s)`);

function runOurs(table: string, concurrency: number, heapMb: number): Promise<Record<string, string | number>> {
  const self = fileURLToPath(import.meta.url);
  return new Promise((resolveP, reject) => {
    const child = spawn(process.execPath, [...(heapMb > 0 ? [`--max-old-space-size=${heapMb}`] : []), '--import', 'tsx', self, '--ours-only', table, '--budget-mb', String(BUDGET_MB), '--concurrency', String(concurrency), '--columnar', args.get('columnar') ?? '1'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`our compaction exited with ${code}`));
      else resolveP(JSON.parse(out.trim().split('\n').pop() as string) as Record<string, string | number>);
    });
  });
}

const failures: string[] = [];
const oursRuns: { label: string; rowsPerSec: number; peakRss: number; r: Record<string, string | number> }[] = [];
for (const heapMb of NODE_HEAP_MB) for (const c of CONCURRENCY) {
  const label = `${TABLE_KIND === 'append' ? 'append table, ' : ''}concurrency ${c}, ${heapMb > 0 ? `node --max-old-space-size=${heapMb}` : 'node default heap'}${args.get('columnar') === '0' ? ', columnar merge off' : ''}`;
  const copy = join(wh, `ours-${c}-${heapMb}`);
  cpSync(baseWh, copy, { recursive: true });
  const la = load();
  const r = await runOurs(join(copy, 'bench.db', 't'), c, heapMb);
  const rowsPerSec = Number(r.rowsRead) / (Number(r.millis) / 1000);
  oursRuns.push({ label, rowsPerSec, peakRss: Number(r.peakRss), r });
  const after = await digest(copy);
  const same = after.rows === before.rows && after.digest === before.digest;
  if (!same) failures.push(`ours (${label}): Java reads ${after.rows} rows digest ${after.digest}, expected ${before.rows} ${before.digest}`);
  console.log(
    `ours (${label}): ${r.rowsRead} rows read, ${r.rowsWritten} written, ${r.filesBefore} -> ${r.filesAfter} files ` +
      `(${mib(Number(r.bytesBefore))} -> ${mib(Number(r.bytesAfter))} MiB) in ${(Number(r.millis) / 1000).toFixed(1)} s = ${rowsPerSec.toFixed(0)} rows/s; ` +
      `peak RSS ${mib(Number(r.peakRss))} MiB, peak JS heap+external ${mib(Number(r.peakHeap))} MiB (at start ${mib(Number(r.baseRss))}; budget ${BUDGET_MB} MiB); ` +
      `spilled ${r.spillRecords} records in ${r.spillFiles} files (${mib(Number(r.spillBytes))} MiB); Java reads it back: ${same ? 'same rows' : 'DIFFERENT'}; load before ${la}, after ${load()}`,
  );
  rmSync(copy, { recursive: true, force: true });
}

const javaWh = join(wh, 'java');
cpSync(baseWh, javaWh, { recursive: true });
const la = load();
const jr = await java.runMain('CompactBench', ['compact', javaWh, 'bench', 't'], javaOpts);
const j = parseJson(jr.stdout.trim()) as { millis: number | bigint; peakHeapBytes: number | bigint; peakRssBytes: number | bigint; maxHeapBytes: number | bigint };
const javaRowsRead = Number(oursRuns[0]?.r.rowsRead ?? 0);
const javaRowsPerSec = javaRowsRead / (Number(j.millis) / 1000);
const jAfter = await digest(javaWh);
const jSame = jAfter.rows === before.rows && jAfter.digest === before.digest;
if (!jSame) failures.push(`Java's compaction: reads ${jAfter.rows} rows digest ${jAfter.digest}, expected ${before.rows} ${before.digest}`);
const jFiles = parquetBytes(join(javaWh, 'bench.db', 't'));
console.log(
  `java 1.4.2 (full JIT, -Xmx${JAVA_HEAP_MB}m, one compaction thread): ${(Number(j.millis) / 1000).toFixed(1)} s = ${javaRowsPerSec.toFixed(0)} rows/s ` +
    `(same ${javaRowsRead} input rows); peak heap ${mib(j.peakHeapBytes)} MiB, peak RSS ${mib(j.peakRssBytes)} MiB; reads back: ${jSame ? 'same rows' : 'DIFFERENT'}; ` +
    `${jFiles.files} files on disk after (old ones kept); load before ${la}`,
);
for (const o of oursRuns) {
  console.log(
    `ratios ours(${o.label})/java: throughput ${(o.rowsPerSec / javaRowsPerSec).toFixed(2)} (target >= 1), ` +
      `peak RSS ${(o.peakRss / Number(j.peakRssBytes)).toFixed(2)}; ours within budget: ${o.peakRss <= BUDGET_MB * MiB ? 'yes' : 'NO'} (${mib(o.peakRss)}/${BUDGET_MB} MiB)`,
  );
}
console.log(`load average at the end ${load()}`);
if (!args.has('keep')) rmSync(wh, { recursive: true, force: true });
else console.log(`kept ${wh}`);
if (failures.length > 0) {
  console.error(failures.join('\n'));
  process.exit(1);
}
