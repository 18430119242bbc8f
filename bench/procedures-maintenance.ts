/**
 * expire_snapshots and remove_orphan_files at scale: ours (through the procedure executor, as
 * the proxy runs a CALL) versus Paimon Java's own ExpireSnapshotsImpl / LocalOrphanFilesClean
 * (PaimonTool `expire` / `orphan-clean`), on identical copies of one table, in the same run.
 *
 *   node --import tsx bench/procedures-maintenance.ts
 *
 * Env: BENCH_SNAPSHOTS (snapshots expired, default 2000), BENCH_FILES (files in the table
 * directory when remove_orphan_files runs, default 200000), BENCH_ORPHANS (of which orphans,
 * default 10000), BENCH_RETAIN (snapshots kept, default 10), PAIMON_JAVA_CP_1_4 (class path of
 * the Java peer; point it at a frozen copy of lib-classes-1.4.2 while others may recompile it),
 * BENCH_ORPHAN_ROUNDS (default 1: remove_orphan_files rounds, Java and ours alternating on fresh
 * copies, to spread a busy machine's load over both), BENCH_REUSE (the work directory of an
 * earlier run: its synthesized and expired table are reused, only remove_orphan_files runs),
 * BENCH_ORPHAN_MEMORY_FILES (procedures.orphan_memory_files for our runs; default the config's),
 * BENCH_LARGE_FILES (default 1000000; 0 skips: after the rounds, a copy of the table is padded
 * with empty old orphan files up to this many files, spread over new bucket directories, and
 * remove_orphan_files runs on it once - ours always, Java too with BENCH_LARGE_JAVA=1 - to show
 * that our memory does not grow with the file count past the threshold; the copy is deleted
 * afterwards).
 *
 * Memory of our runs: peak RSS (VmHWM) and peak V8 heap used (sampled every 20 ms inside the
 * child), and whether the candidates spilled to temp files (a paimon-orphans-* directory seen
 * under the spill directory while it ran).
 *
 * The history is synthesized in ONE JVM through Paimon's own commit path (PaimonTool
 * `synth-history`: an append table, 10 partitions, `filesPerSnapshot` data files per commit,
 * each created empty on disk). Neither procedure reads data files (expiry and orphan cleaning
 * read snapshots, manifest lists and manifests, which are real), so empty data files are enough.
 *
 * Both sides run in their own process and time the operation in-process: Java's tool measures
 * the call to ExpireSnapshots / LocalOrphanFilesClean after loading the table (normal JIT, no
 * quick-start flags); ours measures executor.run() (catalog lookup and table load included).
 * Peak memory is each process's peak RSS (VmHWM); the JVM runs with its default heap sizing,
 * so its RSS is an upper bound of what it needed, not like for like.
 */
import { closeSync, mkdirSync, openSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { measured, reportAndExit, type Measured } from './measured-child.js';
import { expireSnapshots } from '../procedures/snapshots/expire-snapshots.js';
import { removeOrphanFiles } from '../procedures/files/remove-orphan-files.js';
import { ageTree, callNamed, copyWarehouse, executorFor, firstRow, listTree, tempDir } from '../tests/interop/procedures-support.js';

const SELF = resolve(import.meta.filename);
const TABLE = 'interop.db/t';
const OLD = (Date.now() - 3 * 86_400_000) / 1000;

// ------------------------------------------------------------------ ours, in a child process
// `--ours expire <wh> <retainMin> <olderThanMillis>` / `--ours orphan <wh>`: one call through the
// executor, printing {millis, peakRssBytes, row} as the last stdout line.
if (process.argv[2] === '--ours') {
  const [, , , what, wh, a, b] = process.argv;
  if (!wh) throw new Error('usage: --ours expire|orphan <warehouse> ...');
  let row: Record<string, unknown>;
  let peakHeap = 0;
  let spilled = false;
  const spillDir = join(wh, '..', 'spill');
  const sample = (): void => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    if (what === 'orphan' && !spilled) {
      try {
        spilled = readdirSync(spillDir).some((n) => n.startsWith('paimon-orphans-'));
      } catch {
        // not created yet
      }
    }
  };
  const sampler = setInterval(sample, 20);
  const t0 = performance.now();
  if (what === 'expire') {
    const ex = executorFor(wh, [expireSnapshots]);
    row = firstRow(await callNamed(ex, 'expire_snapshots', { table: 'interop.t', retain_min: Number(a), max_deletes: 2147483647, older_than: String(b) }));
  } else if (what === 'orphan') {
    mkdirSync(spillDir, { recursive: true });
    const memoryFiles = process.env.BENCH_ORPHAN_MEMORY_FILES;
    const ex = executorFor(wh, [removeOrphanFiles], { orphan_spill_dir: spillDir, ...(memoryFiles ? { orphan_memory_files: Number(memoryFiles) } : {}) });
    row = firstRow(await callNamed(ex, 'remove_orphan_files', { table: 'interop.t' }));
  } else {
    throw new Error(`unknown --ours operation ${String(what)}`);
  }
  const millis = performance.now() - t0;
  clearInterval(sampler);
  sample();
  reportAndExit({ millis, peakHeapBytes: peakHeap, spilled }, row);
}

