/**
 * compact_database beside a committing Paimon Java writer: two tables of one database, Java
 * commits to one of them in a loop while compact_database (every table of the database, one
 * COMMIT each) runs again and again through our executor. Every commit of the writer must survive
 * (Java reads its row back from the latest snapshot), both tables pass Java's `check`, and a table
 * whose compaction loses the race is reported in its row with a stable retryable code while the
 * other table is still compacted, never a corrupt table.
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { compactionProcedures } from '../../procedures/compaction/index.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';
import { callNamed, executorFor, javaAvailable, javaBatch, paimon, readRows, tempDir, writeSchema } from '../interop/procedures-support.js';

const V = '1.4.2' as const;
const WRITES = 20;
const START = 1000;

describe('compact_database beside a committing Paimon Java writer', () => {
  let wh: string;
  before(async () => {
    assert.ok(javaAvailable(V), `Paimon ${V} reference tool is not built`);
    const dir = tempDir('concurrency-compact-database-');
    wh = join(dir, 'wh');
    const schema = writeSchema(dir, {
      fields: [
        { name: 'id', type: 'INT NOT NULL' },
        { name: 'dt', type: 'DATE NOT NULL' },
        { name: 'v', type: 'STRING' },
      ],
      primaryKeys: ['dt', 'id'],
      partitionKeys: ['dt'],
      options: { bucket: '2', 'write-only': 'true' },
    });
    const steps: string[][] = [];
    for (const t of ['busy', 'quiet']) steps.push(['create-table', wh, 'interop', t, schema], ['write-loop', wh, 'interop', t, '4', '0', '0'], ['write-loop', wh, 'interop', t, '4', '0', '0']);
    await javaBatch(V, steps);
  });

  test('no writer commit is lost, both tables stay readable, a lost race is a retryable code in its row', async () => {
    const writer = paimon(V, 'write-loop', wh, 'interop', 'busy', String(WRITES), '100', String(START)) as Promise<{ commits: { i: number; snapshotId: number }[] }>;
    let writerDone = false;
    void writer.finally(() => {
      writerDone = true;
    });
    const ex = executorFor(wh, compactionProcedures);
    const outcomes: string[] = [];
    let rounds = 0;
    try {
      while (!writerDone && rounds < 40) {
        rounds++;
        const o = await callNamed(ex, 'compact_database', { including_databases: 'interop' });
        assert.ok(o.ok, o.ok ? '' : `compact_database itself failed: ${o.error.code} ${o.error.message}`);
        for (const row of o.result.rows) outcomes.push(`${String(row.table)}:${String(row.outcome)}:${String(row.error_code ?? '')}`);
      }
    } finally {
      await writer.catch(() => undefined);
      await closeDataEngine();
    }
    const result = await writer;
    assert.equal(result.commits.length, WRITES);
    for (const o of outcomes) assert.match(o, /^(busy|quiet):(compacted|unchanged|failed):(|CONCURRENT_MODIFICATION|COMMIT_CONFLICT)$/, o);
    for (const o of outcomes.filter((x) => x.includes(':failed:'))) assert.ok(o.startsWith('busy:'), `only the table being written can lose a race: ${o}`);
    assert.ok(outcomes.some((o) => o.startsWith('busy:compacted')), `the busy table was compacted at least once: ${outcomes.join(' ')}`);
    assert.ok(outcomes.some((o) => o === 'quiet:compacted:'), 'the quiet table was compacted');

    const rows = await readRows(V, wh, 'interop', 'busy');
    for (let i = START; i < START + WRITES; i++) {
      assert.ok(rows.some((r) => r.includes(`"id":${i},`) || r.includes(`"id":${i}}`)), `the writer's commit ${i} is lost`);
    }
    for (const t of ['busy', 'quiet']) {
      const check = (await paimon(V, 'check', wh, 'interop', t)) as { ok: boolean };
      assert.equal(check.ok, true, `Java's check on ${t}`);
    }
  });
});
