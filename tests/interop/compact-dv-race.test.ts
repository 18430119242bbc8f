/**
 * The deletion-vector conflict rule of compact is evaluated inside the commit loop: a Paimon Java
 * writer whose deletes give the bucket new vectors, committing at the latest possible moment
 * (after our plan, our rewrite and every pre-commit step, right before our atomic snapshot create),
 * makes our commit a COMMIT_CONFLICT naming the vectors; the table is exactly Java's (its rows,
 * its vectors, `check` passes) and our data and index files are removed. Had the rule run only
 * before the commit loop, the retry would have committed over Java's new index entry and the rows
 * Java deleted would be visible again.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { java, tempWarehouse, canonicalJson, type Row } from './peers.js';
import { canonRows, largeDvDeletes, padOf, LARGE_DV_SPEC } from './compact-support.js';
import { listTree } from './procedures-support.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import type { FileIO } from '../../src/paimon/fs/file-io.js';
import { compactTable } from '../../src/paimon/compact/compact-table.js';
import { isPaimonError } from '../../src/paimon/errors.js';

after(async () => {
  await closeDataEngine();
});

const canon = canonRows;

const SPEC = LARGE_DV_SPEC;
const pad = (id: number): string => padOf(id, 2);
const deletes = largeDvDeletes;

async function writeRows(wh: string, rows: Row[]): Promise<void> {
  const f = join(tempWarehouse('dv-race-rows'), 'rows.jsonl');
  writeFileSync(f, rows.map((r) => canonicalJson(r)).join('\n') + '\n');
  const res = await java('1.4').batch([['write', wh, 'db', 't', f]]);
  assert.ok(res[0]?.ok, `Java write failed: ${res[0]?.error ?? ''}`);
}

describe('compact: a Java commit adding deletion vectors lands right before our snapshot is created', () => {
  test('COMMIT_CONFLICT from the check in the commit loop; the table is Java\'s; our files are removed', async () => {
    const peer = java('1.4');
    const wh = tempWarehouse('compact-dv-race');
    await peer.createTable(wh, 'db', 't', SPEC);
    const rows: Row[] = [];
    for (let id = 0; id < 6000; id++) rows.push({ id, name: `n${id}`, amount: id * 3, pad: pad(id) });
    await writeRows(wh, rows);
    await peer.compact(wh, 'db', 't', 'full');
    // A vector on a large max-level file (deletes of 1500..1519) and a level-0/updated tail: our
    // full compaction rewrites some files and keeps others.
    const next = deletes(1500);
    for (let id = 5900; id < 6000; id++) next.push({ id, name: `u${id}`, amount: -id, pad: pad(id + 1) });
    await writeRows(wh, next);
    const tableDir = join(wh, 'db.db', 't');

    const base = new LocalFileIO();
    const store: FileIO = Object.create(base) as FileIO;
    let raced = false;
    let treeAfterJava: string[] = [];
    let javaRows: string[] = [];
    store.tryCreateAtomic = async (p, d) => {
      if (!raced && /\/snapshot\/snapshot-\d+$/.test(p)) {
        raced = true;
        // Deletes only, in another large file's range: Java's lookup compaction makes them a vector.
        await writeRows(wh, deletes(3000));
        treeAfterJava = listTree(tableDir);
        javaRows = canon(await peer.read(wh, 'db', 't'));
      }
      return base.tryCreateAtomic(p, d);
    };
    let reachedCommit = false;
    await assert.rejects(
      compactTable({
        fileIO: store, tablePath: tableDir, table: 'db.t', strategy: 'full', memoryBudgetBytes: 64 << 20, concurrency: 1,
        onPoint: async (point) => {
          if (point === 'before-commit') reachedCommit = true;
        },
      }),
      (e: unknown) => isPaimonError(e, 'COMMIT_CONFLICT') && /deletion vectors of bucket 0 changed/.test(e.message),
    );
    assert.ok(reachedCommit && raced, 'the Java commit landed during our commit, after every pre-commit step');
    assert.equal(javaRows.length, 6000 - 40, "Java's deletes are applied");
    const dv = await peer.runMain('DvTool', ['read-dvs', wh, 'db', 't'], { timeoutMs: 300_000 });
    assert.equal(dv.code, 0, dv.stderr);
    const dvs = (JSON.parse(dv.stdout.trim()) as { dvs: Array<{ cardinality: number }> }).dvs;
    assert.ok(dvs.some((d) => d.cardinality === 20), "the Java writer's deletes are a vector");
    assert.deepEqual(canon(await peer.read(wh, 'db', 't')), javaRows, "Java reads the table as its own commit left it");
    assert.equal((await peer.check(wh, 'db', 't')).ok, true);
    for (const f of listTree(tableDir).filter((x) => x.includes('bucket-') || x.includes('index/'))) assert.ok(treeAfterJava.includes(f), `leftover ${f}`);
  });
});
