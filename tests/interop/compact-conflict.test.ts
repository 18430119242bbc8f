/**
 * compact against a concurrent Paimon Java compaction of the same buckets: our plan is pinned to
 * the latest snapshot; when Java commits its own compaction (deleting the same files) between our
 * rewrite and our commit, our commit fails with COMMIT_CONFLICT ("File deletion conflicts"), the
 * files we wrote are removed, and the table is exactly what Java made of it.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { java, tempWarehouse, type JsonObj } from './peers.js';
import { listTree } from './procedures-support.js';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import { compactTable } from '../../src/paimon/compact/compact-table.js';
import { isPaimonError } from '../../src/paimon/errors.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';
import { join } from 'node:path';

after(async () => {
  await closeDataEngine();
});

const canon = (rows: JsonObj[]): string[] => rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))).sort();

test('a concurrent Java compaction of the same files makes our commit a COMMIT_CONFLICT; the table is Java\'s', async () => {
  const peer = java('1.4');
  const wh = tempWarehouse('compact-conflict');
  await peer.createTable(wh, 'db', 't', {
    fields: [{ name: 'id', type: 'INT NOT NULL' }, { name: 'v', type: 'STRING' }],
    primaryKeys: ['id'], partitionKeys: [], options: { bucket: '1', 'write-only': 'true' },
  });
  for (let c = 0; c < 3; c++) await peer.write(wh, 'db', 't', Array.from({ length: 8 }, (_, k) => ({ id: (c * 3 + k) % 11, v: `v${c}-${k}` })));
  const rows = canon(await peer.read(wh, 'db', 't'));
  const tableDir = join(wh, 'db.db/t');
  let treeAfterJava: string[] = [];
  await assert.rejects(
    compactTable({
      fileIO: new LocalFileIO(), tablePath: tableDir, table: 'db.t', strategy: 'full', memoryBudgetBytes: 64 << 20, concurrency: 1,
      onPoint: async (p) => {
        if (p !== 'before-commit') return;
        await peer.compact(wh, 'db', 't', 'full');
        treeAfterJava = listTree(tableDir);
      },
    }),
    (e: unknown) => isPaimonError(e) && e.code === 'COMMIT_CONFLICT',
  );
  assert.deepEqual(canon(await peer.read(wh, 'db', 't')), rows);
  assert.equal((await peer.check(wh, 'db', 't')).ok, true);
  // Our data files are gone again; Java's are all there.
  const now = listTree(tableDir);
  for (const f of now.filter((x) => x.includes('bucket-'))) assert.ok(treeAfterJava.includes(f), `leftover ${f}`);
});
