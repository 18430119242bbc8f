/**
 * remove_orphan_files never reaches outside the table through a symbolic link: links to
 * directories (a bucket, a partition, a table sub-directory) are not followed and are reported
 * as a warning; a link to a file is removed as a link when it is an orphan, its target stays;
 * files outside the table are never touched. On the embedded demo table, through the executor.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, lstatSync, lutimesSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { ensureDemoTable } from '../../../../src/paimon/table/demo-table.js';
import { removeOrphanFiles } from '../../../../procedures/files/remove-orphan-files.js';
import { executorFor } from '../../../interop/procedures-support.js';

const OLD = Date.now() / 1000 - 7 * 86400;
let root: string;
let origin: string;

function ageAll(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isSymbolicLink()) {
      lutimesSync(p, OLD, OLD);
      continue;
    }
    if (e.isDirectory()) ageAll(p);
    utimesSync(p, OLD, OLD);
  }
}

/** Every file below `dir` with its bytes (links are not followed). */
function snapshotTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[]) {
    if (e.isFile()) out.set(join(e.parentPath, e.name), readFileSync(join(e.parentPath, e.name), 'utf8'));
  }
  return out;
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'orphan-links-'));
  origin = join(root, 'origin');
  await ensureDemoTable(origin, new LocalFileIO());
});
after(() => rmSync(root, { recursive: true, force: true }));

async function run(name: string, dryRun: boolean) {
  const wh = join(root, name, 'wh');
  const outside = join(root, name, 'outside');
  cpSync(origin, wh, { recursive: true, preserveTimestamps: true });
  const t = join(wh, 'demo.db', 'orders');
  const partition = readdirSync(t).find((d) => d.startsWith('dt='))!;
  // Outside the warehouse: a bucket-like directory, a partition-like tree, an index-like directory, a file.
  for (const rel of ['bucket/old-data.parquet', 'partition/bucket-0/data-x.parquet', 'index/index-x', 'lone-file.parquet']) {
    mkdirSync(join(outside, rel, '..'), { recursive: true });
    writeFileSync(join(outside, rel), `outside ${rel}`);
  }
  // Inside the table: links to each of them, a dangling link, and one real orphan.
  symlinkSync(join(outside, 'bucket'), join(t, partition, 'bucket-9'));
  symlinkSync(join(outside, 'partition'), join(t, 'dt=2099-01-01'));
  symlinkSync(join(outside, 'index'), join(t, 'index'));
  symlinkSync(join(outside, 'lone-file.parquet'), join(t, partition, 'bucket-0', 'data-link.parquet'));
  symlinkSync(join(outside, 'missing'), join(t, partition, 'bucket-0', 'data-dangling.parquet'));
  writeFileSync(join(t, partition, 'bucket-0', 'data-orphan.parquet'), 'orphan');
  ageAll(t);
  ageAll(outside);
  const before = snapshotTree(outside);
  const ex = executorFor(wh, [removeOrphanFiles]);
  const outcome = await ex.run(
    {
      catalog: 'paimon',
      procedure: 'remove_orphan_files',
      args: [
        { name: 'table', value: { kind: 'string', value: 'demo.orders' }, offset: 0 },
        { name: 'dry_run', value: { kind: 'boolean', value: dryRun }, offset: 1 },
      ],
      statement: 'CALL paimon.sys.remove_orphan_files(...)',
    },
    { user: 'root', connectionId: 1, clientAddress: '127.0.0.1:1', currentDatabase: null },
    new AbortController().signal,
  );
  return { outcome, before, after: snapshotTree(outside), t, partition };
}

describe('remove_orphan_files and symbolic links', () => {
  for (const dryRun of [false, true]) {
    test(`links to directories are not followed and files outside the table stay (dry_run ${dryRun})`, async () => {
      const r = await run(dryRun ? 'dry' : 'real', dryRun);
      assert.ok(r.outcome.ok, r.outcome.ok ? '' : r.outcome.error.message);
      assert.deepEqual(r.after, r.before, 'a file outside the table changed');
      const deleted = (JSON.parse(String(r.outcome.result.rows[0]!.deleted_paths)) as string[]).map((p) => p.slice(r.t.length + 1)).sort();
      // The real orphan and the two file links (removed as links); nothing behind a directory link.
      assert.deepEqual(deleted, [
        `${r.partition}/bucket-0/data-dangling.parquet`,
        `${r.partition}/bucket-0/data-link.parquet`,
        `${r.partition}/bucket-0/data-orphan.parquet`,
      ]);
      const warning = r.outcome.warnings.map((w) => w.message).join('\n');
      assert.match(warning, /3 symbolic link\(s\) to directories not followed/);
      for (const rel of [`${r.partition}/bucket-9`, 'dt=2099-01-01', 'index']) assert.ok(warning.includes(rel), `${rel} not reported: ${warning}`);
      assert.ok(!warning.includes(root), 'the warning names server paths outside the table');
      // The directory links themselves are kept.
      for (const rel of [`${r.partition}/bucket-9`, 'dt=2099-01-01', 'index']) assert.ok(lstatSync(join(r.t, rel)).isSymbolicLink());
      assert.equal(existsSync(join(r.t, r.partition, 'bucket-0', 'data-orphan.parquet')), dryRun);
    });
  }

  test('LocalFileIO marks links in list, listBatches and getStatus, and listRecursive does not descend into them', async () => {
    const dir = mkdtempSync(join(root, 'io-'));
    mkdirSync(join(dir, 'real'));
    writeFileSync(join(dir, 'real', 'a'), 'a');
    mkdirSync(join(root, 'io-target'), { recursive: true });
    writeFileSync(join(root, 'io-target', 'b'), 'b');
    symlinkSync(join(root, 'io-target'), join(dir, 'linked'));
    const io = new LocalFileIO();
    const listed = new Map<string, { isDir: boolean; isSymlink: boolean }>();
    for await (const st of io.list(dir)) listed.set(st.path.slice(dir.length + 1), { isDir: st.isDir, isSymlink: st.isSymlink === true });
    assert.deepEqual(Object.fromEntries(listed), { real: { isDir: true, isSymlink: false }, linked: { isDir: true, isSymlink: true } });
    const batched = new Map<string, number>();
    for await (const b of io.listBatches(dir)) b.names.forEach((n, i) => batched.set(n, b.isLink![i]!));
    assert.deepEqual(Object.fromEntries(batched), { real: 0, linked: 1 });
    assert.equal((await io.getStatus(join(dir, 'linked')))?.isSymlink, true);
    assert.equal((await io.getStatus(join(dir, 'real')))?.isSymlink, undefined);
    const all: string[] = [];
    for await (const st of io.listRecursive(dir)) all.push(st.path.slice(dir.length + 1));
    assert.deepEqual(all, ['real/a']);
  });
});
