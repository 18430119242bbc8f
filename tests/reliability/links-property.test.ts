/**
 * The destructive procedures never change anything outside their table, whatever the table
 * directory holds: a property over random table histories written by Paimon Java (writes,
 * compactions, tags, Java's own expirations), into which are planted
 *   - symbolic links to files and directories outside the warehouse, and to directories inside
 *     the table (a partition directory linked under another name),
 *   - hard links to files outside the warehouse,
 *   - names with `..` in them (`data-..-x.parquet`, a directory `..hidden`),
 *   - files of a sibling table sharing the prefix (`t_x` next to `t`) and of another table,
 * all aged past the orphan threshold. Then our remove_orphan_files, rollback or rollback_to (one
 * snapshot back), expire_snapshots, compact and remove_orphan_files again run on the table, and:
 *   - every file outside the table (the outside tree, the link targets, the other tables) has
 *     the same content (sha-256) and the same links as before,
 *   - Paimon Java's `check` passes on the table (every snapshot and tag readable).
 * Bounded: PROCS_LINKS_RUNS histories (default 3), all Java work through the long-lived JVM.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { builtinProcedures } from '../../procedures/index.js';
import { callNamed, executorFor, writeSchema } from '../interop/procedures-support.js';
import { java, tempWarehouse } from '../interop/peers.js';

const V = '1.4' as const;
const RUNS = Number(process.env.PROCS_LINKS_RUNS ?? 3);
const OLD = (Date.now() - 3 * 86_400_000) / 1000;

type Op = { kind: 'write'; n: number } | { kind: 'compact' } | { kind: 'tag' } | { kind: 'expire'; keep: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('write' as const), n: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'compact' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'tag' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('expire' as const), keep: fc.integer({ min: 1, max: 3 }) }) },
);

/** Every entry below `dir` (links not followed): path -> sha-256 of a file, the target of a link, 'dir'; plus link counts. */
function fingerprint(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out.set(p, `link -> ${readlinkSync(p)}`);
      else if (st.isDirectory()) {
        out.set(p, 'dir');
        walk(p);
      } else out.set(p, `${createHash('sha256').update(readFileSync(p)).digest('hex')} nlink>=1`);
    }
  };
  walk(dir);
  return out;
}

function age(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (lstatSync(p).isSymbolicLink()) continue;
    if (e.isDirectory()) age(p);
    utimesSync(p, OLD, OLD);
  }
}

function put(p: string, content: string): void {
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, content);
  utimesSync(p, OLD, OLD);
}

/** Java steps that write one history into `wh` (table interop.t, plus an untouched interop.t_x). */
function historySteps(wh: string, schema: string, ops: Op[]): string[][] {
  const steps: string[][] = [
    ['create-table', wh, 'interop', 't', schema],
    ['create-table', wh, 'interop', 't_x', schema],
    ['write-loop', wh, 'interop', 't_x', '2', '0', '0'],
    ['write-loop', wh, 'interop', 't', '3', '0', '0'],
  ];
  let latest = 3;
  let tags = 0;
  let next = 3;
  for (const op of ops) {
    if (op.kind === 'write') {
      steps.push(['write-loop', wh, 'interop', 't', String(op.n), '0', String(next % 5)]);
      next += op.n;
      latest += op.n;
    } else if (op.kind === 'compact') {
      steps.push(['compact', wh, 'interop', 't']);
      latest += 1;
    } else if (op.kind === 'tag') {
      steps.push(['create-tag', wh, 'interop', 't', `tag${tags++}`]);
    } else if (op.kind === 'expire') {
      steps.push(['expire', wh, 'interop', 't', String(op.keep), String(op.keep), String(Date.now()), '2147483647']);
    }
  }
  return steps;
}

