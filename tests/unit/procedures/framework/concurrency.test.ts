import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { TableLockManager, tableLockKey } from '../../../../procedures/framework/concurrency/table-lock.js';
import { HeavyJobLimiter } from '../../../../procedures/framework/concurrency/heavy-job-limiter.js';
import { isProcedureError } from '../../../../procedures/framework/errors.js';
import { KillReason } from '../../../../procedures/framework/cancellation.js';

const holder = (q: string) => ({ procedure: 'expire_snapshots', queryId: q, connectionId: 1 });
const tick = () => new Promise((r) => setImmediate(r));

describe('TableLockManager', () => {
  test('one holder per table; fail mode refuses at once with TABLE_BUSY naming the holder', async () => {
    const locks = new TableLockManager();
    const key = tableLockKey('Paimon', 'sales', 'orders$branch_b1');
    assert.equal(key, 'paimon.sales.orders');
    const release = await locks.acquire(key, holder('q1'), { mode: 'fail', waitMs: 0 });
    await assert.rejects(locks.acquire(key, holder('q2'), { mode: 'fail', waitMs: 0 }), (e) => isProcedureError(e, 'TABLE_BUSY') && /q1/.test((e as Error).message));
    // Another table is independent.
    (await locks.acquire(tableLockKey('paimon', 'sales', 'items'), holder('q3'), { mode: 'fail', waitMs: 0 }))();
    release();
    (await locks.acquire(key, holder('q4'), { mode: 'fail', waitMs: 0 }))();
    assert.equal(locks.holderOf(key), undefined);
  });
  test('wait mode hands the lock over in FIFO order', async () => {
    const locks = new TableLockManager();
    const order: string[] = [];
    const r1 = await locks.acquire('t', holder('a'), { mode: 'wait', waitMs: 5000 });
    let queued = 0;
    const p2 = locks.acquire('t', holder('b'), { mode: 'wait', waitMs: 5000, onQueued: (d) => (queued += d) }).then((r) => { order.push('b'); return r; });
    const p3 = locks.acquire('t', holder('c'), { mode: 'wait', waitMs: 5000 }).then((r) => { order.push('c'); return r; });
    await tick();
    assert.equal(locks.waiting('t'), 2);
    assert.equal(queued, 1);
    r1();
    const r2 = await p2;
    assert.equal(locks.holderOf('t')?.queryId, 'b');
    assert.equal(queued, 0);
    r2(); r2(); // idempotent
    (await p3)();
    assert.deepEqual(order, ['b', 'c']);
    assert.equal(locks.holderOf('t'), undefined);
  });
  test('a bounded wait times out with TABLE_BUSY, an abort ends the wait with its reason', async () => {
    const locks = new TableLockManager();
    const r = await locks.acquire('t', holder('a'), { mode: 'wait', waitMs: 1000 });
    await assert.rejects(locks.acquire('t', holder('b'), { mode: 'wait', waitMs: 20 }), (e) => isProcedureError(e, 'TABLE_BUSY'));
    const ac = new AbortController();
    const p = locks.acquire('t', holder('c'), { mode: 'wait', waitMs: 10_000, signal: ac.signal });
    ac.abort(new KillReason('query', 1, 2));
    await assert.rejects(p, (e) => e instanceof KillReason);
    assert.equal(locks.waiting('t'), 0);
    r();
    assert.equal(locks.holderOf('t'), undefined);
  });
});

describe('HeavyJobLimiter', () => {
  test('caps concurrent holders and queues the rest', async () => {
    const lim = new HeavyJobLimiter(2);
    const a = await lim.acquire();
    const b = await lim.acquire();
    let gotC = false;
    const pc = lim.acquire().then((r) => { gotC = true; return r; });
    await tick();
    assert.equal(gotC, false);
    assert.equal(lim.active, 2);
    assert.equal(lim.queued, 1);
    await assert.rejects(lim.acquire({ mode: 'fail' }), (e) => isProcedureError(e, 'TOO_MANY_JOBS'));
    a();
    const c = await pc;
    assert.equal(lim.active, 2);
    b(); c();
    assert.equal(lim.active, 0);
    assert.throws(() => new HeavyJobLimiter(0));
  });
  test('property: never more than the cap at once under random workloads', async () => {
    const lim = new HeavyJobLimiter(3);
    let now = 0, max = 0;
    await Promise.all(Array.from({ length: 40 }, async (_, i) => {
      const release = await lim.acquire();
      now++; max = Math.max(max, now);
      await new Promise((r) => setTimeout(r, (i * 7) % 5));
      now--; release();
    }));
    assert.equal(max, 3);
    assert.equal(lim.active, 0);
  });
});
