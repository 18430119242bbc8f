/**
 * expire_snapshots and remove_orphan_files through a Hive Metastore catalog and a REST catalog:
 * ours (the procedure executor over the proxy's own `hms` / `rest` catalog, as the proxy runs a
 * CALL) versus Paimon Java's ExpireSnapshots / LocalOrphanFilesClean on the table loaded through
 * the same catalog (PaimonTool `expire` / `orphan-clean` with the catalog options), in one run.
 * The approach is bench/procedures-maintenance.ts's; the catalogs are bench/catalog-peers.ts.
 *
 *   node --import tsx bench/catalogs.ts
 *
 * Env: BENCH_CATALOGS (comma-separated, of hms, rest-1.4.2, rest-2.0.0; default
 * hms,rest-1.4.2,rest-2.0.0), BENCH_SNAPSHOTS (snapshots expired, default 200), BENCH_RETAIN
 * (snapshots kept, default 10), BENCH_FILES_PER_SNAPSHOT (data files per commit, default 10),
 * BENCH_ORPHANS (old orphan files planted before remove_orphan_files, default 1000),
 * BENCH_ORPHAN_MEMORY_FILES (procedures.orphan_memory_files for our run; default the config's),
 * BENCH_KEEP=1 (keep the work directory - servers' data, tables - instead of deleting it at the end);
 * PAIMON_JAVA_CP_1_4, PAIMON_JAVA_CP_2_0, HIVE_CLIENT_CP, REST_CATALOG_CP_1_4, REST_CATALOG_CP_2_0,
 * JAVA_OPENS override what the setup scripts' `_start` functions export; the compiled-class
 * directories on those class paths are copied into the work directory first, so a tool
 * recompiled meanwhile does not change a run halfway through.
 *
 * Two twin tables per catalog, `t_java` and `t_ours`: the same history built twice through the
 * catalog by Paimon Java (PaimonTool `synth-history` in one JVM: an append table, 10 partitions,
 * BENCH_FILES_PER_SNAPSHOT empty data files per commit, every commit through the catalog's commit
 * path - the metastore lock, or the REST server's commit endpoint). Building twice rather than
 * copying a directory is what both catalogs allow without side doors: the REST server keeps each
 * table's identity and latest snapshot in memory, so a copied directory is not one of its tables. The
 * twins differ only in the UUIDs inside file names, so "same files left" compares the table trees
 * with UUIDs masked (the data file names keep their commit and file number: an exact match).
 *
 * Through the REST catalog both twins get an empty branch (`b1`, schema only, made through the
 * catalog) before remove_orphan_files: Paimon Java's LocalOrphanFilesClean fails through
 * Paimon's REST catalog on a table without branches (bench/catalog-peers.ts says why), so without
 * it there is nothing to compare with. Both sides then also clean the branch.
 *
 * Both sides run in their own process and time the operation in-process: Java's tool measures the
 * call to ExpireSnapshots / LocalOrphanFilesClean after loading the table through the catalog
 * (normal JIT); ours measures executor.run(), catalog lookup and table load included. Peak memory
 * is each process's peak RSS (VmHWM); the JVM runs with its default heap sizing, so its RSS is an
 * upper bound of what it needed, not like for like.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseJson } from '../src/paimon/spec/json.js';
import { measured, reportAndExit, type Measured } from './measured-child.js';
import { configSchema } from '../src/config-schema.js';
import { buildCatalogs } from '../src/catalogs.js';
import { ProcedureExecutor } from '../procedures/framework/executor.js';
import { ProcedureRegistry } from '../procedures/framework/registry.js';
import { expireSnapshots } from '../procedures/snapshots/expire-snapshots.js';
import { removeOrphanFiles } from '../procedures/files/remove-orphan-files.js';
import { ageTree, callNamed, firstRow, listTree, tempDir } from '../tests/interop/procedures-support.js';
import { CATALOG_KINDS, freezeClassPaths, setupEnv, startCatalogPeer, type CatalogKind, type CatalogPeer } from './catalog-peers.js';

const SELF = resolve(import.meta.filename);
const DB = 'interop';
const OLD = (Date.now() - 3 * 86_400_000) / 1000;

// ------------------------------------------------------------------ ours, in a child process
// `--ours expire <catalogJson> <table> <retainMin> <olderThanMillis>` / `--ours orphan <catalogJson>
// <table> <spillDir>`: one call through the executor over the catalog, printing
// {millis, peakRssBytes, peakHeapBytes, row} as the last stdout line.
if (process.argv[2] === '--ours') {
  const [, , , what, catalogJson, table, a, b] = process.argv;
  if (!catalogJson || !table) throw new Error('usage: --ours expire|orphan <catalogJson> <table> ...');
  const memoryFiles = process.env.BENCH_ORPHAN_MEMORY_FILES;
  const limits = what === 'orphan' ? { orphan_spill_dir: a, ...(memoryFiles ? { orphan_memory_files: Number(memoryFiles) } : {}) } : {};
  const config = configSchema.parse({ catalogs: [parseJson(catalogJson, 'catalog')], procedures: limits });
  const executor = new ProcedureExecutor({
    registry: new ProcedureRegistry([expireSnapshots, removeOrphanFiles]),
    catalogs: buildCatalogs(config),
    limits: config.procedures,
  });
  let peakHeap = 0;
  const sample = (): void => void (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed));
  const sampler = setInterval(sample, 20);
  const t0 = performance.now();
  let row: Record<string, unknown>;
  if (what === 'expire') {
    row = firstRow(await callNamed(executor, 'expire_snapshots', { table, retain_min: Number(a), max_deletes: 2147483647, older_than: String(b) }));
  } else if (what === 'orphan') {
    if (a) mkdirSync(a, { recursive: true });
    row = firstRow(await callNamed(executor, 'remove_orphan_files', { table }));
  } else {
    throw new Error(`unknown --ours operation ${String(what)}`);
  }
  const millis = performance.now() - t0;
  clearInterval(sampler);
  sample();
  reportAndExit({ millis, peakHeapBytes: peakHeap }, row);
}

// ------------------------------------------------------------------ child processes

const root = tempDir('bench-catalogs-');
const env = freezeClassPaths(await setupEnv(), root);
const OPENS = env.JAVA_OPENS.split(/\s+/).filter((x) => x !== '');

/** PaimonTool through the peer's catalog, with the JVM's normal JIT (no quick-start flags). */
function paimonTool(peer: CatalogPeer, args: string[]): Promise<Measured> {
  return measured(
    process.env.PAIMON_JAVA_BIN ?? 'java',
    [...OPENS, '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn', '-cp', peer.javaClassPath, 'PaimonTool', ...args],
    `PaimonTool ${args[0]}`,
    { env: { ...process.env, PAIMON_CATALOG_OPTIONS: JSON.stringify(peer.javaCatalogOptions) }, timeoutMs: 30 * 60_000 },
  );
}

