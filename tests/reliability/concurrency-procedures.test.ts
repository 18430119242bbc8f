/**
 * Concurrency: while Paimon Java commits to the table in a loop, expire_snapshots,
 * remove_orphan_files and rollback_to_as_latest run repeatedly through our executor. Every
 * commit of the writer must survive (its row is read back by Java from the latest snapshot),
 * the table must pass Java's `check`, and a procedure that loses a race must fail with a
 * stable retryable code, never corrupt anything.
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { expireSnapshots } from '../../procedures/snapshots/expire-snapshots.js';
import { removeOrphanFiles } from '../../procedures/files/remove-orphan-files.js';
import { rollbackToAsLatest } from '../../procedures/snapshots/rollback-to-as-latest.js';
import { buildHistory, callNamed, executorFor, javaAvailable, paimon, readRows, tempDir } from '../interop/procedures-support.js';

const V = '1.4.2' as const;
const WRITES = 25;
const START = 1000;

describe('maintenance procedures beside a committing Paimon Java writer', () => {
  let wh: string;
  before(async () => {
    assert.ok(javaAvailable(V), `Paimon ${V} reference tool is not built`);
    wh = join(tempDir('concurrency-'), 'wh');
    await buildHistory(V, wh);
  });

  test('no writer commit is lost and the table stays readable', async () => {
    const writer = paimon(V, 'write-loop', wh, 'interop', 't', String(WRITES), '150', String(START)) as Promise<{ commits: { i: number; snapshotId: number }[] }>;
    let writerDone = false;
    void writer.finally(() => {
      writerDone = true;
    });
    const ex = executorFor(wh, [expireSnapshots, removeOrphanFiles, rollbackToAsLatest]);
    const outcomes: string[] = [];
    let rounds = 0;
    while (!writerDone && rounds < 200) {
      rounds++;
      const e = await callNamed(ex, 'expire_snapshots', { table: 'interop.t', retain_min: 3, older_than: String(Date.now()) });
      outcomes.push(e.ok ? 'expire:ok' : `expire:${e.error.code}`);
      const o = await callNamed(ex, 'remove_orphan_files', { table: 'interop.t', older_than: String(Date.now() - 120_000), force: true });
      outcomes.push(o.ok ? 'orphan:ok' : `orphan:${o.error.code}`);
    }
    const result = await writer;
    assert.equal(result.commits.length, WRITES);
    // Procedures may lose races, but only with the stable retryable codes.
    for (const o of outcomes) assert.match(o, /:(ok|CONCURRENT_MODIFICATION|COMMIT_CONFLICT)$/, o);
    assert.ok(outcomes.filter((o) => o.endsWith(':ok')).length >= 2, `too few successful runs: ${outcomes.join(' ')}`);

    const rows = await readRows(V, wh, 'interop', 't');
    for (let i = START; i < START + WRITES; i++) {
      assert.ok(rows.some((r) => r.includes(`"id":${i},`) || r.includes(`"id":${i}}`)), `the writer's commit ${i} is lost`);
    }
    const check = (await paimon(V, 'check', wh, 'interop', 't')) as { ok: boolean };
    assert.equal(check.ok, true);
  });

  test('rollback_to_as_latest racing a writer either commits on top or fails with COMMIT_CONFLICT', async () => {
    const writer = paimon(V, 'write-loop', wh, 'interop', 't', '10', '50', '5000') as Promise<{ commits: unknown[] }>;
    const ex = executorFor(wh, [rollbackToAsLatest]);
    const codes: string[] = [];
    for (let k = 0; k < 5; k++) {
      const r = await callNamed(ex, 'rollback_to_as_latest', { table: 'interop.t', tag: 'tag_mid' });
      codes.push(r.ok ? 'ok' : r.error.code);
    }
    await writer;
    for (const c of codes) assert.match(c, /^(ok|COMMIT_CONFLICT)$/);
    const check = (await paimon(V, 'check', wh, 'interop', 't')) as { ok: boolean };
    assert.equal(check.ok, true);
  });
});