// ------------------------------------------------------------------ child processes

const JAVA_DIR = resolve(import.meta.dirname, '../tests/interop/java');
const JAVA_CP = process.env.PAIMON_JAVA_CP_1_4 ?? `${JAVA_DIR}/lib-classes-1.4.2:${JAVA_DIR}/lib-1.4.2/*`;
const OPENS = (process.env.JAVA_OPENS ?? '').split(/\s+/).filter((x) => x !== '');

/** PaimonTool with the JVM's normal JIT (no quick-start flags). */
function paimonTool(args: string[]): Promise<Measured> {
  return measured(process.env.PAIMON_JAVA_BIN ?? 'java', [...OPENS, '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn', '-cp', JAVA_CP, 'PaimonTool', ...args], `PaimonTool ${args[0]}`);
}

function ours(args: string[]): Promise<Measured> {
  return measured(process.execPath, ['--import', 'tsx', SELF, '--ours', ...args], `ours ${args[0]}`);
}


const mib = (b: number | null): string => (b === null ? '?' : `${(b / 2 ** 20).toFixed(0)} MiB`);
const oursMemory = (m: Measured): string =>
  `peak RSS ${mib(m.peakRssBytes)}, peak heap ${mib(typeof m.out.peakHeapBytes === 'number' ? m.out.peakHeapBytes : null)}${m.out.spilled === true ? ', spilled' : ', in memory'}`;
const sec = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const load = (): string => loadavg().map((x) => x.toFixed(1)).join(' ');

// ------------------------------------------------------------------ the run
const SNAPSHOTS = Number(process.env.BENCH_SNAPSHOTS ?? 2000);
const RETAIN = Number(process.env.BENCH_RETAIN ?? 10);
const FILES = Number(process.env.BENCH_FILES ?? 200_000);
const ORPHANS = Number(process.env.BENCH_ORPHANS ?? 10_000);
const COMMITS = SNAPSHOTS + RETAIN;
const PER_SNAPSHOT = Math.max(1, Math.round((FILES - ORPHANS) / COMMITS));

