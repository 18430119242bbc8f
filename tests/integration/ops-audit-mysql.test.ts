import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RowDataPacket } from 'mysql2/promise';
import { MysqlAuditSink, FileAuditSink, MultiAuditSink, runAudited } from '../../src/observability/audit.js';
import { ProcedureError, CallTimeoutReason, abortError } from '../../procedures/framework/errors.js';
import { mariadbEnv, scratchDatabase, adminConnection, testSecret, scratchDir } from './ops-env.js';

const SECRET = testSecret('audit-mysql');

test('audit records reach a MariaDB table and the JSON-lines file for success, failure, cancel and timeout', async () => {
  const db = mariadbEnv();
  const database = await scratchDatabase('ops_audit');
  const mysqlSink = new MysqlAuditSink({ host: db.host, port: db.port, user: db.user, password: db.password, database, table: 'call_audit' });
  const file = join(scratchDir('ops-audit'), 'audit.jsonl');
  const sink = new MultiAuditSink([new FileAuditSink(file), mysqlSink]);
  after(() => sink.close());
  const base = {
    connectionId: 31, user: 'ops', clientAddress: '127.0.0.1:40000', catalog: 'paimon', procedure: 'expire_snapshots',
    arguments: { table: 'sales.orders', options: `s3.secret-key=${SECRET}` },
    statement: `CALL paimon.sys.expire_snapshots(table => 'sales.orders', options => 's3.secret-key=${SECRET}')`,
  };
  await runAudited(sink, { ...base, queryId: 'q-ok', dryRun: false }, async (p) => {
    p.pinnedSnapshot = 41; p.resultingSnapshot = 42; p.affectedObjects.push('sales.orders'); p.phases.commit = 5;
    return 'done';
  });
  await assert.rejects(runAudited(sink, { ...base, queryId: 'q-fail' }, async () => {
    throw new ProcedureError('COMMIT_CONFLICT', `conflict while using password=${SECRET}`, { committed: false });
  }));
  const kill = new AbortController();
  kill.abort(new Error('killed by KILL QUERY 31'));
  await assert.rejects(runAudited(sink, { ...base, queryId: 'q-kill' }, async () => { throw abortError(kill.signal, false); }));
  const to = new AbortController();
  to.abort(new CallTimeoutReason(1000));
  await assert.rejects(runAudited(sink, { ...base, queryId: 'q-timeout' }, async () => { throw abortError(to.signal, true); }));

  const c = await adminConnection(database);
  try {
    const [rows] = await c.query<RowDataPacket[]>('SELECT * FROM call_audit ORDER BY start_time, query_id');
    const byId = new Map(rows.map((r) => [r.query_id as string, r]));
    assert.deepEqual([...byId.keys()].sort(), ['q-fail', 'q-kill', 'q-ok', 'q-timeout']);
    const ok = byId.get('q-ok')!;
    assert.equal(ok.outcome, 'succeeded');
    assert.equal(Number(ok.pinned_snapshot), 41);
    assert.equal(Number(ok.resulting_snapshot), 42);
    assert.equal(ok.committed, 1);
    assert.equal(ok.connection_id, 31);
    assert.equal(ok.user_name, 'ops');
    assert.equal(ok.procedure_name, 'expire_snapshots');
    assert.deepEqual(JSON.parse(ok.affected_objects as string), ['sales.orders']);
    assert.equal(byId.get('q-fail')!.outcome, 'failed');
    assert.equal(byId.get('q-fail')!.error_code, 'COMMIT_CONFLICT');
    assert.equal(byId.get('q-fail')!.errno, 1213);
    assert.equal(byId.get('q-kill')!.outcome, 'cancelled');
    assert.equal(byId.get('q-kill')!.errno, 1317);
    assert.equal(byId.get('q-timeout')!.outcome, 'timeout');
    assert.equal(byId.get('q-timeout')!.committed, 1);
    const [dump] = await c.query<RowDataPacket[]>('SELECT arguments, statement, error_message FROM call_audit');
    assert.ok(!JSON.stringify(dump).includes(SECRET), 'secret stored in the audit table');
  } finally {
    await c.end();
  }
  const text = readFileSync(file, 'utf8');
  assert.equal(text.trim().split('\n').length, 4);
  assert.ok(!text.includes(SECRET));
});

test('an unreachable audit database does not lose the file record', async () => {
  const file = join(scratchDir('ops-audit-down'), 'audit.jsonl');
  const down = new MysqlAuditSink({ host: '127.0.0.1', port: 1, user: 'x', password: SECRET, database: 'x', table: 't', connectTimeoutMs: 500 });
  const sink = new MultiAuditSink([new FileAuditSink(file), down]);
  await runAudited(sink, { connectionId: 1, user: 'u', clientAddress: 'a', catalog: 'paimon', procedure: 'create_tag', arguments: {} }, async () => 1);
  await sink.close();
  assert.equal(readFileSync(file, 'utf8').trim().split('\n').length, 1);
});
