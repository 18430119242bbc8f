/**
 * Support for the branch-procedure interop tests: Paimon's own branch operations through
 * tests/interop/java/BranchTool.java (one JVM per batch of steps, every step reported even when
 * Paimon refuses it), one shared branch history written by Paimon Java 1.4.2, our branch
 * procedures through the real executor, and the comparisons of table trees.
 *
 * The history (interop.t, an append-only table: id INT, v STRING, write-only; each commit one
 * generated row, INT column = i):
 *   main: s1 (i=0), s2 (i=1), s3 (i=2); tags t1@1, t2@2, t3@3
 *   bt  from t2, s3 (i=10), tag bt3@3        bbt from bt's bt3, s4 (i=60)
 *   bs  from t2, column w INT added (schema 1), s3 (i=20)
 *   be  empty (no snapshot)
 *   ff  from t3, s4 (i=40), s5 (i=41)         mg from t1, s2 (i=50)
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { branchProcedures } from '../../procedures/branches/index.js';
import type { CallOutcome } from '../../procedures/framework/executor.js';
import { callNamed, executorFor, listTree } from './procedures-support.js';
import { java, parseJson, sharedDirectory, tempWarehouse, type PaimonJavaVersion } from './peers.js';

export const DB = 'interop';
export const TABLE = 't';
/** interop.t relative to a warehouse. */
export const TABLE_DIR = join(`${DB}.db`, TABLE);

export interface StepResult {
  ok: boolean;
  stdout: string;
  error?: string;
}

/** Runs BranchTool steps (its own commands or PaimonTool's) in one JVM of Paimon `v`. */
export async function branchTool(v: PaimonJavaVersion, steps: string[][]): Promise<StepResult[]> {
  const f = join(tempWarehouse('branch-steps'), 'steps.json');
  writeFileSync(f, JSON.stringify(steps));
  const r = await java(v).runMain('BranchTool', ['batch', f], { timeoutMs: 600_000 });
  return (parseJson(r.stdout.trim()) as unknown as { results: StepResult[] }).results;
}

/** The steps' results, failing with the first failed step's error. */
export async function branchToolOk(v: PaimonJavaVersion, steps: string[][]): Promise<StepResult[]> {
  const results = await branchTool(v, steps);
  results.forEach((r, i) => {
    if (!r.ok) throw new Error(`BranchTool step ${JSON.stringify(steps[i])} failed: ${r.error}`);
  });
  return results;
}

/** The shared history above (built once per TEST_TMP by Paimon Java 1.4.2). */
export function branchHistory(): Promise<string> {
  return sharedDirectory('branch-history', async (dir) => {
    const wh = join(dir, 'wh');
    const schema = join(dir, 'schema.json');
    writeFileSync(
      schema,
      JSON.stringify({
        fields: [
          { name: 'id', type: 'INT' },
          { name: 'v', type: 'STRING' },
        ],
        options: { bucket: '-1', 'write-only': 'true' },
      }),
    );
    const t = (b?: string) => (b ? `${TABLE}$branch_${b}` : TABLE);
    await branchToolOk('1.4', [
      ['create-table', wh, DB, TABLE, schema],
      ['write-loop', wh, DB, t(), '2', '0', '0'],
      ['create-tag', wh, DB, t(), 't1', '1'],
      ['create-tag', wh, DB, t(), 't2', '2'],
      ['write-loop', wh, DB, t(), '1', '0', '2'],
      ['create-tag', wh, DB, t(), 't3', '3'],
      ['create-branch', wh, DB, t(), 'bt', 't2'],
      ['write-loop', wh, DB, t('bt'), '1', '0', '10'],
      ['create-tag', wh, DB, t('bt'), 'bt3', '3'],
      ['create-branch', wh, DB, t('bt'), 'bbt', 'bt3'],
      ['write-loop', wh, DB, t('bbt'), '1', '0', '60'],
      ['create-branch', wh, DB, t(), 'bs', 't2'],
      ['add-column', wh, DB, t('bs'), 'w'],
      ['write-loop', wh, DB, t('bs'), '1', '0', '20'],
      ['create-branch', wh, DB, t(), 'be'],
      ['create-branch', wh, DB, t(), 'ff', 't3'],
      ['write-loop', wh, DB, t('ff'), '2', '0', '40'],
      ['create-branch', wh, DB, t(), 'mg', 't1'],
      ['write-loop', wh, DB, t('mg'), '1', '0', '50'],
    ]);
  }).then((d) => join(d, 'wh'));
}