const reuse = process.env.BENCH_REUSE;
const root = reuse ?? tempDir('bench-procs-');
const origin = join(root, 'origin');
console.log(`load average at start: ${load()}; work dir ${root}`);
const [jx, ox] = ['java', 'ours'].map((n) => join(root, `expire-${n}`)) as [string, string];
if (!reuse) {
  console.log(`synthesizing ${COMMITS} commits x ${PER_SNAPSHOT} data files (Paimon 1.4.2, one JVM) ...`);
  const synth = await paimonTool(['synth-history', origin, 'interop', 't', String(COMMITS), String(PER_SNAPSHOT), 'touch']);
  console.log(`  built in ${sec(synth.wallMs)}: ${String(synth.out.snapshots)} snapshots, ${String(synth.out.dataFiles)} data files`);

  // --- expire_snapshots: all but the newest RETAIN ------------------------------------------
  for (const d of [jx, ox]) copyWarehouse(origin, d);
  const olderThan = String(Date.now());
  console.log(`expire_snapshots: Java ... (load ${load()})`);
  const javaExpire = await paimonTool(['expire', jx, 'interop', 't', String(RETAIN), '2147483647', olderThan, '2147483647']);
  console.log(`expire_snapshots: ours ... (load ${load()})`);
  const oursExpire = await ours(['expire', ox, String(RETAIN), olderThan]);
  const er = oursExpire.out.row as Record<string, unknown>;
  const sameExpire = JSON.stringify(listTree(join(ox, TABLE))) === JSON.stringify(listTree(join(jx, TABLE)));
  const jxMs = Number(javaExpire.out.millis);
  const oxMs = Number(oursExpire.out.millis);
  console.log(
    `expire_snapshots: ${String(er.deleted_snapshots_count)} snapshots expired (Java: ${String(javaExpire.out.expired)}), ${String(er.deleted_files)} files deleted; ` +
      `ours ${sec(oxMs)} (peak RSS ${mib(oursExpire.peakRssBytes)}), Java ${sec(jxMs)} (JVM wall ${sec(javaExpire.wallMs)}, peak RSS ${mib(javaExpire.peakRssBytes)}); ` +
      `ratio ours/Java = ${(oxMs / jxMs).toFixed(2)}; same files left: ${sameExpire}; load ${load()}`,
  );
}

// --- remove_orphan_files: the expired table plus planted orphans -------------------------
const ROUNDS = Math.max(1, Number(process.env.BENCH_ORPHAN_ROUNDS ?? 1));
const staged = join(root, 'orphan-staged');
rmSync(staged, { recursive: true, force: true });
copyWarehouse(jx, staged);
const partitions = readdirSync(join(staged, TABLE)).filter((d) => d.startsWith('dt='));
if (partitions.length === 0) throw new Error('no partition directories in the synthesized table');
for (let i = 0; i < ORPHANS; i++) {
  const dir = join(staged, TABLE, partitions[i % partitions.length] ?? '', 'bucket-0');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `data-orphan-${i}.parquet`), 'x');
}
const total = ageTree(join(staged, TABLE), OLD);
const javaMs: number[] = [];
const oursMs: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const [jo, oo] = ['java', 'ours'].map((n) => join(root, `orphan-${n}`)) as [string, string];
  for (const d of [jo, oo]) {
    rmSync(d, { recursive: true, force: true });
    copyWarehouse(staged, d);
  }
  const cutoff = String(Date.now() - 86_400_000);
  // Alternate who goes first, so a load spike is not always on the same side.
  const runJava = async (): Promise<Measured> => {
    console.log(`remove_orphan_files round ${round + 1}: Java over ${total} files (${ORPHANS} orphans) ... (load ${load()})`);
    return paimonTool(['orphan-clean', jo, 'interop', 't', cutoff, 'false']);
  };
  const runOurs = async (): Promise<Measured> => {
    console.log(`remove_orphan_files round ${round + 1}: ours ... (load ${load()})`);
    return ours(['orphan', oo]);
  };
  let javaOrphan: Measured;
  let oursOrphan: Measured;
  if (round % 2 === 0) {
    javaOrphan = await runJava();
    oursOrphan = await runOurs();
  } else {
    oursOrphan = await runOurs();
    javaOrphan = await runJava();
  }
  const orow = oursOrphan.out.row as Record<string, unknown>;
  const left = listTree(join(oo, TABLE));
  const sameOrphan = JSON.stringify(left) === JSON.stringify(listTree(join(jo, TABLE)));
  const orphansLeft = left.filter((f) => f.includes('data-orphan-')).length;
  const joMs = Number(javaOrphan.out.millis);
  const ooMs = Number(oursOrphan.out.millis);
  javaMs.push(joMs);
  oursMs.push(ooMs);
  console.log(
    `remove_orphan_files: ${total} files, ${String(orow.deletedFileCount)} deleted (Java: ${String(javaOrphan.out.deletedFileCount)}), orphans left ${orphansLeft}; ` +
      `ours ${sec(ooMs)} (${oursMemory(oursOrphan)}), Java ${sec(joMs)} (JVM wall ${sec(javaOrphan.wallMs)}, peak RSS ${mib(javaOrphan.peakRssBytes)}); ` +
      `ratio ours/Java = ${(ooMs / joMs).toFixed(2)}; same files left: ${sameOrphan}; load ${load()}`,
  );
}
if (ROUNDS > 1) {
  const median = (xs: number[]): number => {
    const s = [...xs].sort((x, y) => x - y);
    const m = Math.floor(s.length / 2);
    return s.length % 2 === 1 ? (s[m] ?? NaN) : ((s[m - 1] ?? NaN) + (s[m] ?? NaN)) / 2;
  };
  console.log(`remove_orphan_files over ${ROUNDS} rounds: median ours ${sec(median(oursMs))}, Java ${sec(median(javaMs))}, ratio of medians ${(median(oursMs) / median(javaMs)).toFixed(2)}`);
}

