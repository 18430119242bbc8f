import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { isPaimonError } from '../../../../src/paimon/errors.js';
import { LIST_BATCH_ENTRIES } from '../../../../src/paimon/fs/local-list-pool.js';

let dir: string;
const io = new LocalFileIO();
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'list-pool-'));
  mkdirSync(join(dir, 'big', 'sub'), { recursive: true });
  // More than two batches, names needing care, sizes and times that differ per file.
  for (let i = 0; i < LIST_BATCH_ENTRIES * 2 + 17; i++) {
    const p = join(dir, 'big', `f-${i}${i % 97 === 0 ? ' é日' : ''}`);
    writeFileSync(p, 'x'.repeat(i % 13));
    utimesSync(p, 1_000_000 + i, 1_000_000 + i);
  }
});
after(() => rmSync(dir, { recursive: true, force: true }));

async function viaBatches(d: string): Promise<string[]> {
  const out: string[] = [];
  for await (const b of io.listBatches(d)) {
    for (let i = 0; i < b.names.length; i++) out.push(`${join(d, b.names[i]!)}|${b.sizes[i]}|${b.modificationTimes[i]}|${b.isDir[i] === 1}`);
  }
  return out.sort();
}

async function viaList(d: string): Promise<string[]> {
  const out: string[] = [];
  for await (const st of io.list(d)) out.push(`${st.path}|${st.size}|${st.modificationTime}|${st.isDir}`);
  return out.sort();
}

test('listBatches gives the same entries as list, across batches and concurrent listings', async () => {
  const big = join(dir, 'big');
  const want = await viaList(big);
  assert.equal(want.length, LIST_BATCH_ENTRIES * 2 + 18);
  const got = await Promise.all([viaBatches(big), viaBatches(big), viaBatches(big), viaBatches(big), viaBatches(big)]);
  for (const g of got) assert.deepEqual(g, want);
});

test('a missing directory lists nothing; a file is an error; stopping early is fine', async () => {
  assert.deepEqual(await viaBatches(join(dir, 'absent')), []);
  await assert.rejects(viaBatches(join(dir, 'big', 'f-1')), (e) => isPaimonError(e, 'STORAGE_ERROR') && /ENOTDIR/.test(e.message));
  for (let k = 0; k < 20; k++) {
    for await (const b of io.listBatches(join(dir, 'big'))) {
      assert.ok(b.names.length > 0);
      break;
    }
  }
  // The pool still answers after many abandoned listings.
  assert.equal((await viaBatches(join(dir, 'big'))).length, LIST_BATCH_ENTRIES * 2 + 18);
});
