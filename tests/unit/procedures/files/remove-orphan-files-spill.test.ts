/**
 * remove_orphan_files through the executor on a real table (the embedded demo table, written
 * by this library), with the candidate store forced to spill: the same files are deleted as
 * in memory, progress is reported per phase, the spill directory is always removed (success,
 * failure, abort), and a dry run deletes nothing. Agreement with Paimon Java's
 * LocalOrphanFilesClean is tests/interop/procedures-orphan.test.ts.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { ensureDemoTable } from '../../../../src/paimon/table/demo-table.js';
import { removeOrphanFiles } from '../../../../procedures/files/remove-orphan-files.js';
import type { ProgressUpdate } from '../../../../procedures/framework/context.js';
import type { CallOutcome } from '../../../../procedures/framework/executor.js';
import { executorFor } from '../../../interop/procedures-support.js';

const OLD = Date.now() / 1000 - 7 * 86400;
let root: string;
let origin: string;

function ageAll(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) ageAll(p);
    utimesSync(p, OLD, OLD);
  }
}

function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'orphan-spill-'));
  origin = join(root, 'origin');
  await ensureDemoTable(origin, new LocalFileIO());
  const t = join(origin, 'demo.db', 'orders');
  const buckets = readdirSync(t).filter((d) => d.startsWith('dt='));
  assert.ok(buckets.length > 0);
  for (let i = 0; i < 40; i++) {
    const rel = [`${buckets[i % buckets.length]}/bucket-${i % 2}/data-orphan-${i}.parquet`, `manifest/manifest-orphan-${i}`, `index/index-orphan-${i}`][i % 3]!;
    mkdirSync(join(t, rel, '..'), { recursive: true });
    writeFileSync(join(t, rel), 'x');
  }
  writeFileSync(join(t, 'snapshot', '.snapshot-9.tmp'), '{}');
  ageAll(t);
});
after(() => rmSync(root, { recursive: true, force: true }));

async function clean(name: string, limits: object, args: Record<string, boolean> = {}, abortAt?: string): Promise<{ outcome: CallOutcome; phases: string[]; left: string[]; spill: string }> {
  const wh = join(root, name);
  cpSync(origin, wh, { recursive: true, preserveTimestamps: true });
  const spill = join(root, `${name}-spill`);
  mkdirSync(spill);
  const ex = executorFor(wh, [removeOrphanFiles], { orphan_spill_dir: spill, ...limits });
  const phases: string[] = [];
  const ac = new AbortController();
  const outcome = await ex.run(
    {
      catalog: 'paimon',
      procedure: 'remove_orphan_files',
      args: [
        { name: 'table', value: { kind: 'string', value: 'demo.orders' }, offset: 0 },
        ...Object.entries(args).map(([k, v], i) => ({ name: k, value: { kind: 'boolean' as const, value: v }, offset: i + 1 })),
      ],
      statement: 'CALL paimon.sys.remove_orphan_files(...)',
      onProgress: (u: ProgressUpdate) => {
        const p = u.phase.split(' ')[0]!;
        if (phases[phases.length - 1] !== p) phases.push(p);
        if (abortAt !== undefined && p === abortAt) ac.abort(new Error('test abort'));
      },
    },
    { user: 'root', connectionId: 1, clientAddress: '127.0.0.1:1', currentDatabase: null },
    ac.signal,
  );
  return { outcome, phases, left: filesUnder(join(wh, 'demo.db', 'orders')), spill };
}

describe('remove_orphan_files with a spilling candidate store', () => {
  test('deletes the same files as in memory, reports every phase, leaves no temp files', async () => {
    const mem = await clean('mem', {});
    const spilled = await clean('spilled', { orphan_memory_files: 3, orphan_list_concurrency: 2 });
    for (const r of [mem, spilled]) {
      assert.ok(r.outcome.ok, r.outcome.ok ? '' : r.outcome.error.message);
      assert.equal(r.left.filter((f) => f.includes('orphan') || f.includes('.tmp')).length, 0, 'planted orphans left');
      assert.deepEqual(readdirSync(r.spill), [], 'spill directory left behind');
    }
    assert.deepEqual(spilled.left, mem.left);
    const row = mem.outcome.ok ? mem.outcome.result.rows[0]! : {};
    const srow = spilled.outcome.ok ? spilled.outcome.result.rows[0]! : {};
    assert.equal(row.deletedFileCount, 41n);
    assert.equal(srow.deletedFileCount, 41n);
    const rel = (v: unknown): string[] => (JSON.parse(String(v)) as string[]).map((p) => p.slice(p.indexOf('/demo.db/')));
    assert.deepEqual(rel(srow.deleted_paths), rel(row.deleted_paths));
    assert.equal(rel(row.deleted_paths).length, 41);
    // Something was read: the table's own data files are still there.
    assert.ok(mem.left.some((f) => f.endsWith('.parquet')));
    for (const p of ['list', 'reachability', 'match', 'delete']) assert.ok(spilled.phases.includes(p), `no ${p} progress in ${spilled.phases.join(',')}`);
  });

  test('an abort while matching deletes nothing and removes the temp files', async () => {
    const r = await clean('abort', { orphan_memory_files: 3 }, {}, 'match');
    assert.equal(r.outcome.ok, false);
    assert.equal(r.left.filter((f) => f.includes('orphan')).length, 40);
    assert.deepEqual(readdirSync(r.spill), []);
  });

  test('dry_run with a spilled store reports the orphans and deletes nothing', async () => {
    const r = await clean('dry', { orphan_memory_files: 2 }, { dry_run: true });
    assert.ok(r.outcome.ok);
    assert.equal(r.outcome.ok && r.outcome.result.rows[0]!.deletedFileCount, 41n);
    assert.equal(r.left.filter((f) => f.includes('orphan')).length, 40);
    assert.ok(existsSync(r.spill) && readdirSync(r.spill).length === 0);
  });
});
