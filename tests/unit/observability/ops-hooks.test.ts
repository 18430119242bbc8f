import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as prom from 'prom-client';
import { defineProcedure, ProcedureRegistry } from '../../../procedures/framework/registry.js';
import { ProcedureExecutor } from '../../../procedures/framework/executor.js';
import type { CallArgument, ArgumentValue } from '../../../procedures/framework/binding.js';
import { CatalogSet, FileSystemProcedureCatalog } from '../../../src/catalogs.js';
import { LocalFileIO } from '../../../src/paimon/fs/local-file-io.js';
import { configSchema } from '../../../src/config-schema.js';
import { createOpsHooks, tracePhaseOf } from '../../../src/observability/ops-hooks.js';
import { ConfigGrantSource } from '../../../src/security/grant-source.js';
import { TableLockManager } from '../../../procedures/framework/concurrency/table-lock.js';
import { PromClientMeterProvider, ProxyMetrics } from '../../../src/observability/metrics.js';
import type { AuditRecord, AuditSink } from '../../../src/observability/audit.js';

const str = (value: string): ArgumentValue => ({ kind: 'string', value });
const named = (...pairs: [string, ArgumentValue][]): CallArgument[] => pairs.map(([name, value], i) => ({ name, value, offset: i }));
const SECRET = 'pp-test-secret-hooks-unit';

class Memory implements AuditSink {
  records: AuditRecord[] = [];
  async write(r: AuditRecord) { this.records.push(r); }
  async close() {}
}