/** CALL paimon.sys.<procedure>(...) of ours on `wh`. */
export function ours(wh: string, procedure: string, args: Record<string, string | number | boolean | null>): Promise<CallOutcome> {
  return callNamed(executorFor(wh, branchProcedures), procedure, args);
}

export function okRow(o: CallOutcome): Record<string, unknown> {
  if (!o.ok) throw new Error(`call failed: ${o.error.code}: ${o.error.message}`);
  return o.result.rows[0]!;
}

/**
 * Every file of interop.t with the content of its metadata files (snapshots, schemas, tags,
 * hints, of main and every branch), data files and manifests by name only. Java's .crc side
 * files are ignored.
 */
export function metadataTree(wh: string): Record<string, string> {
  const root = join(wh, TABLE_DIR);
  const out: Record<string, string> = {};
  for (const rel of listTree(root)) {
    const base = rel.split('/').pop()!;
    const meta = /^(snapshot-\d+|schema-\d+|tag-.+|LATEST|EARLIEST)$/.test(base);
    out[rel] = meta ? readFileSync(join(root, rel), 'utf8') : '';
  }
  return out;
}

/**
 * A `check` step of Paimon (PaimonTool check) passed on `wh`: no referenced file is missing, and
 * every snapshot and tag of every branch reads. One exception is tolerated, because Paimon's own
 * history fails it the same way: reading a tag of a non-main branch through that branch's
 * table (`switchToBranch(b).copy({scan.tag-name: x})`) looks the tag up in main's tags, so a
 * branch tag that main does not have reads as "Tag 'x' doesn't exist". It is tolerated only when
 * the tag file is present in the branch's own tag/ directory.
 */
export function assertCheckPassed(r: StepResult, wh: string, what: string): void {
  const text = r.stdout.trim();
  if (text === '') throw new Error(`${what}: check printed nothing: ${r.error}`);
  const c = parseJson(text.split('\n').pop()!) as unknown as { missing: string[]; readErrors: Record<string, string> };
  if (c.missing.length > 0) throw new Error(`${what}: files missing: ${c.missing.join(', ')}`);
  for (const [key, err] of Object.entries(c.readErrors)) {
    const m = /^([^#@]+)#(.+)$/.exec(key);
    const tolerated =
      m !== null &&
      m[1] !== 'main' &&
      err.includes(`Tag '${m[2]}' doesn't exist`) &&
      existsSync(join(wh, TABLE_DIR, 'branch', `branch-${m[1]}`, 'tag', `tag-${m[2]}`));
    if (!tolerated) throw new Error(`${what}: Paimon cannot read ${key}: ${err}`);
  }
}

/** What one run of tests/reliability/crash-runner.ts reported. */
export interface CrashRun {
  killed: boolean;
  mutations: number;
  ok: boolean;
  error: string | null;
}

/** CRASH_RUNNER: another runner of the same interface (to try a changed one). */
const CRASH_RUNNER = process.env.BRANCHES_CRASH_RUNNER ?? resolve(import.meta.dirname, '..', 'reliability', 'crash-runner.ts');

/** Runs `procedure` in a child process on `wh`, SIGKILLed right before its `killAt`-th mutating storage call. */
export function runCrashing(wh: string, procedure: string, args: object, killAt?: number): Promise<CrashRun> {
  return new Promise((done, fail) => {
    const argv = ['--import', 'tsx', CRASH_RUNNER, wh, procedure, JSON.stringify(args), ...(killAt === undefined ? [] : [String(killAt)])];
    execFile(process.execPath, argv, { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && (err as { signal?: string }).signal === 'SIGKILL') return done({ killed: true, mutations: killAt ?? -1, ok: false, error: null });
      try {
        const r = JSON.parse(stdout.trim().split('\n').pop() ?? '') as { mutations: number; ok: boolean; error: string | null };
        done({ killed: false, ...r });
      } catch {
        fail(new Error(`runner failed: ${err?.message ?? ''} ${stderr.slice(-2000)}`));
      }
    });
  });
}

/** Runs `f` over `items`, `n` at a time (child processes are mostly start-up time). */
export async function pool<T, R>(items: readonly T[], n: number, f: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await f(items[i]!);
      }
    }),
  );
  return out;
}
