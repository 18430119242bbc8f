/**
 * Concurrency of the tag and branch procedures: while Paimon Java commits to main in a loop,
 * create_tag, rename_tag, replace_tag, delete_tag (with the data-file cleanup of a tag whose
 * snapshot has expired), expire_tags, create_branch, delete_branch and fast_forward of a branch
 * table run repeatedly through our executor. Every outcome must be a success or a stable
 * retryable code; every commit of the writer must be read back by Java from the latest
 * snapshot; Java's `check` must pass; and Java must read every tag and branch that exists with
 * the rows of the snapshot it was made from. A fast_forward of main itself (force) racing the
 * writer either succeeds, after which the writer's later commits are kept, or fails with a
 * retryable code, and the table stays readable either way.
 *
 * History (Paimon Java 1.4.2): buildHistory's interop.t, main expired down to its last 8
 * snapshots (tag3's snapshot goes, so deleting tag3 takes files with it), branches y and z from
 * tag_mid with two commits of their own each (i = 300.., 400..).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tagProcedures } from '../../procedures/tags/index.js';
import { branchProcedures } from '../../procedures/branches/index.js';
import type { CallOutcome } from '../../procedures/framework/executor.js';
import { assertCheckPassed, branchTool, type StepResult } from '../interop/branches-support.js';
import { buildHistory, callNamed, executorFor, firstRow, HISTORY_TABLE, javaAvailable, javaBatch, paimon, tempDir } from '../interop/procedures-support.js';

const V = '1.4.2' as const;
const WRITES = 25;
const START = 1000;
const RETRYABLE = /^(ok|CONCURRENT_MODIFICATION|COMMIT_CONFLICT)$/;

/** Paimon Java steps in one JVM; every step but `check` must succeed (check: assertCheckPassed). */
async function javaSteps(steps: string[][]): Promise<StepResult[]> {
  const res = await branchTool('1.4', steps);
  res.forEach((r, i) => assert.ok(r.ok || steps[i]![0] === 'check', `${steps[i]!.join(' ')}: ${r.error}`));
  return res;
}

type Writer = Promise<{ commits: { i: number; snapshotId: number }[]; retries: number }>;

function code(o: CallOutcome): string {
  return o.ok ? 'ok' : o.error.code;
}

function lines(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .sort();
}

function hasRow(rows: readonly string[], i: number): boolean {
  return rows.some((r) => r.includes(`"id":${i},`) || r.includes(`"id":${i}}`));
}

/** Names below `dir` of files called `<prefix><name>`. */
function named(dir: string, prefix: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && !f.endsWith('.crc'))
    .map((f) => f.slice(prefix.length))
    .sort();
}