function ours(peer: CatalogPeer, args: string[]): Promise<Measured> {
  const [what, ...rest] = args;
  return measured(process.execPath, ['--import', 'tsx', SELF, '--ours', what ?? '', JSON.stringify(peer.oursCatalog), ...rest], `ours ${String(what)}`, { timeoutMs: 30 * 60_000 });
}


const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** The table's files with the UUIDs in their names masked: equal for twins that did the same work. */
const shape = (dir: string): string[] => listTree(dir).map((f) => f.replace(UUID, 'U')).sort();
const sameShape = (a: string, b: string): boolean => JSON.stringify(shape(a)) === JSON.stringify(shape(b));
const snapshotIds = (dir: string): number[] =>
  readdirSync(join(dir, 'snapshot'))
    .filter((f) => f.startsWith('snapshot-'))
    .map((f) => Number(f.slice('snapshot-'.length)))
    .sort((x, y) => x - y);

const mib = (b: number | null): string => (b === null ? '?' : `${(b / 2 ** 20).toFixed(0)} MiB`);
const sec = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const load = (): string => loadavg().map((x) => x.toFixed(1)).join(' ');
const heap = (m: Measured): string => mib(typeof m.out.peakHeapBytes === 'number' ? m.out.peakHeapBytes : null);

// ------------------------------------------------------------------ the run
const SNAPSHOTS = Number(process.env.BENCH_SNAPSHOTS ?? 200);
const RETAIN = Number(process.env.BENCH_RETAIN ?? 10);
const PER_SNAPSHOT = Number(process.env.BENCH_FILES_PER_SNAPSHOT ?? 10);
const ORPHANS = Number(process.env.BENCH_ORPHANS ?? 1000);
const COMMITS = SNAPSHOTS + RETAIN;
const kinds = (process.env.BENCH_CATALOGS ?? CATALOG_KINDS.join(','))
  .split(',')
  .map((k) => k.trim())
  .filter((k) => k !== '');
