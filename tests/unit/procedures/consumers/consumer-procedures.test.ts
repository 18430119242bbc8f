/**
 * reset_consumer and clear_consumers on the embedded demo table (written by this library),
 * through the real executor: Spark's and Flink's names, positional binding, the snapshot check,
 * dry runs that change nothing, the pin when a consumer moves meanwhile, and the result columns.
 * Java's own behaviour on the same operations: tests/interop/procedures-consumers.test.ts.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { ensureDemoTable } from '../../../../src/paimon/table/demo-table.js';
import { FileSystemCatalog } from '../../../../src/paimon/catalog/filesystem-catalog.js';
import { consumerProcedures } from '../../../../procedures/consumers/index.js';
import { clearConsumers } from '../../../../procedures/consumers/clear-consumers.js';
import { createContext } from '../../../../procedures/framework/context.js';
import { isProcedureError } from '../../../../procedures/framework/errors.js';
import { configSchema } from '../../../../src/config-schema.js';
import { FileSystemProcedureCatalog } from '../../../../src/catalogs.js';
import type { CallArgument } from '../../../../procedures/framework/binding.js';
import type { CallOutcome } from '../../../../procedures/framework/executor.js';
import { callNamed, executorFor, firstRow } from '../../../interop/procedures-support.js';

let root: string;
let fresh: string;
let n = 0;
const T = 'demo.orders';
const DIR = 'demo.db/orders/consumer';

function copy(): string {
  const to = join(root, `wh-${n++}`);
  cpSync(fresh, to, { recursive: true });
  return to;
}

async function positional(wh: string, procedure: string, values: (string | number)[]): Promise<CallOutcome> {
  const args: CallArgument[] = values.map((v, i) => ({
    name: null,
    value: typeof v === 'string' ? { kind: 'string', value: v } : { kind: 'integer', value: BigInt(v), text: String(v) },
    offset: i,
  }));
  return executorFor(wh, consumerProcedures).run(
    { catalog: 'paimon', procedure, args, statement: `CALL paimon.sys.${procedure}(...)` },
    { user: 'root', connectionId: 1, clientAddress: '127.0.0.1:1', currentDatabase: null },
    new AbortController().signal,
  );
}

async function consumers(wh: string): Promise<Map<string, number>> {
  return (await new FileSystemCatalog(wh, new LocalFileIO()).getTable(T)).consumerManager().consumers();
}

before(async () => {
  root = mkdtempSync(join(process.env.TEST_TMP ?? tmpdir(), 'consumer-procs-'));
  fresh = join(root, 'fresh');
  await ensureDemoTable(fresh, new LocalFileIO());
});
after(() => rmSync(root, { recursive: true, force: true }));

test("reset_consumer binds Flink's names, Spark's camelCase and positions; the result says what changed", async () => {
  const wh = copy();
  const a = firstRow(await positional(wh, 'reset_consumer', [T, 'c1', 2]));
  assert.deepEqual(a, { result: true, consumer_id: 'c1', action: 'reset', previous_next_snapshot: null, next_snapshot: 2, dry_run: false });
  const b = firstRow(await callNamed(executorFor(wh, consumerProcedures), 'reset_consumer', { table: T, consumerId: 'c1', nextSnapshotId: 3 }));
  assert.equal(b.previous_next_snapshot, 2);
  assert.equal(b.next_snapshot, 3);
  assert.equal(JSON.parse(readFileSync(join(wh, DIR, 'consumer-c1'), 'utf8')).nextSnapshot, 3);
  const c = firstRow(await callNamed(executorFor(wh, consumerProcedures), 'reset_consumer', { table: T, consumer_id: 'c1' }));
  assert.equal(c.action, 'deleted');
  assert.equal(c.previous_next_snapshot, 3);
  assert.equal(existsSync(join(wh, DIR, 'consumer-c1')), false);
  const d = firstRow(await positional(wh, 'reset_consumer', [T, 'c1']));
  assert.equal(d.action, 'absent', 'deleting a missing consumer is no error, as in Paimon');
});

test('reset_consumer refuses a snapshot that does not exist, a blank id and a path in the id, changing nothing', async () => {
  const wh = copy();
  const ex = executorFor(wh, consumerProcedures);
  for (const [args, code] of [
    [{ table: T, consumer_id: 'c1', next_snapshot_id: 999 }, 'SNAPSHOT_NOT_FOUND'],
    [{ table: T, consumer_id: ' ', next_snapshot_id: 1 }, 'INVALID_ARGUMENT'],
    [{ table: T, consumer_id: '../x', next_snapshot_id: 1 }, 'INVALID_ARGUMENT'],
    [{ table: T, consumer_id: 'c1', next_snapshot_id: 0 }, 'INVALID_ARGUMENT'],
    [{ table: T, next_snapshot_id: 1 }, 'ARGUMENT_MISSING'],
  ] as const) {
    const o = await callNamed(ex, 'reset_consumer', args);
    assert.equal(o.ok, false, JSON.stringify(args));
    if (!o.ok) assert.equal(o.error.code, code, JSON.stringify(args));
  }
  assert.equal(existsSync(join(wh, DIR)), false);
});

test('reset_consumer dry_run checks and reports without writing', async () => {
  const wh = copy();
  const row = firstRow(await callNamed(executorFor(wh, consumerProcedures), 'reset_consumer', { table: T, consumer_id: 'c1', next_snapshot_id: 1, dry_run: true }));
  assert.equal(row.dry_run, true);
  assert.equal(row.action, 'reset');
  assert.equal(existsSync(join(wh, DIR)), false);
});

test('clear_consumers selects by whole-id Java patterns, reports the old positions, dry_run changes nothing', async () => {
  const wh = copy();
  for (const [id, s] of [['job_1', 1], ['job_2', 2], ['keep', 3]] as const) firstRow(await positional(wh, 'reset_consumer', [T, id, s]));
  const dry = firstRow(await callNamed(executorFor(wh, consumerProcedures), 'clear_consumers', { table: T, includingConsumers: 'job_\\d', dry_run: true }));
  assert.equal(dry.cleared_count, 2);
  assert.equal((await consumers(wh)).size, 3);
  const row = firstRow(await positional(wh, 'clear_consumers', [T, 'job_\\d', 'job_2']));
  assert.deepEqual(JSON.parse(String(row.cleared_consumers)), { job_1: 1 });
  assert.equal(row.remaining_consumers, 2);
  assert.deepEqual([...(await consumers(wh)).keys()].sort(), ['job_2', 'keep']);
  const all = firstRow(await callNamed(executorFor(wh, consumerProcedures), 'clear_consumers', { table: T, including_consumers: '', excluding_consumers: '  ' }));
  assert.equal(all.cleared_count, 2, 'blank patterns: every consumer, none excluded');
  assert.equal((await consumers(wh)).size, 0);
});

test('clear_consumers refuses a Java-only pattern construct by name (NOT_SUPPORTED) and a broken one (INVALID_ARGUMENT)', async () => {
  const wh = copy();
  firstRow(await positional(wh, 'reset_consumer', [T, 'job_1', 1]));
  for (const [pattern, code, what] of [
    ['job_\\d++', 'NOT_SUPPORTED', /possessive/],
    ['(?>job)_1', 'NOT_SUPPORTED', /atomic/],
    ['job_(', 'INVALID_ARGUMENT', /not a valid regular expression/],
  ] as const) {
    const o = await callNamed(executorFor(wh, consumerProcedures), 'clear_consumers', { table: T, including_consumers: pattern });
    assert.equal(o.ok, false, pattern);
    if (!o.ok) {
      assert.equal(o.error.code, code, pattern);
      assert.match(o.error.message, what);
      assert.match(o.error.message, /including_consumers/);
    }
  }
  assert.equal((await consumers(wh)).size, 1);
});

test('clear_consumers stops with CONCURRENT_MODIFICATION, deleting nothing, when a selected consumer moves meanwhile', async () => {
  const wh = copy();
  firstRow(await positional(wh, 'reset_consumer', [T, 'live', 1]));
  firstRow(await positional(wh, 'reset_consumer', [T, 'other', 1]));
  const catalog = new FileSystemProcedureCatalog('paimon', wh, new LocalFileIO());
  const { context } = createContext({
    procedure: 'clear_consumers',
    catalog,
    caller: { user: 'root', connectionId: 1, clientAddress: 'x', currentDatabase: null },
    signal: new AbortController().signal,
    dryRun: false,
    limits: configSchema.parse({}).procedures,
  });
  // A streaming job checkpointing between the selection and the deletion.
  const table = await context.resolveTable(T);
  const manager = table.consumerManager();
  const list = manager.listConsumers.bind(manager);
  manager.listConsumers = async () => {
    const out = await list();
    await manager.resetConsumer('live', { nextSnapshot: 2 });
    return out;
  };
  const ctx = { ...context, resolveTable: async () => table };
  await assert.rejects(
    clearConsumers.run({ table: T, including_consumers: null, excluding_consumers: null, dry_run: false }, ctx),
    (e: unknown) => isProcedureError(e, 'CONCURRENT_MODIFICATION') && /moved from 1 to 2/.test(e.message),
  );
  assert.equal((await consumers(wh)).size, 2, 'nothing deleted');
});