describe('tag and branch procedures beside a committing Paimon Java writer', () => {
  let outcomeOfMainFastForward = '';
  after(() => process.stderr.write(`fast_forward of main beside the writer: ${outcomeOfMainFastForward}\n`));
  let wh: string;
  let table: string;
  before(async () => {
    assert.ok(javaAvailable(V), `Paimon ${V} reference tool is not built`);
    wh = join(tempDir('concurrency-lifecycle-'), 'wh');
    table = join(wh, HISTORY_TABLE);
    await buildHistory(V, wh);
    await javaBatch(V, [
      ['expire', wh, 'interop', 't', '8', '8', String(Date.now() + 60_000), '2147483647'],
      ['create-branch', wh, 'interop', 't', 'y', 'tag_mid'],
      ['write-loop', wh, 'interop', 't$branch_y', '2', '0', '300'],
      ['create-branch', wh, 'interop', 't', 'z', 'tag_mid'],
      ['write-loop', wh, 'interop', 't$branch_z', '2', '0', '400'],
    ]);
    assert.ok(!existsSync(join(table, 'snapshot', 'snapshot-3')), "tag3's snapshot has expired");
  });

  test('no writer commit is lost, every outcome is retryable, and Java reads every tag and branch', async () => {
    const writer = paimon(V, 'write-loop', wh, 'interop', 't', String(WRITES), '20', String(START)) as Writer;
    let writerDone = false;
    void writer.finally(() => {
      writerDone = true;
    }).catch(() => {});
    const ex = executorFor(wh, [...tagProcedures, ...branchProcedures]);
    const outcomes: string[] = [];
    const call = async (procedure: string, args: Record<string, string | number | boolean>): Promise<CallOutcome> => {
      const o = await callNamed(ex, procedure, { table: 'interop.t', ...args });
      outcomes.push(`${procedure}:${code(o)}${o.ok ? '' : ` (${o.error.message})`}`);
      return o;
    };
    let tag3Deleted = false;
    const fastForwarded = new Set<string>();
    const branchStart = new Map<string, string>();
    let rounds = 0;
    while (!writerDone && rounds < 40) {
      const k = rounds++;
      assert.ok((await call('create_tag', { tag: `c${k}` })).ok, 'create_tag never races: it creates a file if absent');
      assert.ok((await call('rename_tag', { tag: `c${k}`, target_tag: `r${k}` })).ok, 'rename_tag never races here');
      await call('replace_tag', { tag: `r${k}` });
      await call('create_tag', { tag: `e${k}`, time_retained: '1 ms' });
      await call('expire_tags', {});
      const created = await call('create_branch', { branch: `b${k}`, tag: `r${k}` });
      branchStart.set(`b${k}`, String(firstRow(created).from_snapshot_id));
      // Old branches go (keeping the newest fast-forwarded one), so that the reads at the end stay few.
      const old = [`b${k - 2}`, ...(fastForwarded.has(`x${k - 2}`) && [...fastForwarded].at(-1) === `x${k - 2}` ? [] : [`x${k - 2}`])];
      if (k >= 2) {
        if ((await call('delete_branch', { branch: old.join(',') })).ok) for (const b of old) fastForwarded.delete(b);
      }
      if (k >= 3) await call('delete_tag', { tag: `r${k - 3}`, if_exists: true });
      if (!tag3Deleted) tag3Deleted = (await call('delete_tag', { tag: 'tag3' })).ok;
      assert.ok((await call('create_branch', { branch: `x${k}`, tag: 'tag_mid' })).ok);
      const ff = await callNamed(ex, 'fast_forward', { table: `interop.t$branch_x${k}`, branch: 'y' });
      outcomes.push(`fast_forward:${code(ff)}${ff.ok ? '' : ` (${ff.error.message})`}`);
      if (ff.ok) fastForwarded.add(`x${k}`);
    }
    const result = await writer;
    assert.equal(result.commits.length, WRITES);
    const tally = new Map<string, number>();
    for (const o of outcomes) tally.set(o.replace(/ \(.*$/s, ''), (tally.get(o.replace(/ \(.*$/s, '')) ?? 0) + 1);
    process.stderr.write(`${rounds} rounds beside the writer: ${[...tally].map(([k, n]) => `${k} x${n}`).join(', ')}\n`);
    for (const o of outcomes) assert.match(o.replace(/ \(.*$/s, '').split(':')[1]!, RETRYABLE, o);
    assert.ok(rounds >= 3, `only ${rounds} rounds ran beside the writer`);
    assert.ok(fastForwarded.size >= 1, `no fast_forward of a branch table succeeded: ${outcomes.filter((o) => o.startsWith('fast_forward')).join(' | ')}`);
    for (const p of ['replace_tag', 'expire_tags', 'delete_branch']) {
      assert.ok(outcomes.some((o) => o === `${p}:ok`), `${p} never succeeded beside the writer: ${outcomes.filter((o) => o.startsWith(p)).join(' | ')}`);
    }
    // Once the writer is done nothing moves: the deletions that lost every race now go through.
    if (!tag3Deleted) assert.ok((await call('delete_tag', { tag: 'tag3' })).ok, `delete_tag of tag3 after the writer: ${outcomes.at(-1)}`);
    const expired = await call('expire_tags', {});
    assert.ok(expired.ok, outcomes.at(-1));
    assert.deepEqual(named(join(table, 'tag'), 'tag-').filter((t) => t.startsWith('e')), [], 'every expired e-tag is gone');
    assert.deepEqual(named(join(table, 'tag'), 'deleting-tag-'), [], 'every tag deletion ran to its end');

    // Java: main's latest rows, check, and every tag and branch that exists.
    const tags = named(join(table, 'tag'), 'tag-');
    const branches = named(join(table, 'branch'), 'branch-');
    assert.ok(!tags.includes('tag3'), 'tag3 was deleted');
    const snapshotOf = (file: string): number => (JSON.parse(readFileSync(file, 'utf8')) as { id: number }).id;
    const steps: string[][] = [['read', wh, 'interop', 't'], ['check', wh, 'interop', 't']];
    // Each tag and branch read by name, and what it must equal read another way: a tag as its
    // snapshot (while main still has that snapshot file), a fast-forwarded branch as y, a branch
    // from a tag as the snapshot it started at.
    const pairs: { label: string; target: string; expected: string }[] = [];
    for (const tag of tags) {
      const id = snapshotOf(join(table, 'tag', `tag-${tag}`));
      pairs.push({ label: `tag ${tag}`, target: `tag:${tag}`, expected: existsSync(join(table, 'snapshot', `snapshot-${id}`)) ? String(id) : `tag:${tag}` });
    }
    for (const b of branches) {
      const expected = fastForwarded.has(b) ? 'branch:y' : b.startsWith('x') ? 'tag:tag_mid' : (branchStart.get(b) ?? `branch:${b}`);
      pairs.push({ label: `branch ${b}`, target: `branch:${b}`, expected });
    }
    for (const p of pairs) steps.push(['read', wh, 'interop', 't', p.target], ['read', wh, 'interop', 't', p.expected]);
    const out = await javaSteps(steps);
    const main = lines(out[0]!.stdout);
    for (let i = START; i < START + WRITES; i++) assert.ok(hasRow(main, i), `the writer's commit ${i} is lost`);
    assertCheckPassed(out[1]!, wh, 'check beside the writer');
    pairs.forEach((p, j) => {
      const got = lines(out[2 + 2 * j]!.stdout);
      assert.ok(got.length > 0, `${p.label} reads no rows`);
      assert.deepEqual(got, lines(out[3 + 2 * j]!.stdout), `${p.label} reads as ${p.expected}`);
    });
    assert.ok(pairs.some((p) => p.expected === 'branch:y'), 'a fast-forwarded branch is among those read');
  });

  test('fast_forward of main with force racing the writer either succeeds and keeps later commits, or fails retryably', async () => {
    const latestNow = (): number => {
      try {
        // Read while the hint is rewritten, the file can be empty: that is no new snapshot.
        const text = readFileSync(join(table, 'snapshot', 'LATEST'), 'utf8').trim();
        return /^\d+$/.test(text) ? Number(text) : startId;
      } catch {
        return startId; // the hint is being replaced
      }
    };
    let startId = 0;
    startId = latestNow();
    const writer = paimon(V, 'write-loop', wh, 'interop', 't', '8', '100', '5000') as Writer;
    // Start the fast-forward once the writer commits (bounded: the JVM start takes seconds).
    for (let w = 0; w < 300 && latestNow() <= startId; w++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(latestNow() > startId, 'the writer committed within 30 s');
    const ff = await callNamed(executorFor(wh, branchProcedures), 'fast_forward', { table: 'interop.t', branch: 'z', force: true });
    const result = await writer;
    assert.equal(result.commits.length, 8);
    if (result.retries > 0) process.stderr.write(`the writer wrote ${result.retries} commit(s) again after a snapshot vanished under it\n`);
    assert.match(code(ff), RETRYABLE, ff.ok ? '' : ff.error.message);
    const out = await javaSteps([
      ['read', wh, 'interop', 't'],
      ['check', wh, 'interop', 't'],
      ['read', wh, 'interop', 't', 'branch:z'],
    ]);
    const main = lines(out[0]!.stdout);
    assertCheckPassed(out[1]!, wh, 'check after fast_forward of main');
    assert.ok(main.length > 0, 'main reads rows');
    assert.ok(lines(out[2]!.stdout).length > 0, 'branch z still reads');
    if (ff.ok) {
      const row = firstRow(ff);
      const current = Number(row.current_snapshot_id);
      const previous = Number(row.previous_snapshot_id);
      assert.ok(current + 8 < startId, 'z is shorter than main by more than the writer commits, so ids tell the histories apart');
      // Commits on top of the fast-forwarded main take ids current+1.. and are all kept.
      const onTop = result.commits.filter((c) => c.snapshotId > current && c.snapshotId <= current + 8);
      for (const c of onTop) assert.ok(hasRow(main, c.i), `commit ${c.i} (snapshot ${c.snapshotId}) on top of the fast-forward is lost`);
      // A commit that read main's latest before the fast-forward and created its snapshot after the
      // call returned continues the replaced history (id > previous): nothing in a lock-free file
      // system catalog can stop it, Paimon included. Then main's latest is that history; otherwise
      // main holds z's rows.
      const stale = result.commits.filter((c) => c.snapshotId > previous);
      if (stale.length > 0) process.stderr.write(`commits on the replaced history after fast_forward returned: ${stale.map((c) => c.snapshotId).join(',')}\n`);
      assert.ok(onTop.length + stale.length > 0, 'the writer committed after the fast-forward');
      if (stale.length === 0) for (const i of [400, 401]) assert.ok(hasRow(main, i), `main lacks z's row ${i} after a successful fast-forward`);
    }
    // Won or lost, the writer's last commit is main's latest state.
    const last = result.commits.at(-1)!;
    assert.ok(hasRow(main, last.i), `the writer's last commit ${last.i} is lost`);
    outcomeOfMainFastForward = ff.ok ? 'ok' : `${ff.error.code}: ${ff.error.message}`;
  });
});
