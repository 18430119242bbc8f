/**
 * reset_consumer and clear_consumers against Paimon Java 1.4.2 and 2.0.0 (ConsumerTool.java runs
 * what ResetConsumerProcedure and ClearConsumersProcedure run): on copies of one Java-written
 * table whose consumers were written by Java's own streaming reads (consumer-id) and by its
 * ConsumerManager, at several positions, Java and ours leave the same consumer files byte for
 * byte; a Java streaming read with a consumer we reset resumes exactly there; Java keeps writing
 * afterwards; Java and pypaimon read the same rows from both copies.
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { consumerProcedures } from '../../procedures/consumers/index.js';
import type { CallOutcome } from '../../procedures/framework/executor.js';
import type { CallArgument } from '../../procedures/framework/binding.js';
import { callNamed, executorFor, firstRow, listTree, pyReadMany } from './procedures-support.js';
import { copyWarehouse, java, parseJson, sharedDirectory, type PaimonJavaVersion } from './peers.js';

const DB = 'interop';
const TBL = 't';
const T = `${DB}.${TBL}`;
const TABLE_DIR = 'interop.db/t';

/** Consumer files of the table (name -> content). */
function consumerFiles(wh: string): Record<string, string> {
  const dir = join(wh, TABLE_DIR, 'consumer');
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  for (const f of readdirSync(dir).filter((n) => n.startsWith('consumer-')).sort()) out[f] = readFileSync(join(dir, f), 'utf8');
  return out;
}

async function tool(v: PaimonJavaVersion, ...args: string[]): Promise<Record<string, unknown>> {
  const r = await java(v).runMain('ConsumerTool', args, { timeoutMs: 120_000 });
  return parseJson(r.stdout.trim().split('\n').pop() ?? 'null') as Record<string, unknown>;
}

async function toolFails(v: PaimonJavaVersion, ...args: string[]): Promise<boolean> {
  const r = await java(v).runMain('ConsumerTool', args, { timeoutMs: 120_000, allowFailure: true });
  return r.code !== 0;
}

async function positional(wh: string, procedure: string, values: (string | number | null)[]): Promise<CallOutcome> {
  const args: CallArgument[] = values.map((v, i) => ({
    name: null,
    value: v === null ? { kind: 'null' } : typeof v === 'string' ? { kind: 'string', value: v } : { kind: 'integer', value: BigInt(v), text: String(v) },
    offset: i,
  }));
  return executorFor(wh, consumerProcedures).run(
    { catalog: 'paimon', procedure, args, statement: `CALL paimon.sys.${procedure}(...)` },
    { user: 'root', connectionId: 1, clientAddress: '127.0.0.1:1', currentDatabase: null },
    new AbortController().signal,
  );
}

/**
 * Snapshots 1-6; consumers: stream_a and stream_b written by Java streaming reads (from snapshot 2,
 * and from the latest full state), job_1@4, job_2@5, keep_1@2 written by Java's ConsumerManager.
 */
function consumersHistory(v: PaimonJavaVersion): Promise<string> {
  return sharedDirectory(`consumers-history-${v}`, async (staging) => {
    const wh = join(staging, 'wh');
    const schema = join(staging, 'schema.json');
    writeFileSync(
      schema,
      JSON.stringify({
        fields: [
          { name: 'id', type: 'INT NOT NULL' },
          { name: 'dt', type: 'DATE NOT NULL' },
          { name: 'v', type: 'STRING' },
        ],
        primaryKeys: ['dt', 'id'],
        partitionKeys: ['dt'],
        options: { bucket: '2', 'write-only': 'true', 'partition.legacy-name': 'false' },
      }),
    );
    const results = await java(v).batch([
      ['create-table', wh, DB, TBL, schema],
      ['write-loop', wh, DB, TBL, '6', '0', '0'],
      ['create-consumer', wh, DB, TBL, 'job_1', '4'],
      ['create-consumer', wh, DB, TBL, 'job_2', '5'],
      ['create-consumer', wh, DB, TBL, 'keep_1', '2'],
    ]);
    assert.ok(results.every((r) => r.ok), JSON.stringify(results.filter((r) => !r.ok)));
    await tool(v, 'stream-consume', wh, DB, TBL, 'stream_a', '2');
    await tool(v, 'stream-consume', wh, DB, TBL, 'stream_b', '-');
  });
}

