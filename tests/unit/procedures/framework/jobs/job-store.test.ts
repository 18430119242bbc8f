import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mask } from '../../../../../src/security/masking.js';
import { mkdtempSync, readFileSync, appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { FileJobStore } from '../../../../../procedures/framework/jobs/file-job-store.js';
import { JobManager, jobRow, JOB_COLUMNS } from '../../../../../procedures/framework/jobs/job-manager.js';
import { HeavyJobLimiter } from '../../../../../procedures/framework/concurrency/heavy-job-limiter.js';
import { ProcedureError, isProcedureError } from '../../../../../procedures/framework/errors.js';
import { isJobId, type JobRecord } from '../../../../../procedures/framework/jobs/job.js';

const base = process.env.TEST_TMP ?? tmpdir();
const newDir = () => mkdtempSync(join(base, 'jobs-unit-'));
const sub = (procedure = 'compact') => ({
  catalog: 'paimon', procedure, arguments: { table: 'sales.orders' }, statement: `CALL paimon.sys.${procedure}('sales.orders')`,
  user: 'ops', clientAddress: '127.0.0.1:1', connectionId: 5, heavy: true,
});
const store = (dir: string) => new FileJobStore({ dir, retentionMs: 86_400_000, owner: 'test-proxy' });

describe('JobManager with the file store', () => {
  test('submit returns a queued job at once; it runs, reports progress and succeeds with its result', async () => {
    const dir = newDir();
    const m = new JobManager({ redact: mask, store: store(dir), owner: 'test-proxy', progressIntervalMs: 0 });
    await m.open();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const rec = await m.submit(sub(), async (ctx) => {
      ctx.progress({ phase: 'write', done: 1, total: 4 });
      await gate;
      ctx.markCommitted();
      return { columns: ['result'], rows: [['true']] };
    });
    assert.ok(isJobId(rec.id));
    assert.equal(rec.state, 'queued');
    let mid = await m.get(rec.id);
    for (let i = 0; i < 200 && (mid.state !== 'running' || mid.progress === null); i++) {
      await new Promise((r) => setTimeout(r, 10));
      mid = await m.get(rec.id);
    }
    assert.equal(mid.state, 'running');
    assert.deepEqual(mid.progress, { phase: 'write', done: 1, total: 4 });
    release();
    await m.whenFinished(rec.id);
    const fin = await m.get(rec.id);
    assert.equal(fin.state, 'succeeded');
    assert.equal(fin.committed, true);
    assert.deepEqual(fin.result, { columns: ['result'], rows: [['true']] });
    assert.equal(jobRow(fin).length, JOB_COLUMNS.length);
    await m.close();
  });
  test('a failing job records code, errno and committed; cancel aborts a running job', async () => {
    const m = new JobManager({ redact: mask, store: store(newDir()), owner: 'p' });
    await m.open();
    const bad = await m.submit(sub(), async () => { throw new ProcedureError('COMMIT_CONFLICT', 'lost the race', { committed: false }); });
    await m.whenFinished(bad.id);
    const b = await m.get(bad.id);
    assert.equal(b.state, 'failed');
    assert.deepEqual([b.error?.code, b.error?.errno, b.error?.committed], ['COMMIT_CONFLICT', 1213, false]);
    const long = await m.submit(sub(), (ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))));
    for (let i = 0; i < 200 && (await m.get(long.id)).state !== 'running'; i++) await new Promise((r) => setTimeout(r, 10));
    const c = await m.cancel(long.id);
    assert.equal(c.action, 'aborted');
    await m.whenFinished(long.id);
    const l = await m.get(long.id);
    assert.equal(l.state, 'cancelled');
    assert.equal(l.error?.code, 'QUERY_INTERRUPTED');
    assert.match(l.error?.message ?? '', /Nothing was committed/);
    assert.equal((await m.cancel(long.id)).action, 'already_finished');
    await assert.rejects(m.cancel('job-000000000000'), (e) => isProcedureError(e, 'JOB_NOT_FOUND'));
    assert.deepEqual((await m.list({ states: ['cancelled'] })).map((r) => r.id), [long.id]);
    await m.close();
  });
  test('a queued job waits for the heavy-job cap and can be cancelled while queued', async () => {
    const m = new JobManager({ redact: mask, store: store(newDir()), owner: 'p', limiter: new HeavyJobLimiter(1) });
    await m.open();
    let release!: () => void;
    const first = await m.submit(sub(), () => new Promise((r) => (release = () => r({ columns: [], rows: [] }))));
    let secondRan = false;
    const second = await m.submit(sub(), async () => { secondRan = true; return { columns: [], rows: [] }; });
    await new Promise((r) => setTimeout(r, 10));
    assert.equal((await m.get(second.id)).state, 'queued');
    await m.cancel(second.id);
    await m.whenFinished(second.id);
    assert.equal((await m.get(second.id)).state, 'cancelled');
    assert.equal(secondRan, false);
    release();
    await m.whenFinished(first.id);
    assert.equal((await m.get(first.id)).state, 'succeeded');
    await m.close();
  });
});

