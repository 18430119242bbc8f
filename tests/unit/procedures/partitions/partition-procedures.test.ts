/**
 * expire_partitions and mark_partition_done on the embedded demo table (written by this library,
 * partitioned by dt over three days of 2024) through the real executor: positional and named
 * binding, dry runs that change nothing, the refusals with their codes, the result columns.
 * Paimon Java's own behaviour on the same operations: tests/interop/procedures-partitions.test.ts.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { ensureDemoTable } from '../../../../src/paimon/table/demo-table.js';
import { FileSystemCatalog } from '../../../../src/paimon/catalog/filesystem-catalog.js';
import { partitionProcedures } from '../../../../procedures/partitions/index.js';
import { expirePartitions } from '../../../../procedures/partitions/expire-partitions.js';
import { markPartitionDone } from '../../../../procedures/partitions/mark-partition-done.js';
import type { CallArgument } from '../../../../procedures/framework/binding.js';
import type { CallOutcome } from '../../../../procedures/framework/executor.js';
import { callNamed, executorFor } from '../../../interop/procedures-support.js';

let root: string;
let fresh: string;
let n = 0;
const T = 'demo.orders';

function copy(): string {
  const to = join(root, `wh-${n++}`);
  cpSync(fresh, to, { recursive: true });
  return to;
}

async function positional(wh: string, procedure: string, values: (string | number | boolean)[]): Promise<CallOutcome> {
  const args: CallArgument[] = values.map((v, i) => ({
    name: null,
    value: typeof v === 'string' ? { kind: 'string', value: v } : typeof v === 'boolean' ? { kind: 'boolean', value: v } : { kind: 'integer', value: BigInt(v), text: String(v) },
    offset: i,
  }));
  return executorFor(wh, partitionProcedures).run(
    { catalog: 'paimon', procedure, args, statement: `CALL paimon.sys.${procedure}(...)` },
    { user: 'root', connectionId: 1, clientAddress: '127.0.0.1:1', currentDatabase: null },
    new AbortController().signal,
  );
}

function snapshotFiles(wh: string): string[] {
  return readdirSync(join(wh, 'demo.db/orders/snapshot')).filter((f) => f.startsWith('snapshot-')).sort();
}

async function liveRows(wh: string): Promise<Map<string, number>> {
  const t = await new FileSystemCatalog(wh, new LocalFileIO()).getTable(T);
  const latest = await t.snapshotManager().latestSnapshot();
  const out = new Map<string, number>();
  for (const e of await t.newScan().readLiveEntries(latest)) {
    const dt = String(e.partition.get(0, { root: 'VARCHAR' }));
    out.set(dt, (out.get(dt) ?? 0) + 1);
  }
  return out;
}

function errorCode(o: CallOutcome): string | null {
  return o.ok ? null : o.error.code;
}

before(async () => {
  root = mkdtempSync(join(process.env.TEST_TMP ?? tmpdir(), 'partition-procs-'));
  fresh = join(root, 'fresh');
  await ensureDemoTable(fresh, new LocalFileIO());
});
after(() => rmSync(root, { recursive: true, force: true }));

test('both procedures need ALTER on the table; expire_partitions is destructive with dry_run', () => {
  assert.deepEqual(expirePartitions.privilege, { privilege: 'ALTER', on: 'table' });
  assert.deepEqual(markPartitionDone.privilege, { privilege: 'ALTER', on: 'table' });
  assert.equal(expirePartitions.destructive, true);
  assert.deepEqual(
    expirePartitions.params.map((p) => p.name),
    ['table', 'expiration_time', 'timestamp_formatter', 'timestamp_pattern', 'expire_strategy', 'max_expires', 'options', 'dry_run'],
  );
  assert.equal(expirePartitions.resultColumns[0].name, 'expired_partitions');
  assert.equal(markPartitionDone.resultColumns[0].name, 'result');
});

test('expire_partitions by position drops every old partition in one OVERWRITE commit', async () => {
  const wh = copy();
  const before = snapshotFiles(wh);
  assert.equal((await liveRows(wh)).size, 3);
  const o = await positional(wh, 'expire_partitions', [T, '1 d']);
  assert.ok(o.ok, o.ok ? '' : o.error.message);
  if (!o.ok) return;
  assert.deepEqual(o.result.rows.map((r) => r.expired_partitions), ['dt=2024-06-01', 'dt=2024-06-02', 'dt=2024-06-03']);
  const after = snapshotFiles(wh);
  assert.equal(after.length, before.length + 1);
  const snap = JSON.parse(readFileSync(join(wh, 'demo.db/orders/snapshot', `snapshot-${before.length + 1}`), 'utf8')) as { commitKind: string; totalRecordCount: number; commitIdentifier: number | string };
  assert.equal(snap.commitKind, 'OVERWRITE');
  assert.equal(snap.totalRecordCount, 0);
  assert.equal(o.result.rows[0].committed_snapshot_id, before.length + 1);
  assert.equal((await liveRows(wh)).size, 0);
});

test('expire_partitions by name: dry_run lists and commits nothing; max_expires and a pattern', async () => {
  const wh = copy();
  const before = snapshotFiles(wh);
  const o = await callNamed(executorFor(wh, partitionProcedures), 'expire_partitions', {
    table: T,
    expiration_time: '1 d',
    timestamp_pattern: '$dt',
    timestamp_formatter: 'yyyy-MM-dd',
    max_expires: 2,
    dry_run: true,
  });
  assert.ok(o.ok, o.ok ? '' : o.error.message);
  if (!o.ok) return;
  assert.deepEqual(o.result.rows.map((r) => [r.expired_partitions, r.dry_run, r.committed_snapshot_id, r.partition_time]), [
    ['dt=2024-06-01', true, null, '2024-06-01 00:00:00'],
    ['dt=2024-06-02', true, null, '2024-06-02 00:00:00'],
  ]);
  assert.ok(Number(o.result.rows[0].data_files) > 0);
  assert.deepEqual(snapshotFiles(wh), before);
  assert.equal((await liveRows(wh)).size, 3);
});

test('expire_partitions: nothing old enough is one row of Paimon text', async () => {
  const wh = copy();
  const o = await callNamed(executorFor(wh, partitionProcedures), 'expire_partitions', { table: T, expiration_time: '36500 d' });
  assert.ok(o.ok);
  if (o.ok) assert.deepEqual(o.result.rows.map((r) => r.expired_partitions), ['No expired partitions.']);
});

test('expire_partitions refusals: no expiration time, bad strategy, bad max, unsupported and invalid formatters', async () => {
  const wh = copy();
  const ex = executorFor(wh, partitionProcedures);
  assert.equal(errorCode(await callNamed(ex, 'expire_partitions', { table: T })), 'INVALID_ARGUMENT');
  assert.equal(errorCode(await callNamed(ex, 'expire_partitions', { table: T, expiration_time: '1 d', expire_strategy: 'sometime' })), 'INVALID_ARGUMENT');
  assert.equal(errorCode(await callNamed(ex, 'expire_partitions', { table: T, expiration_time: '1 d', max_expires: 0 })), 'INVALID_ARGUMENT');
  assert.equal(errorCode(await callNamed(ex, 'expire_partitions', { table: T, expiration_time: '1 d', options: 'partition.expiration-max-num=x' })), 'INVALID_ARGUMENT');
  assert.equal(errorCode(await callNamed(ex, 'expire_partitions', { table: T, expiration_time: '1 d', timestamp_formatter: 'dd-MMM-yyyy' })), 'NOT_SUPPORTED');
  assert.equal(errorCode(await callNamed(ex, 'expire_partitions', { table: T, expiration_time: '1 d', timestamp_formatter: 'yyyy-MM-dd{' })), 'INVALID_ARGUMENT');
  assert.equal(errorCode(await callNamed(ex, 'expire_partitions', { table: T, expiration_time: 'soon' })), 'INVALID_ARGUMENT');
  assert.equal(errorCode(await positional(wh, 'expire_partitions', [T, '1 d', 'x', 'y', 'z', 1, '', true, 'extra'])), 'TOO_MANY_ARGUMENTS');
  assert.equal((await liveRows(wh)).size, 3, 'nothing was dropped');
});

test('mark_partition_done by position writes _SUCCESS (the default success-file action); dry_run writes nothing', async () => {
  const wh = copy();
  const dry = await callNamed(executorFor(wh, partitionProcedures), 'mark_partition_done', { table: T, partitions: 'dt=2024-06-01', dry_run: true });
  assert.ok(dry.ok);
  const file = join(wh, 'demo.db/orders/dt=2024-06-01/_SUCCESS');
  assert.equal(existsSync(file), false);
  const o = await positional(wh, 'mark_partition_done', [T, 'dt=2024-06-01;dt=2024-06-03']);
  assert.ok(o.ok, o.ok ? '' : o.error.message);
  if (!o.ok) return;
  assert.deepEqual(o.result.rows.map((r) => [r.result, r.partition, r.actions]), [
    [true, 'dt=2024-06-01/', 'success-file'],
    [true, 'dt=2024-06-03/', 'success-file'],
  ]);
  assert.equal(o.result.rows[0].success_file, file);
  const json = JSON.parse(readFileSync(file, 'utf8')) as { creationTime: number; modificationTime: number };
  assert.equal(json.creationTime, json.modificationTime);
  assert.equal(errorCode(await positional(wh, 'mark_partition_done', [T, 'day=2024-06-01'])), 'INVALID_ARGUMENT');
  assert.equal(errorCode(await positional(wh, 'mark_partition_done', [T])), 'ARGUMENT_MISSING');
});
