import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, writeFile, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema } from '../../../src/config-schema.js';
import { startOps, defaultDataDir } from '../../../src/observability/ops-runtime.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { defineProcedure, ProcedureRegistry } from '../../../procedures/framework/registry.js';
import { ProcedureExecutor } from '../../../procedures/framework/executor.js';
import { buildCatalogs } from '../../../src/catalogs.js';
import type { ArgumentValue, CallArgument } from '../../../procedures/framework/binding.js';

const str = (value: string): ArgumentValue => ({ kind: 'string', value });
const named = (...pairs: [string, ArgumentValue][]): CallArgument[] => pairs.map(([name, value], i) => ({ name, value, offset: i }));

const touch = defineProcedure({
  name: 'touch_table',
  description: 'test: changes a table',
  params: [{ name: 'table', type: 'string', required: true, description: 'db.table' }, { name: 'dry_run', type: 'boolean', default: false, description: '' }],
  resultColumns: [{ name: 'result', type: 'boolean', description: '' }],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  async run(args, ctx) {
    const t = await ctx.resolveTable(args.table);
    ctx.markCommitted();
    ctx.reportAffected(t.identifier);
    return { rows: [{ result: true }] };
  },
});

test('startOps from a standalone config: grants from the users, audit file in the warehouse, /metrics served, jobs', async () => {
  const wh = await mkdtemp(join(process.env.TEST_TMP ?? tmpdir(), 'ops-runtime-'));
  await mkdir(join(wh, 'db.db', 't', 'schema'), { recursive: true });
  await writeFile(join(wh, 'db.db', 't', 'schema', 'schema-0'), '{}');
  const config = configSchema.parse({ catalogs: [{ name: 'paimon', warehouse: wh }], metrics: { port: 0 } });
  assert.equal(defaultDataDir(config), join(wh, '.paimon-proxy'));
  const ops = await startOps(config, { logger: silentLogger(), localUsers: [{ name: 'root', grants: ['ALL ON *.*.*'] }, { name: 'viewer', grants: ['SELECT ON paimon.*.*'] }] });
  try {
    const executor = new ProcedureExecutor({
      registry: new ProcedureRegistry([touch, ...ops.jobProcedures]),
      catalogs: buildCatalogs(config),
      limits: config.procedures,
      hooks: ops.hooks,
      frameworkParams: ops.frameworkParams,
    });
    const caller = (user: string) => ({ user, connectionId: 1, clientAddress: '127.0.0.1:9', currentDatabase: null });
    const ok = await executor.run({ catalog: 'paimon', procedure: 'touch_table', args: named(['table', str('db.t')]), statement: "CALL paimon.sys.touch_table('db.t')" }, caller('root'), new AbortController().signal);
    assert.ok(ok.ok, ok.ok ? '' : ok.error.message);
    const denied = await executor.run({ catalog: 'paimon', procedure: 'touch_table', args: named(['table', str('db.t')]), statement: "CALL paimon.sys.touch_table('db.t')" }, caller('viewer'), new AbortController().signal);
    assert.ok(!denied.ok && denied.error.code === 'TABLE_ACCESS_DENIED');
    const req = { catalog: 'paimon', procedure: 'touch_table', args: named(['table', str('db.t')], ['async', { kind: 'boolean', value: true }]), statement: 'CALL ...' };
    assert.equal(ops.isAsync(req), true);
    const replies = await ops.submitAsync(executor, req, caller('root'));
    const id = replies[0]!.kind === 'resultset' ? replies[0]!.rows[0]![0]! : '';
    await ops.jobs.whenFinished(id);
    assert.equal((await ops.jobs.get(id)).state, 'succeeded');
    assert.ok(ops.metricsPort !== null);
    const text = await (await fetch(`http://127.0.0.1:${ops.metricsPort}/metrics`)).text();
    assert.match(text, /paimon_proxy_calls_total\{outcome="denied",procedure="touch_table"\}/);
    const auditFile = join(wh, '.paimon-proxy', 'audit.jsonl');
    const lines = (await readFile(auditFile, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { outcome: string; user: string });
    assert.deepEqual(lines.map((l) => `${l.user}:${l.outcome}`), ['root:succeeded', 'viewer:denied', 'root:succeeded']);
    assert.ok(existsSync(join(wh, '.paimon-proxy', 'jobs.jsonl')));
    assert.deepEqual(await buildCatalogs(config).get('paimon')!.listDatabases(), ['db'], 'the data dir is not a database');
  } finally {
    await ops.close();
  }
});