describe('FileJobStore across restarts', () => {
  test('records survive; jobs left running are failed "interrupted by restart", never re-run', async () => {
    const dir = newDir();
    // A real child process creates jobs and dies (SIGKILL) while one is running.
    const script = `
      import { FileJobStore } from ${JSON.stringify(new URL('../../../../../procedures/framework/jobs/file-job-store.ts', import.meta.url).pathname)};
      import { JobManager } from ${JSON.stringify(new URL('../../../../../procedures/framework/jobs/job-manager.ts', import.meta.url).pathname)};
      import { mask } from ${JSON.stringify(new URL('../../../../../src/security/masking.ts', import.meta.url).pathname)};
      const m = new JobManager({ redact: mask, store: new FileJobStore({ dir: ${JSON.stringify(dir)}, retentionMs: 86400000, owner: 'p' }), owner: 'p' });
      await m.open();
      const done = await m.submit(${JSON.stringify(sub('create_tag'))}, async () => ({ columns: ['r'], rows: [['ok']] }));
      await m.whenFinished(done.id);
      const run = await m.submit(${JSON.stringify(sub('compact'))}, (ctx) => { ctx.markCommitted(); return new Promise(() => {}); });
      await new Promise((r) => setTimeout(r, 100));
      console.log(JSON.stringify({ done: done.id, run: run.id }));
      process.kill(process.pid, 'SIGKILL');
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: process.cwd() });
    assert.equal(child.signal, 'SIGKILL', child.stderr);
    const ids = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { done: string; run: string };
    // A torn last line, as a crash mid-write leaves.
    appendFileSync(join(dir, 'jobs.jsonl'), '{"id":"job-torn","sta');
    const s = store(dir);
    const m = new JobManager({ redact: mask, store: s, owner: 'p' });
    const { interrupted } = await m.open();
    assert.equal(interrupted, 1);
    assert.equal(s.skippedLines, 1);
    const done = await m.get(ids.done);
    assert.equal(done.state, 'succeeded');
    const run = await m.get(ids.run);
    assert.equal(run.state, 'failed');
    assert.equal(run.error?.code, 'QUERY_INTERRUPTED');
    assert.match(run.error?.message ?? '', /interrupted by restart/);
    assert.equal(run.committed, true, 'the commit declared before the crash is remembered');
    await m.close();
    // Compacted: one line per job.
    const lines = readFileSync(join(dir, 'jobs.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as JobRecord);
    assert.deepEqual(new Set(lines.map((l) => l.id)), new Set([ids.done, ids.run]));
  });
  test('a second store on the same directory is refused (other live process, or this one); a stale lock is taken over', async () => {
    const dir = newDir();
    const a = store(dir);
    await a.open();
    await assert.rejects(store(dir).open(), /already open in this process/);
    await a.close();
    // A live process other than us holds it: the parent (the test runner).
    writeFileSync(join(dir, 'jobs.lock'), String(process.ppid));
    await assert.rejects(store(dir).open(), /in use by process/);
    // A dead process's lock is taken over.
    writeFileSync(join(dir, 'jobs.lock'), '999999999');
    const b = store(dir);
    await b.open();
    await b.close();
  });
});
