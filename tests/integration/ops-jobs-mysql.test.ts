import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mask } from '../../src/security/masking.js';
import { MysqlJobStore } from '../../procedures/framework/jobs/mysql-job-store.js';
import { JobManager } from '../../procedures/framework/jobs/job-manager.js';
import { newJobId, type JobRecord } from '../../procedures/framework/jobs/job.js';
import { mariadbEnv, scratchDatabase } from './ops-env.js';

const env = mariadbEnv();
const database = await scratchDatabase('ops_jobs');
const store = (owner: string) =>
  new MysqlJobStore({ host: env.host, port: env.port, user: env.user, password: env.password, database, table: 'proc_jobs', owner, retentionMs: 86_400_000 });
const sub = { catalog: 'paimon', procedure: 'compact', arguments: { table: 'sales.orders' }, statement: null, user: 'ops', clientAddress: '127.0.0.1:1', connectionId: 3, heavy: false };

function record(owner: string, state: JobRecord['state'], committed = false): JobRecord {
  const now = Date.now();
  return {
    id: newJobId(), catalog: 'paimon', procedure: 'expire_snapshots', arguments: {}, statement: null, user: 'ops', clientAddress: 'x',
    connectionId: 1, state, progress: null, result: null, error: null, committed, owner, cancelRequested: false,
    createdAt: now, startedAt: now, finishedAt: null, updatedAt: now,
  };
}

test('jobs in a shared MariaDB table: run, list, cancel from another proxy', async () => {
  const a = new JobManager({ redact: mask, store: store('proxy-a'), owner: 'proxy-a', cancelPollMs: 50 });
  const b = new JobManager({ redact: mask, store: store('proxy-b'), owner: 'proxy-b', cancelPollMs: 50 });
  await a.open();
  await b.open();
  after(async () => { await a.close(); await b.close(); });
  const quick = await a.submit(sub, async (ctx) => { ctx.progress({ phase: 'write', done: 2, total: 2 }); return { columns: ['ok'], rows: [['1']] }; });
  await a.whenFinished(quick.id);
  const seenByB = await b.get(quick.id);
  assert.equal(seenByB.state, 'succeeded');
  assert.deepEqual(seenByB.result, { columns: ['ok'], rows: [['1']] });
  assert.equal(seenByB.owner, 'proxy-a');

  // A progress update racing the final state must never win (updates of a job are serialised).
  for (let i = 0; i < 8; i++) {
    const j = await a.submit(sub, async (ctx) => { ctx.progress({ phase: 'write', done: i }); ctx.markCommitted(); return { columns: [], rows: [] }; });
    await a.whenFinished(j.id);
    await new Promise((r) => setTimeout(r, 20));
    const got = await b.get(j.id);
    assert.equal(got.state, 'succeeded', `job ${i}`);
    assert.equal(got.committed, true);
  }

  const long = await a.submit(sub, (ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))));
  for (let i = 0; i < 100 && (await b.get(long.id)).state !== 'running'; i++) await new Promise((r) => setTimeout(r, 20));
  const c = await b.cancel(long.id);
  assert.equal(c.action, 'requested', 'proxy-b does not run the job: it can only ask');
  await a.whenFinished(long.id);
  const fin = await b.get(long.id);
  assert.equal(fin.state, 'cancelled');
  assert.equal(fin.error?.code, 'QUERY_INTERRUPTED');
  const listed = await b.list({ states: ['cancelled', 'succeeded'] });
  assert.equal(listed.length, 10);
  assert.ok(listed.some((r) => r.id === quick.id) && listed.some((r) => r.id === long.id));
  assert.equal(listed[0]!.id, long.id, 'newest first');
});

test('a restart fails only its own interrupted jobs, saying whether anything was committed', async () => {
  const seed = store('seed');
  await seed.open();
  const mineRunning = record('proxy-r', 'running', true);
  const mineQueued = record('proxy-r', 'queued');
  const theirs = record('proxy-s', 'running');
  for (const r of [mineRunning, mineQueued, theirs]) await seed.create(r);
  await seed.close();
  const m = new JobManager({ redact: mask, store: store('proxy-r'), owner: 'proxy-r' });
  const { interrupted } = await m.open();
  assert.equal(interrupted, 2);
  const r1 = await m.get(mineRunning.id);
  assert.equal(r1.state, 'failed');
  assert.match(r1.error?.message ?? '', /interrupted by restart.*after its commit/);
  const r2 = await m.get(mineQueued.id);
  assert.equal(r2.state, 'failed');
  assert.match(r2.error?.message ?? '', /nothing was committed/);
  assert.equal((await m.get(theirs.id)).state, 'running', 'another proxy\'s job is not touched');
  await m.close();
});
