import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { mask } from '../../../../../src/security/masking.js';
import { FileJobStore } from '../../../../../procedures/framework/jobs/file-job-store.js';
import { JobManager, jobRow, JOB_COLUMNS } from '../../../../../procedures/framework/jobs/job-manager.js';
import { ProcedureError } from '../../../../../procedures/framework/errors.js';
import { shownProgress, type JobRecord } from '../../../../../procedures/framework/jobs/job.js';

const base = process.env.TEST_TMP ?? tmpdir();
const newDir = () => mkdtempSync(join(base, 'jobs-final-'));
const sub = {
  catalog: 'paimon', procedure: 'expire_snapshots', arguments: { table: 'sales.orders' }, statement: null,
  user: 'ops', clientAddress: '127.0.0.1:1', connectionId: 5, heavy: false,
};
const store = (dir: string) => new FileJobStore({ dir, retentionMs: 86_400_000, owner: 'p' });
const progressColumn = (rec: JobRecord): string | null => jobRow(rec)[JOB_COLUMNS.indexOf('progress')]!;

describe('finished jobs show their final phase, not the last one they ran in', () => {
  test("a succeeded job: phase 'done' with the result's summary", async () => {
    const m = new JobManager({ redact: mask, store: store(newDir()), owner: 'p', progressIntervalMs: 0 });
    await m.open();
    const rec = await m.submit(sub, async (ctx) => {
      ctx.progress({ phase: 'plan', message: 'attempt 1' });
      return { columns: ['deleted_snapshots_count'], rows: [['3']], info: 'expired 3 snapshot(s), 12 file(s)' };
    });
    await m.whenFinished(rec.id);
    const fin = await m.get(rec.id);
    assert.equal(fin.state, 'succeeded');
    assert.deepEqual(fin.progress, { phase: 'done', message: 'expired 3 snapshot(s), 12 file(s)' });
    assert.equal(progressColumn(fin), 'done: expired 3 snapshot(s), 12 file(s)');
    // Without an info, the summary counts the rows.
    const quiet = await m.submit(sub, async () => ({ columns: ['a'], rows: [['1'], ['2']] }));
    await m.whenFinished(quiet.id);
    assert.deepEqual((await m.get(quiet.id)).progress, { phase: 'done', message: '2 rows' });
    await m.close();
  });

  test("a failed job: phase 'failed' with the error's code; a cancelled one: 'cancelled'", async () => {
    const m = new JobManager({ redact: mask, store: store(newDir()), owner: 'p', progressIntervalMs: 0 });
    await m.open();
    const bad = await m.submit(sub, async (ctx) => {
      ctx.progress({ phase: 'delete data files', done: 3, total: 10 });
      throw new ProcedureError('CONCURRENT_MODIFICATION', 'tag moved', { committed: false });
    });
    await m.whenFinished(bad.id);
    const b = await m.get(bad.id);
    assert.equal(b.progress?.phase, 'failed');
    assert.match(b.progress?.message ?? '', /^CONCURRENT_MODIFICATION: tag moved/);
    assert.equal(b.progress?.done, undefined, 'the counts of the phase it failed in are not kept as if current');

    const long = await m.submit(sub, (ctx) => {
      ctx.progress({ phase: 'plan', message: 'attempt 1' });
      return new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
    });
    for (let i = 0; i < 200 && (await m.get(long.id)).state !== 'running'; i++) await new Promise((r) => setTimeout(r, 10));
    await m.cancel(long.id);
    await m.whenFinished(long.id);
    const c = await m.get(long.id);
    assert.equal(c.state, 'cancelled');
    assert.equal(c.progress?.phase, 'cancelled');
    assert.match(c.progress?.message ?? '', /^QUERY_INTERRUPTED: .*Nothing was committed/);
    await m.close();
  });

  test("a job interrupted by a restart: phase 'failed'; an old finished record without a final phase is shown with one", async () => {
    const dir = newDir();
    const s1 = store(dir);
    await s1.open();
    const now = Date.now();
    const running: JobRecord = {
      id: 'job-0123456789ab', catalog: 'paimon', procedure: 'compact', arguments: {}, statement: null, user: 'ops', clientAddress: 'x',
      connectionId: null, state: 'running', progress: { phase: 'plan' }, result: null, error: null, committed: false, owner: 'p',
      cancelRequested: false, createdAt: now, startedAt: now, finishedAt: null, updatedAt: now,
    };
    await s1.create(running);
    await s1.close();
    const s2 = store(dir);
    assert.deepEqual(await s2.open(), { interrupted: 1 });
    const rec = (await s2.get(running.id))!;
    assert.equal(rec.state, 'failed');
    assert.equal(rec.progress?.phase, 'failed');
    assert.match(rec.progress?.message ?? '', /^QUERY_INTERRUPTED: .*interrupted by restart/);
    await s2.close();

    const old: JobRecord = { ...running, state: 'succeeded', result: { columns: [], rows: [], info: 'compacted 2 buckets' }, finishedAt: now };
    assert.deepEqual(shownProgress(old), { phase: 'done', message: 'compacted 2 buckets' });
    assert.equal(progressColumn(old), 'done: compacted 2 buckets');
    assert.deepEqual(shownProgress(running), { phase: 'plan' }, 'a running job shows what it reported');
  });
});
