/**
 * The ops runtime configured against the real MariaDB as the FE stand-in: a procedure that
 * changes a table ends with REFRESH TABLE sent on the proxy's own connection (seen in the
 * general log) and, since MariaDB refuses Doris's statement, a warning on the CALL's OK; its
 * audit record lands in a MariaDB table; jobs live in a shared MariaDB table.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile, readFile } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { RowDataPacket } from 'mysql2/promise';
import { configSchema } from '../../src/config-schema.js';
import { startOps } from '../../src/observability/ops-runtime.js';
import { createLogger } from '../../src/observability/logger.js';
import { defineProcedure, ProcedureRegistry } from '../../procedures/framework/registry.js';
import { ProcedureExecutor } from '../../procedures/framework/executor.js';
import { buildCatalogs } from '../../src/catalogs.js';
import type { ArgumentValue, CallArgument } from '../../procedures/framework/binding.js';
import { mariadbEnv, scratchDatabase, scratchDir, adminConnection, testSecret, readFrom } from './ops-env.js';

const str = (value: string): ArgumentValue => ({ kind: 'string', value });
const named = (...pairs: [string, ArgumentValue][]): CallArgument[] => pairs.map(([name, value], i) => ({ name, value, offset: i }));

const touch = defineProcedure({
  name: 'touch_table',
  description: 'test: changes a table',
  params: [{ name: 'table', type: 'string', required: true, description: 'db.table' }, { name: 'options', type: 'string', description: '' }, { name: 'dry_run', type: 'boolean', default: false, description: '' }],
  resultColumns: [{ name: 'result', type: 'boolean', description: '' }, { name: 'pinned_snapshot_id', type: 'bigint', description: '' }],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  async run(args, ctx) {
    const t = await ctx.resolveTable(args.table);
    ctx.progress({ phase: 'commit' });
    ctx.markCommitted();
    ctx.reportAffected(t.identifier);
    return { rows: [{ result: true, pinned_snapshot_id: 12n }] };
  },
});

test('a changing CALL: REFRESH TABLE reaches MariaDB, its failure is a warning on the OK, audit row and job rows in MariaDB', async () => {
  const db = mariadbEnv();
  const database = await scratchDatabase('ops_runtime');
  const wh = scratchDir('ops-runtime-wh');
  const table = `orders_${Date.now().toString(36)}`;
  await mkdir(join(wh, 'sales.db', table, 'schema'), { recursive: true });
  await writeFile(join(wh, 'sales.db', table, 'schema', 'schema-0'), '{}');
  const secret = testSecret('runtime');
  const target = { host: db.host, port: db.port, user: db.user, password: db.password, database };
  const config = configSchema.parse({
    upstream: { host: db.host, port: db.port, refresh_user: db.user, refresh_password: db.password },
    catalogs: [{ name: 'paimon', warehouse: wh, properties: { 's3.secret-key': secret } }],
    audit: { mysql: target },
    jobs: { store: 'mysql', mysql: target },
    metrics: { port: 0 },
  });
  const logFile = join(scratchDir('ops-runtime-log'), 'proxy.log');
  const logger = createLogger({ level: 'debug', file: logFile });
  const ops = await startOps(config, { logger, owner: 'ops-runtime-test' });
  const offset = statSync(db.generalLog).size;
  try {
    assert.ok(ops.startupNotes.some((n) => /privilege checks are not possible/.test(n)), ops.startupNotes.join('; '));
    const executor = new ProcedureExecutor({
      registry: new ProcedureRegistry([touch, ...ops.jobProcedures]),
      catalogs: buildCatalogs(config),
      limits: config.procedures,
      hooks: ops.hooks,
      frameworkParams: ops.frameworkParams,
    });
    const caller = { user: 'ops', connectionId: 77, clientAddress: '127.0.0.1:5000', currentDatabase: 'sales' };
    const o = await executor.run({ catalog: 'paimon', procedure: 'touch_table', args: named(['table', str(table)], ['options', str(`s3.secret-key=${secret}`)]), statement: `CALL paimon.sys.touch_table('${table}', 's3.secret-key=${secret}')` }, caller, new AbortController().signal);
    assert.ok(o.ok, o.ok ? '' : o.error.message);
    if (!o.ok) return;
    const ok = o.replies.at(-1)!;
    assert.equal(ok.kind, 'ok');
    const warnings = ok.kind === 'ok' ? ok.warnings ?? [] : [];
    assert.ok(warnings.some((w) => w.level === 'Warning' && w.message.includes(`REFRESH TABLE \`paimon\`.\`sales\`.\`${table}\``)), JSON.stringify(warnings));
    const log = readFrom(db.generalLog, offset);
    assert.ok(log.includes(`REFRESH TABLE \`paimon\`.\`sales\`.\`${table}\``), 'REFRESH TABLE not in the general log');

    const c = await adminConnection(database);
    try {
      const [rows] = await c.query<RowDataPacket[]>('SELECT * FROM paimon_procedure_audit WHERE connection_id = 77');
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.outcome, 'succeeded');
      assert.equal(rows[0]!.procedure_name, 'touch_table');
      assert.equal(Number(rows[0]!.pinned_snapshot), 12);
      assert.ok(!JSON.stringify(rows).includes(secret));
      assert.ok(JSON.parse(rows[0]!.phases as string).refresh >= 0);
    } finally {
      await c.end();
    }

    const sub = await ops.submitAsync(executor, { catalog: 'paimon', procedure: 'touch_table', args: named(['table', str(table)], ['async', { kind: 'boolean', value: true }]), statement: 'CALL ... async' }, caller);
    const id = sub[0]!.kind === 'resultset' ? sub[0]!.rows[0]![0]! : '';
    await ops.jobs.whenFinished(id);
    const c2 = await adminConnection(database);
    try {
      const [jobRows] = await c2.query<RowDataPacket[]>('SELECT state, owner FROM paimon_procedure_jobs WHERE id = ?', [id]);
      assert.deepEqual(jobRows.map((r) => [r.state, r.owner]), [['succeeded', 'ops-runtime-test']]);
    } finally {
      await c2.end();
    }
    const metrics = await (await fetch(`http://127.0.0.1:${ops.metricsPort}/metrics`)).text();
    assert.match(metrics, /paimon_proxy_fe_refreshes_total\{outcome="failed"\} [1-9]/);
  } finally {
    await ops.close();
    await new Promise<void>((r) => logger.flush(() => r()));
  }
  assert.ok(!(await readFile(logFile, 'utf8')).includes(secret));
});
