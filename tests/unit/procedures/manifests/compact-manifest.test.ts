/**
 * compact_manifest on the embedded demo table (written by this library), through the real
 * executor: a COMPACT snapshot with the same live files and fewer manifests, nothing committed
 * the second time, dry_run writing nothing, positional binding and dynamic options. Java's own
 * compaction on the same table kinds: tests/interop/procedures-manifests.test.ts.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { ensureDemoTable } from '../../../../src/paimon/table/demo-table.js';
import { FileSystemCatalog } from '../../../../src/paimon/catalog/filesystem-catalog.js';
import { manifestProcedures } from '../../../../procedures/manifests/index.js';
import type { CallArgument } from '../../../../procedures/framework/binding.js';
import { callNamed, executorFor, firstRow, liveDataFiles } from '../../../interop/procedures-support.js';

let root: string;
let fresh: string;
let n = 0;
const T = 'demo.orders';

function copy(): string {
  const to = join(root, `wh-${n++}`);
  cpSync(fresh, to, { recursive: true });
  return to;
}

async function latest(wh: string) {
  const t = await new FileSystemCatalog(wh, new LocalFileIO()).getTable(T);
  const s = await t.snapshotManager().latestSnapshot();
  assert.ok(s);
  return { s, manifests: await t.manifestList.readDataManifests(s) };
}

before(async () => {
  root = mkdtempSync(join(process.env.TEST_TMP ?? tmpdir(), 'compact-manifest-'));
  fresh = join(root, 'fresh');
  await ensureDemoTable(fresh, new LocalFileIO());
});
after(() => rmSync(root, { recursive: true, force: true }));

test('commits a COMPACT snapshot with the same live files in fewer manifests; the second call commits nothing', async () => {
  const wh = copy();
  const before = await latest(wh);
  const files = await liveDataFiles(wh, 'demo', 'orders');
  const args: CallArgument[] = [{ name: null, value: { kind: 'string', value: T }, offset: 0 }];
  const o = await executorFor(wh, manifestProcedures).run(
    { catalog: 'paimon', procedure: 'compact_manifest', args, statement: 'CALL paimon.sys.compact_manifest(...)' },
    { user: 'root', connectionId: 1, clientAddress: '127.0.0.1:1', currentDatabase: null },
    new AbortController().signal,
  );
  const row = firstRow(o);
  const afterC = await latest(wh);
  assert.equal(row.result, true);
  assert.equal(row.snapshot_id, before.s.id + 1);
  assert.equal(afterC.s.commitKind, 'COMPACT');
  assert.equal(afterC.s.deltaRecordCount, 0n);
  assert.equal(afterC.s.totalRecordCount, before.s.totalRecordCount);
  assert.equal(afterC.s.schemaId, before.s.schemaId);
  assert.ok(afterC.manifests.length < before.manifests.length, `${afterC.manifests.length} < ${before.manifests.length}`);
  assert.equal(row.manifests_after, afterC.manifests.length);
  assert.ok(afterC.manifests.every((m) => m.numDeletedFiles === 0n));
  assert.deepEqual(await liveDataFiles(wh, 'demo', 'orders'), files);
  const again = firstRow(await callNamed(executorFor(wh, manifestProcedures), 'compact_manifest', { table: T }));
  assert.equal(again.snapshot_id, null);
  assert.equal((await latest(wh)).s.id, afterC.s.id);
});

test('dry_run writes nothing; options are dynamic table options (a bad manifest format is refused)', async () => {
  const wh = copy();
  const listing = () => readdirSync(join(wh, 'demo.db/orders/manifest')).sort();
  const beforeFiles = listing();
  const row = firstRow(await callNamed(executorFor(wh, manifestProcedures), 'compact_manifest', { table: T, dry_run: true }));
  assert.equal(row.dry_run, true);
  assert.equal(row.snapshot_id, null);
  assert.ok(Number(row.manifests_rewritten) > 1);
  assert.deepEqual(listing(), beforeFiles);
  const bad = await callNamed(executorFor(wh, manifestProcedures), 'compact_manifest', { table: T, options: 'manifest.format=orc' });
  assert.equal(bad.ok, false);
  if (!bad.ok) assert.equal(bad.error.code, 'UNSUPPORTED_FORMAT');
  assert.deepEqual(listing(), beforeFiles);
});