let gate: Promise<void> = Promise.resolve();
const changeTag = defineProcedure({
  name: 'change_tag',
  description: 'test: resolves the table, plans, commits',
  params: [
    { name: 'table', type: 'string', required: true, description: 'db.table' },
    { name: 'options', type: 'string', description: 'k=v' },
    { name: 'dry_run', type: 'boolean', default: false, description: 'plan only' },
    { name: 'force', type: 'boolean', default: false, description: 'lift the safety floor' },
  ],
  resultColumns: [
    { name: 'result', type: 'boolean', description: '' },
    { name: 'pinned_snapshot_id', type: 'bigint', description: '' },
    { name: 'deleted_files', type: 'bigint', description: '' },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  async run(args, ctx) {
    const t = await ctx.resolveTable(args.table);
    ctx.progress({ phase: 'plan' });
    await gate;
    ctx.progress({ phase: 'delete data files', done: 1, total: 1 });
    ctx.progress({ phase: 'commit' });
    ctx.markCommitted();
    ctx.reportAffected(t.identifier);
    return { rows: [{ result: true, pinned_snapshot_id: 7n, deleted_files: 3n }] };
  },
});

describe('ops hooks on the real executor', () => {
  let wh: string;
  const audit = new Memory();
  const provider = new PromClientMeterProvider(new prom.Registry());
  const metrics = new ProxyMetrics(provider.getMeter('t'));
  let executor: ProcedureExecutor;
  const caller = (user: string, connectionId = 1) => ({ user, connectionId, clientAddress: '10.1.1.1:4000', currentDatabase: null });
  const run = (user: string, table: string, connectionId = 1) =>
    executor.run({ catalog: 'paimon', procedure: 'change_tag', args: named(['table', str(table)], ['options', str(`s3.secret-key=${SECRET}`)]), statement: `CALL paimon.sys.change_tag(table => '${table}', options => 's3.secret-key=${SECRET}')` }, caller(user, connectionId), new AbortController().signal);

  before(async () => {
    wh = await mkdtemp(join(process.env.TEST_TMP ?? tmpdir(), 'ops-hooks-'));
    for (const t of ['t', 'u']) {
      await mkdir(join(wh, 'db.db', t, 'schema'), { recursive: true });
      await writeFile(join(wh, 'db.db', t, 'schema', 'schema-0'), '{}');
    }
    executor = new ProcedureExecutor({
      registry: new ProcedureRegistry([changeTag]),
      catalogs: new CatalogSet([new FileSystemProcedureCatalog('paimon', wh, new LocalFileIO())]),
      limits: configSchema.parse({}).procedures,
      hooks: createOpsHooks({
        audit,
        metrics,
        grants: new ConfigGrantSource([{ name: 'ops', grants: ['ALTER ON paimon.db.t'] }, { name: 'reader', grants: ['SELECT ON paimon.*.*'] }, { name: 'admin', grants: ['ADMIN ON *.*.*'] }]),
        locks: { manager: new TableLockManager(), mode: 'fail', waitMs: 0 },
      }),
    });
  });
  after(() => rm(wh, { recursive: true, force: true }));

  test('an authorized call runs, is audited with phases and facts, and counted', async () => {
    const o = await run('ops', 'db.t');
    assert.ok(o.ok, o.ok ? '' : o.error.message);
    const r = audit.records.at(-1)!;
    assert.equal(r.outcome, 'succeeded');
    assert.equal(r.pinnedSnapshot, 7);
    assert.equal(r.committed, true);
    assert.deepEqual(r.affectedObjects, ['db.t']);
    assert.deepEqual(Object.keys(r.phases).sort(), ['commit', 'plan', 'resolve', 'write']);
    assert.equal(r.arguments.table, 'db.t');
    const text = await provider.registry.metrics();
    assert.match(text, /paimon_proxy_calls_total\{outcome="succeeded",procedure="change_tag"\} 1/);
    assert.match(text, /paimon_proxy_files_deleted_total\{procedure="change_tag"\} 3/);
    assert.match(text, /paimon_proxy_call_phase_duration_seconds_count\{phase="commit",procedure="change_tag"\} 1/);
  });

  test('a user without ALTER on that table is refused before anything runs, and audited as denied', async () => {
    for (const [user, table] of [['reader', 'db.t'], ['ops', 'db.u'], ['stranger', 'db.t']] as const) {
      const o = await run(user, table);
      assert.equal(o.ok, false);
      if (o.ok) continue;
      assert.equal(o.error.code, 'TABLE_ACCESS_DENIED');
      assert.equal(o.error.errno, 1142);
      assert.equal(o.committed, false);
      assert.equal(audit.records.at(-1)!.outcome, 'denied');
    }
  });

  test('a second metadata change on the same table fails fast with TABLE_BUSY while the first runs', async () => {
    let open!: () => void;
    gate = new Promise<void>((r) => (open = r));
    const first = run('ops', 'db.t', 1);
    await new Promise((r) => setTimeout(r, 20));
    const second = await run('ops', 'db.t', 2);
    assert.equal(second.ok, false);
    if (!second.ok) assert.equal(second.error.code, 'TABLE_BUSY');
    open();
    assert.ok((await first).ok);
    gate = Promise.resolve();
    assert.ok((await run('ops', 'db.t', 3)).ok, 'the lock was released');
  });

  test('force => true needs ADMIN on top of the table privilege', async () => {
    const forced = (user: string) => executor.run({ catalog: 'paimon', procedure: 'change_tag', args: named(['table', str('db.t')], ['force', { kind: 'boolean', value: true }]), statement: 'CALL ...' }, caller(user), new AbortController().signal);
    const o = await forced('ops');
    assert.ok(!o.ok && o.error.code === 'ADMIN_REQUIRED' && o.error.errno === 1227, o.ok ? '' : o.error.message);
    assert.ok((await forced('admin')).ok);
  });

  test('the active-calls gauge returns to zero, also after refused calls', async () => {
    assert.match(await provider.registry.metrics(), /paimon_proxy_jobs_active\{mode="sync"\} 0/);
  });

  test('no secret reaches the audit records', () => {
    assert.ok(!JSON.stringify(audit.records).includes(SECRET));
  });
});

test('tracePhaseOf maps procedure progress phases', () => {
  assert.equal(tracePhaseOf('plan'), 'plan');
  assert.equal(tracePhaseOf('delete data files'), 'write');
  assert.equal(tracePhaseOf('commit snapshot'), 'commit');
});