function copies(origin: string, label: string): { a: string; b: string } {
  return { a: copyWarehouse(join(origin, 'wh'), `${label}-java`), b: copyWarehouse(join(origin, 'wh'), `${label}-ours`) };
}

for (const v of ['1.4', '2.0'] as const) {
  describe(`consumer procedures vs Paimon ${v}`, () => {
    let origin: string;
    let initial: Record<string, number>;
    before(async () => {
      origin = await consumersHistory(v);
      initial = (await tool(v, 'consumers', join(origin, 'wh'), DB, TBL)).consumers as Record<string, number>;
      // Several positions, two of them written by Java's streaming reads.
      assert.deepEqual(Object.keys(initial).sort(), ['job_1', 'job_2', 'keep_1', 'stream_a', 'stream_b']);
      assert.equal(Number(initial.stream_b), 7, 'a streaming read of the latest full state stands at the next snapshot');
      assert.ok(Number(initial.stream_a) >= 2 && Number(initial.stream_a) <= 4, `stream_a at ${String(initial.stream_a)}`);
    });

    test('reset_consumer (positional): the same consumer file as Java, and a Java streaming read resumes there', async () => {
      const { a, b } = copies(origin, `consumers-${v}-reset`);
      await tool(v, 'reset-consumer', a, DB, TBL, 'stream_a', '5');
      const row = firstRow(await positional(b, 'reset_consumer', [T, 'stream_a', 5]));
      assert.deepEqual(consumerFiles(b), consumerFiles(a), 'same consumer files as Paimon Java');
      assert.equal(row.result, true);
      assert.equal(row.action, 'reset');
      assert.equal(Number(row.previous_next_snapshot), Number(initial.stream_a));
      assert.equal(Number(row.next_snapshot), 5);
      const resumed = await tool(v, 'stream-consume', b, DB, TBL, 'stream_a', '-');
      assert.deepEqual(resumed.plannedSnapshots, [5], 'Java reads snapshot 5 first after our reset');
    });

    test("reset_consumer without next_snapshot_id (Spark's names) deletes the consumer as Java does", async () => {
      const { a, b } = copies(origin, `consumers-${v}-delete`);
      await tool(v, 'reset-consumer', a, DB, TBL, 'job_1', '-');
      const row = firstRow(await callNamed(executorFor(b, consumerProcedures), 'reset_consumer', { table: T, consumerId: 'job_1' }));
      assert.deepEqual(consumerFiles(b), consumerFiles(a));
      assert.equal(row.action, 'deleted');
      assert.equal(Number(row.previous_next_snapshot), 4);
      assert.equal(row.next_snapshot, null);
      assert.ok(!('consumer-job_1' in consumerFiles(b)));
    });

    test('reset_consumer to a snapshot that does not exist fails as in Java, and changes nothing', async () => {
      const { a, b } = copies(origin, `consumers-${v}-missing`);
      assert.equal(await toolFails(v, 'reset-consumer', a, DB, TBL, 'job_1', '99'), true, 'Java refuses it too');
      const before = consumerFiles(b);
      const o = await callNamed(executorFor(b, consumerProcedures), 'reset_consumer', { table: T, consumer_id: 'job_1', next_snapshot_id: 99 });
      assert.equal(o.ok, false);
      if (!o.ok) {
        assert.equal(o.error.code, 'SNAPSHOT_NOT_FOUND');
        assert.match(o.error.message, /1\.\.6/);
      }
      assert.deepEqual(consumerFiles(b), before);
      assert.deepEqual(consumerFiles(a), before);
    });

    for (const c of [
      { name: 'including and excluding', inc: 'job_.*|stream_a', exc: 'job_2', expect: ['job_1', 'stream_a'] },
      { name: 'a Java-only construct translated (\\Q..\\E, (?i))', inc: '(?i)\\QJOB_\\E\\d+', exc: null, expect: ['job_1', 'job_2'] },
      { name: 'a partial match is no match', inc: 'job', exc: null, expect: [] },
      { name: 'blank including means every consumer', inc: ' ', exc: 'keep.*', expect: ['job_1', 'job_2', 'stream_a', 'stream_b'] },
    ]) {
      test(`clear_consumers, ${c.name}: the same consumers left as Java leaves`, async () => {
        const { a, b } = copies(origin, `consumers-${v}-clear`);
        await tool(v, 'clear-consumers', a, DB, TBL, c.inc, c.exc ?? '-');
        const row = firstRow(
          await callNamed(executorFor(b, consumerProcedures), 'clear_consumers', {
            table: T,
            including_consumers: c.inc,
            ...(c.exc === null ? {} : { excludingConsumers: c.exc }),
          }),
        );
        assert.deepEqual(consumerFiles(b), consumerFiles(a), 'same consumer files as Paimon Java');
        const cleared = JSON.parse(String(row.cleared_consumers)) as Record<string, number>;
        assert.deepEqual(Object.keys(cleared).sort(), c.expect);
        for (const id of c.expect) assert.equal(cleared[id], Number(initial[id]), `${id} pointed at its old snapshot`);
        assert.equal(row.cleared_count, c.expect.length);
        assert.equal(row.remaining_consumers, 5 - c.expect.length);
      });
    }

    test('clear_consumers dry_run reports and changes nothing; a Java-only possessive quantifier is refused by name', async () => {
      const { b } = copies(origin, `consumers-${v}-dry`);
      const before = listTree(join(b, TABLE_DIR));
      const row = firstRow(await callNamed(executorFor(b, consumerProcedures), 'clear_consumers', { table: T, dry_run: true }));
      assert.equal(row.cleared_count, 5);
      assert.equal(row.dry_run, true);
      const o = await callNamed(executorFor(b, consumerProcedures), 'clear_consumers', { table: T, including_consumers: 'job_\\d++' });
      assert.equal(o.ok, false);
      if (!o.ok) {
        assert.equal(o.error.code, 'NOT_SUPPORTED');
        assert.match(o.error.message, /possessive/);
      }
      assert.deepEqual(listTree(join(b, TABLE_DIR)), before);
    });

    test('after our reset and clear, Java keeps writing; Java and pypaimon read the same rows from both copies', async () => {
      const { a, b } = copies(origin, `consumers-${v}-after`);
      await tool(v, 'reset-consumer', a, DB, TBL, 'stream_b', '4');
      await tool(v, 'clear-consumers', a, DB, TBL, 'job.*|keep.*|stream_a', '-');
      firstRow(await positional(b, 'reset_consumer', [T, 'stream_b', 4]));
      firstRow(await positional(b, 'clear_consumers', [T, 'job.*|keep.*|stream_a']));
      assert.deepEqual(consumerFiles(b), consumerFiles(a));
      const results = await java(v).batch([
        ['write-loop', a, DB, TBL, '2', '0', '100'],
        ['write-loop', b, DB, TBL, '2', '0', '100'],
        ['check', b, DB, TBL],
        ['read', a, DB, TBL],
        ['read', b, DB, TBL],
      ]);
      assert.ok(results.every((r) => r.ok), JSON.stringify(results.filter((r) => !r.ok).map((r) => r.error)));
      const rows = (i: number): string[] => (results[i]?.stdout ?? '').split('\n').filter((l) => l.trim() !== '').sort();
      assert.ok(rows(3).length > 0);
      assert.deepEqual(rows(4), rows(3), 'Java reads the same rows from both copies');
      const py = await pyReadMany([
        { key: 'a', warehouse: a, db: DB, table: TBL },
        { key: 'b', warehouse: b, db: DB, table: TBL },
      ]);
      const pa = py.get('a');
      const pb = py.get('b');
      assert.ok(pa && 'rows' in pa && pb && 'rows' in pb, 'pypaimon reads both copies');
      assert.deepEqual(pb.rows, pa.rows);
      assert.equal(pa.rows.length, rows(3).length, 'pypaimon reads as many rows as Java');
      // Java's snapshot expiry honours the consumer we reset (the only one left): snapshot 4 stays, 1-3 go.
      const [expired] = await java(v).batch([['expire', b, DB, TBL, '1', '2147483647', String(Date.now() + 60_000), '2147483647']]);
      assert.ok(expired?.ok, expired?.error);
      assert.equal((parseJson(expired.stdout.trim()) as { earliestSnapshotId: number }).earliestSnapshotId, 4);
    });
  });
}
