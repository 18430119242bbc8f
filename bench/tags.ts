/**
 * delete_tag and expire_tags at scale: ours (through the procedure executor) versus Paimon
 * Java's own Table.deleteTags and TagTimeExpire (tests/interop/java/TagTool.java, full JIT), on
 * identical copies of one table, in the same run; prints the times and the ratio.
 *
 *   node --import tsx bench/tags.ts
 *
 * Env: BENCH_SNAPSHOTS (default 5000), BENCH_TAGS (default 500: one every SNAPSHOTS/TAGS
 * snapshots), BENCH_DELETE (tags deleted by the delete_tag call, default 50), BENCH_RETAIN
 * (snapshots left after expiry, default 10), BENCH_VERSION ('1.4' | '2.0', default '2.0').
 *
 * The history is synthesized in ONE JVM through Paimon's own commit path (PaimonTool
 * `synth-history`: an append table, two data files per commit), tagged and expired there, so
 * that every tag but the newest sits on an expired snapshot and deleting it cleans files. Java's
 * times are measured inside its JVM around the call; ours around executor.run() (table load
 * included). Both sides leave the same files (checked).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { tagProcedures } from '../procedures/tags/index.js';
import { callNamed, copyWarehouse, executorFor, listTree, tempDir } from '../tests/interop/procedures-support.js';
import { PaimonJava, parseJson, type PaimonJavaVersion } from '../tests/interop/peers.js';

const SNAPSHOTS = Number(process.env.BENCH_SNAPSHOTS ?? 5000);
const TAGS = Number(process.env.BENCH_TAGS ?? 500);
const DELETE = Number(process.env.BENCH_DELETE ?? 50);
const RETAIN = Number(process.env.BENCH_RETAIN ?? 10);
const VERSION = (process.env.BENCH_VERSION ?? '2.0') as PaimonJavaVersion;
const DB = 'interop';
const TBL = 't';
const TABLE = 'interop.db/t';

const javaPeer = new PaimonJava(VERSION, { quickStart: false });

async function javaBatch(steps: string[][]): Promise<{ ok: boolean; stdout: string; millis?: number; error?: string }[]> {
  const f = join(tempDir('bench-tags-steps-'), 'steps.json');
  writeFileSync(f, JSON.stringify(steps));
  const r = await javaPeer.runMain('TagTool', ['batch', f], { timeoutMs: 3_600_000 });
  const results = (parseJson(r.stdout.trim().split('\n').pop() ?? '') as unknown as { results: { ok: boolean; stdout: string; millis?: number; error?: string }[] }).results;
  const bad = results.find((x) => !x.ok);
  if (bad || results.length !== steps.length) throw new Error(`TagTool batch failed: ${bad?.error ?? 'incomplete'}`);
  return results;
}

async function ours(wh: string, procedure: string, args: Record<string, string>): Promise<{ millis: number; row: Record<string, unknown> }> {
  const e = executorFor(wh, tagProcedures);
  const t0 = performance.now();
  const o = await callNamed(e, procedure, { table: `${DB}.${TBL}`, ...args });
  const millis = performance.now() - t0;
  if (!o.ok) throw new Error(`${procedure}: ${o.error.code}: ${o.error.message}`);
  return { millis, row: o.result.rows[0] };
}

const root = tempDir('bench-tags-');
const origin = join(root, 'origin');
const every = Math.max(1, Math.floor(SNAPSHOTS / TAGS));
console.log(`history: ${SNAPSHOTS} snapshots, a tag every ${every} (${TAGS} tags), expired down to ${RETAIN} (Paimon ${javaPeer.fullVersion})`);
const build: string[][] = [['synth-history', origin, DB, TBL, String(SNAPSHOTS), '2', 'touch']];
const tagNames: string[] = [];
for (let id = every; id <= SNAPSHOTS && tagNames.length < TAGS; id += every) {
  const name = `t${String(id).padStart(6, '0')}`;
  tagNames.push(name);
  build.push(['create-tag', origin, DB, TBL, name, String(id)]);
}
build.push(['expire', origin, DB, TBL, String(RETAIN), String(RETAIN), String(Date.now() + 3_600_000), '2147483647']);
const t0 = performance.now();
await javaBatch(build);
console.log(`built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const copy = (label: string): string => {
  const to = join(root, label);
  copyWarehouse(origin, to);
  return to;
};
const toDelete = tagNames.slice(0, DELETE).join(',');
const [jDel, oDel, jExp, oExp] = [copy('java-delete'), copy('ours-delete'), copy('java-expire'), copy('ours-expire')];
const javaResults = await javaBatch([
  ['delete-tags', jDel, DB, TBL, toDelete],
  ['expire-tags', jExp, DB, TBL, String(Date.now() + 3_600_000)],
]);
const del = await ours(oDel, 'delete_tag', { tag: toDelete });
const exp = await ours(oExp, 'expire_tags', { older_than: String(Date.now() + 3_600_000) });

const same = (a: string, b: string): boolean => JSON.stringify(listTree(join(a, TABLE))) === JSON.stringify(listTree(join(b, TABLE)));
const report = (what: string, javaMs: number, oursMs: number, files: unknown, equal: boolean): void => {
  console.log(
    `${what}: Java ${javaMs.toFixed(0)} ms, ours ${oursMs.toFixed(0)} ms, ratio ours/Java ${(oursMs / javaMs).toFixed(2)}; ours deleted ${String(files)} files; same files as Java: ${equal}`,
  );
};
report(`delete_tag (${DELETE} tags)`, javaResults[0].millis ?? NaN, del.millis, del.row.deleted_files, same(jDel, oDel));
report(`expire_tags (${tagNames.length} tags)`, javaResults[1].millis ?? NaN, exp.millis, '(see rows)', same(jExp, oExp));