describe('destructive procedures change nothing outside their table (links, hard links, .. names, siblings)', () => {
  test('property', { timeout: 300_000 }, async () => {
    const histories = fc.sample(fc.array(opArb, { minLength: 2, maxLength: 7 }), { numRuns: RUNS, seed: Number(process.env.PROCS_LINKS_SEED ?? Date.now() % 100_000) });
    const root = tempWarehouse('links-property');
    const whs = histories.map((_, i) => join(root, `h${i}`, 'wh'));
    const schema = writeSchema(root, {
      fields: [
        { name: 'id', type: 'INT NOT NULL' },
        { name: 'dt', type: 'DATE NOT NULL' },
        { name: 'v', type: 'STRING' },
      ],
      primaryKeys: ['dt', 'id'],
      partitionKeys: ['dt'],
      options: { bucket: '1', 'write-only': 'true' },
    });
    // One JVM call builds every history.
    const stepsFile = join(root, 'steps.json');
    writeFileSync(stepsFile, JSON.stringify(histories.flatMap((ops, i) => historySteps(whs[i]!, schema, ops))));
    const built = await java(V).run(['batch', stepsFile], { timeoutMs: 240_000 });
    const results = (JSON.parse(built.stdout.trim().split('\n').pop()!) as { results: { ok: boolean; error?: string }[] }).results;
    assert.ok(results.every((r) => r.ok), `history build failed: ${results.find((r) => !r.ok)?.error}`);

    const checks: string[][] = [];
    for (const [i, wh] of whs.entries()) {
      const ops = histories[i]!;
      const table = join(wh, 'interop.db', 't');
      const outside = join(wh, '..', 'outside');
      // The outside tree and the link targets.
      put(join(outside, 'victim.parquet'), 'outside file');
      put(join(outside, 'dir', 'data-0.parquet'), 'outside dir file');
      put(join(outside, 'dir', 'manifest-x'), 'outside manifest');
      put(join(outside, 'hard.parquet'), 'hard-linked from the table');
      put(join(wh, 'stray-at-warehouse-root.parquet'), 'warehouse root');
      put(join(wh, 'interop.db', 'other', 'data-1.parquet'), 'another table directory');
      const partition = readdirSync(table).find((n) => n.startsWith('dt='))!;
      const bucket = join(table, partition, 'bucket-0');
      // Hazards inside the table.
      symlinkSync(join(outside, 'victim.parquet'), join(bucket, 'data-link-to-outside.parquet'));
      symlinkSync(join(outside, 'dir'), join(table, partition, 'bucket-7'));
      symlinkSync(join(outside, 'dir'), join(table, 'manifest-dir-link'));
      symlinkSync(join(table, partition), join(table, 'dt=linked-partition'));
      symlinkSync('../../../../outside/victim.parquet', join(bucket, 'data-relative-link.parquet'));
      linkSync(join(outside, 'hard.parquet'), join(bucket, 'data-hard-link.parquet'));
      put(join(bucket, 'data-..-x.parquet'), 'dots in the name');
      put(join(table, '..hidden', 'data-2.parquet'), 'a directory named ..hidden');
      put(join(table, 'manifest', 'manifest-..-orphan'), 'dots in a manifest name');
      age(wh);
      const outsideBefore = fingerprint(join(wh, '..', 'outside'));
      const siblingBefore = fingerprint(join(wh, 'interop.db', 't_x'));
      const otherBefore = fingerprint(join(wh, 'interop.db', 'other'));
      const rootFile = readFileSync(join(wh, 'stray-at-warehouse-root.parquet'), 'utf8');

      const ex = executorFor(wh, builtinProcedures);
      const ran: string[] = [];
      const call = async (procedure: string, args: Record<string, string | number | boolean>): Promise<void> => {
        const o = await callNamed(ex, procedure, { table: 'interop.t', ...args });
        ran.push(`${procedure}: ${o.ok ? 'ok' : o.error.code}`);
        // A refusal (say, no snapshot to roll back to) is fine; a crash is not.
        if (!o.ok) assert.notEqual(o.error.code, 'INTERNAL_ERROR', `${procedure}: ${o.error.message}`);
      };
      await call('remove_orphan_files', {});
      // Roll back one snapshot (rollback and rollback_to in turn), then expire, then compact.
      const snapshots = readdirSync(join(table, 'snapshot')).filter((n) => n.startsWith('snapshot-')).map((n) => Number(n.slice(9))).sort((a, b) => a - b);
      if (snapshots.length > 1) {
        const target = snapshots[snapshots.length - 2]!;
        if (i % 2 === 0) await call('rollback', { version: String(target) });
        else await call('rollback_to', { snapshot_id: target });
      }
      await call('expire_snapshots', { retain_max: 2, retain_min: 1 });
      await call('compact', {});
      await call('remove_orphan_files', {});

      const what = `ops ${JSON.stringify(ops)}; procedures ${ran.join(', ')}`;
      assert.deepEqual(fingerprint(join(wh, '..', 'outside')), outsideBefore, `the outside tree changed (${what})`);
      assert.deepEqual(fingerprint(join(wh, 'interop.db', 't_x')), siblingBefore, `the sibling table t_x changed (${what})`);
      assert.deepEqual(fingerprint(join(wh, 'interop.db', 'other')), otherBefore, `another table directory changed (${what})`);
      assert.equal(readFileSync(join(wh, 'stray-at-warehouse-root.parquet'), 'utf8'), rootFile);
      assert.equal(lstatSync(join(outside, 'hard.parquet')).isFile(), true);
      // The procedures did their work: the planted orphans with dots in their names are gone.
      assert.ok(ran[0] === 'remove_orphan_files: ok' && ran.at(-1) === 'remove_orphan_files: ok', what);
      assert.ok(!existsSync(join(bucket, 'data-..-x.parquet')), `the orphan data-..-x.parquet survived (${what})`);
      assert.ok(!existsSync(join(table, 'manifest', 'manifest-..-orphan')), `the orphan manifest-..-orphan survived (${what})`);
      console.log(`# history ${i}: ${what}`);
      checks.push(['check', wh, 'interop', 't'], ['check', wh, 'interop', 't_x']);
    }
    // One JVM call checks every table.
    const checkFile = join(root, 'checks.json');
    writeFileSync(checkFile, JSON.stringify(checks));
    const checked = await java(V).run(['batch', checkFile], { timeoutMs: 240_000 });
    const outcomes = (JSON.parse(checked.stdout.trim().split('\n').pop()!) as { results: { ok: boolean; stdout: string; error?: string }[] }).results;
    assert.equal(outcomes.length, checks.length, `checks ran: ${outcomes.at(-1)?.error ?? ''}`);
    outcomes.forEach((o, i) => {
      assert.ok(o.ok, `${checks[i]!.join(' ')}: ${o.error}`);
      assert.equal((JSON.parse(o.stdout.trim().split('\n').pop()!) as { ok: boolean }).ok, true, `Paimon Java check of ${checks[i]!.slice(1).join(' ')}: ${o.stdout.slice(0, 300)}`);
    });
  });
});