// --- remove_orphan_files at a larger scale: the same table padded with old empty orphans ----
const LARGE = Number(process.env.BENCH_LARGE_FILES ?? 1_000_000);
if (LARGE > total) {
  const large = join(root, 'orphan-large');
  rmSync(large, { recursive: true, force: true });
  rmSync(join(root, 'spill'), { recursive: true, force: true });
  copyWarehouse(staged, large);
  const extra = LARGE - total;
  // 10 new bucket directories per partition, so the listing has many directories to spread.
  const dirs: string[] = [];
  for (const p of partitions) for (let b = 1; b <= 10; b++) dirs.push(join(large, TABLE, p, `bucket-${b}`));
  for (const d of dirs) mkdirSync(d, { recursive: true });
  console.log(`large scale: planting ${extra} empty orphan files in ${dirs.length} bucket directories ... (load ${load()})`);
  for (let i = 0; i < extra; i++) closeSync(openSync(join(dirs[i % dirs.length] ?? '', `data-pad-${i}.parquet`), 'w', 0o644));
  for (const d of dirs) ageTree(d, OLD);
  let javaLarge: Measured | null = null;
  if (process.env.BENCH_LARGE_JAVA === '1') {
    const jl = join(root, 'orphan-large-java');
    rmSync(jl, { recursive: true, force: true });
    copyWarehouse(large, jl);
    console.log(`remove_orphan_files large: Java over ${LARGE} files ... (load ${load()})`);
    javaLarge = await paimonTool(['orphan-clean', jl, 'interop', 't', String(Date.now() - 86_400_000), 'false']);
    rmSync(jl, { recursive: true, force: true });
  }
  console.log(`remove_orphan_files large: ours over ${LARGE} files ... (load ${load()})`);
  const oursLarge = await ours(['orphan', large]);
  const lrow = oursLarge.out.row as Record<string, unknown>;
  const left = listTree(join(large, TABLE));
  const padLeft = left.filter((f) => f.includes('data-pad-') || f.includes('data-orphan-')).length;
  const ms = Number(oursLarge.out.millis);
  console.log(
    `remove_orphan_files large: ${LARGE} files, ${String(lrow.deletedFileCount)} deleted, orphans left ${padLeft}; ours ${sec(ms)} (${oursMemory(oursLarge)})` +
      (javaLarge
        ? `, Java ${sec(Number(javaLarge.out.millis))} (peak RSS ${mib(javaLarge.peakRssBytes)}, deleted ${String(javaLarge.out.deletedFileCount)}); ratio ours/Java = ${(ms / Number(javaLarge.out.millis)).toFixed(2)}`
        : '') +
      `; load ${load()}`,
  );
  rmSync(large, { recursive: true, force: true });
  rmSync(join(root, 'spill'), { recursive: true, force: true });
}