for (const k of kinds) if (!CATALOG_KINDS.includes(k as CatalogKind)) throw new Error(`BENCH_CATALOGS: unknown catalog ${k} (one of ${CATALOG_KINDS.join(', ')})`);

console.log(`load average at start: ${load()}; work dir ${root}; ${COMMITS} commits x ${PER_SNAPSHOT} data files, retain ${RETAIN}, ${ORPHANS} orphans`);
const summary: string[] = [];
let failed = false;

async function benchCatalog(peer: CatalogPeer): Promise<void> {
  const [jt, ot] = ['t_java', 't_ours'] as const;
  const [jd, od] = [peer.tableDir(DB, jt), peer.tableDir(DB, ot)];
  console.log(`[${peer.label}] synthesizing ${COMMITS} commits x ${PER_SNAPSHOT} data files twice through the catalog (one JVM) ... (load ${load()})`);
  const batchFile = join(root, `synth-${peer.javaCatalogOptions.metastore}-${Date.now()}.json`);
  writeFileSync(batchFile, JSON.stringify([jt, ot].map((t) => ['synth-history', peer.javaWarehouse, DB, t, String(COMMITS), String(PER_SNAPSHOT), 'touch'])));
  const synth = await paimonTool(peer, ['batch', batchFile]);
  const results = synth.out.results as Array<{ ok: boolean; stdout: string; error?: string }>;
  for (const r of results) if (!r.ok) throw new Error(`synth-history through ${peer.label} failed: ${String(r.error)}`);
  const built = results.map((r) => parseJson(r.stdout.trim().split('\n').pop() ?? '', 'synth-history') as Record<string, unknown>);
  console.log(`  built in ${sec(synth.wallMs)}: ${built.map((b) => `${String(b.snapshots)} snapshots / ${String(b.dataFiles)} data files in ${sec(Number(b.millis))}`).join('; ')}`);
  if (!sameShape(jd, od)) throw new Error('the twin tables differ before any procedure ran');

  // --- expire_snapshots: all but the newest RETAIN ------------------------------------------
  const olderThan = String(Date.now());
  console.log(`[${peer.label}] expire_snapshots: Java ... (load ${load()})`);
  const javaExpire = await paimonTool(peer, ['expire', peer.javaWarehouse, DB, jt, String(RETAIN), '2147483647', olderThan, '2147483647']);
  console.log(`[${peer.label}] expire_snapshots: ours ... (load ${load()})`);
  const oursExpire = await ours(peer, ['expire', `${DB}.${ot}`, String(RETAIN), olderThan]);
  const er = oursExpire.out.row as Record<string, unknown>;
  const sameSnapshots = JSON.stringify(snapshotIds(jd)) === JSON.stringify(snapshotIds(od));
  const sameExpire = sameShape(jd, od);
  const [jxMs, oxMs] = [Number(javaExpire.out.millis), Number(oursExpire.out.millis)];
  const expireLine =
    `expire_snapshots: ${String(er.deleted_snapshots_count)} snapshots expired (Java: ${String(javaExpire.out.expired)}), ${String(er.deleted_files)} files deleted; ` +
    `ours ${sec(oxMs)} (wall ${sec(oursExpire.wallMs)}, peak RSS ${mib(oursExpire.peakRssBytes)}, peak heap ${heap(oursExpire)}), ` +
    `Java ${sec(jxMs)} (JVM wall ${sec(javaExpire.wallMs)}, peak RSS ${mib(javaExpire.peakRssBytes)}); ratio ours/Java = ${(oxMs / jxMs).toFixed(2)}; ` +
    `same snapshots left: ${sameSnapshots}; same files left: ${sameExpire}; load ${load()}`;
  console.log(`[${peer.label}] ${expireLine}`);
  summary.push(`[${peer.label}] ${expireLine}`);
  if (!sameSnapshots || !sameExpire) failed = true;

  // --- remove_orphan_files: the expired twins plus the same old orphans in both -------------
  if (peer.orphanCleanNeedsBranch) {
    // An empty branch (schema only) on both twins, created through the catalog: without one, Java's
    // orphan cleaning fails through this catalog (see CatalogPeer.orphanCleanNeedsBranch).
    const branchFile = join(root, `branch-${Date.now()}.json`);
    writeFileSync(branchFile, JSON.stringify([jt, ot].map((t) => ['create-branch', peer.javaWarehouse, DB, t, 'b1'])));
    const made = (await paimonTool(peer, ['batch', branchFile])).out.results as Array<{ ok: boolean; error?: string }>;
    for (const r of made) if (!r.ok) throw new Error(`create-branch through ${peer.label} failed: ${String(r.error)}`);
  }
  const partitions = readdirSync(jd).filter((d) => d.startsWith('dt=')).sort();
  if (partitions.length === 0) throw new Error('no partition directories in the synthesized table');
  for (const d of [jd, od]) {
    for (let i = 0; i < ORPHANS; i++) {
      const dir = join(d, partitions[i % partitions.length] ?? '', 'bucket-0');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `data-orphan-${i}.parquet`), 'x');
    }
  }
  const total = ageTree(jd, OLD);
  ageTree(od, OLD);
  const cutoff = String(Date.now() - 86_400_000);
  console.log(`[${peer.label}] remove_orphan_files: Java over ${total} files (${ORPHANS} orphans) ... (load ${load()})`);
  const javaOrphan = await paimonTool(peer, ['orphan-clean', peer.javaWarehouse, DB, jt, cutoff, 'false']);
  console.log(`[${peer.label}] remove_orphan_files: ours ... (load ${load()})`);
  const oursOrphan = await ours(peer, ['orphan', `${DB}.${ot}`, join(root, 'spill')]);
  const orow = oursOrphan.out.row as Record<string, unknown>;
  const left = listTree(od);
  const orphansLeft = left.filter((f) => f.includes('data-orphan-')).length;
  const sameCount = Number(orow.deletedFileCount) === Number(javaOrphan.out.deletedFileCount);
  const sameOrphan = sameShape(jd, od);
  const [joMs, ooMs] = [Number(javaOrphan.out.millis), Number(oursOrphan.out.millis)];
  const orphanLine =
    `remove_orphan_files: ${total} files, ${String(orow.deletedFileCount)} deleted (Java: ${String(javaOrphan.out.deletedFileCount)}), orphans left ${orphansLeft}; ` +
    `ours ${sec(ooMs)} (wall ${sec(oursOrphan.wallMs)}, peak RSS ${mib(oursOrphan.peakRssBytes)}, peak heap ${heap(oursOrphan)}), ` +
    `Java ${sec(joMs)} (JVM wall ${sec(javaOrphan.wallMs)}, peak RSS ${mib(javaOrphan.peakRssBytes)}); ratio ours/Java = ${(ooMs / joMs).toFixed(2)}; ` +
    `same files left: ${sameOrphan}; load ${load()}`;
  console.log(`[${peer.label}] ${orphanLine}`);
  summary.push(`[${peer.label}] ${orphanLine}`);
  if (!sameCount || !sameOrphan || orphansLeft !== 0) failed = true;
}

for (const kind of kinds as CatalogKind[]) {
  console.log(`starting ${kind} ... (load ${load()})`);
  const peer = await startCatalogPeer(kind, env, root);
  try {
    await benchCatalog(peer);
  } catch (e) {
    failed = true;
    const msg = `[${peer.label}] failed: ${e instanceof Error ? e.message : String(e)}`;
    console.log(msg);
    summary.push(msg);
  } finally {
    await peer.stop();
  }
}
console.log(`\nsummary (${COMMITS} commits x ${PER_SNAPSHOT} data files, retain ${RETAIN}, ${ORPHANS} orphans; load at end ${load()}):`);
for (const s of summary) console.log(`  ${s}`);
if (process.env.BENCH_KEEP === '1') console.log(`kept ${root}`);
else rmSync(root, { recursive: true, force: true });
if (failed) {
  console.log('the two sides did NOT do the same work somewhere above (or a run failed)');
  process.exitCode = 1;
}
