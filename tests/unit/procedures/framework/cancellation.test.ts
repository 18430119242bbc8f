import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { CancellationRegistry, KillReason, ClientGoneReason, parseDurationMs, resolveTimeout } from '../../../../procedures/framework/cancellation.js';
import { CallTimeoutReason, abortError, isProcedureError } from '../../../../procedures/framework/errors.js';

const settings = { defaultMs: 60_000, maxMs: 3_600_000 };

describe('timeouts', () => {
  test('durations: numbers are seconds, strings carry units', () => {
    assert.equal(parseDurationMs(30, 't'), 30_000);
    assert.equal(parseDurationMs('500ms', 't'), 500);
    assert.equal(parseDurationMs('90s', 't'), 90_000);
    assert.equal(parseDurationMs('10m', 't'), 600_000);
    assert.equal(parseDurationMs('2h', 't'), 7_200_000);
    assert.equal(parseDurationMs('1.5', 't'), 1500);
    for (const bad of [0, -1, 'soon', '', '5 weeks', Number.NaN]) {
      assert.throws(() => parseDurationMs(bad, 't'), (e) => isProcedureError(e, 'INVALID_ARGUMENT'));
    }
  });
  test('argument beats session beats default; argument above max is refused, session is lowered', () => {
    assert.deepEqual(resolveTimeout('5m', '1m', settings), { ms: 300_000, source: 'argument' });
    assert.deepEqual(resolveTimeout(null, '1m', settings), { ms: 60_000, source: 'session' });
    assert.deepEqual(resolveTimeout(undefined, undefined, settings), { ms: 60_000, source: 'default' });
    assert.throws(() => resolveTimeout('2h', null, settings), (e) => isProcedureError(e, 'INVALID_ARGUMENT') && /maximum/.test((e as Error).message));
    const s = resolveTimeout(null, '5h', settings);
    assert.equal(s.ms, 3_600_000);
    assert.match(s.note ?? '', /above the maximum/);
  });
});

describe('CancellationRegistry', () => {
  test('KILL QUERY from another connection aborts the running call of the target only', () => {
    const reg = new CancellationRegistry();
    const a = reg.start({ connectionId: 7, queryId: 'q1', procedure: 'compact' }, Infinity);
    const b = reg.start({ connectionId: 8, queryId: 'q2', procedure: 'compact' }, Infinity);
    assert.equal(reg.isRunning(7), true);
    assert.equal(reg.kill(7, 'query', 9), true);
    assert.equal(a.signal.aborted, true);
    assert.ok(a.signal.reason instanceof KillReason);
    assert.match((a.signal.reason as Error).message, /KILL QUERY 7 from connection 9/);
    assert.equal(b.signal.aborted, false);
    const err = abortError(a.signal, false);
    assert.equal(err.code, 'QUERY_INTERRUPTED');
    assert.equal(err.errno, 1317);
    assert.match(err.message, /Nothing was committed/);
    a.dispose(); b.dispose();
    assert.equal(reg.isRunning(7), false);
    assert.equal(reg.kill(7, 'connection'), false, 'nothing to kill: the KILL goes upstream');
  });
  test('the time limit aborts with a CallTimeoutReason', async () => {
    const reg = new CancellationRegistry();
    const h = reg.start({ connectionId: 1, queryId: 'q', procedure: 'p' }, 20);
    await new Promise((r) => setTimeout(r, 60));
    assert.ok(h.signal.reason instanceof CallTimeoutReason);
    assert.equal(abortError(h.signal, true).code, 'TIMEOUT');
    assert.match(abortError(h.signal, true).message, /committed/);
    h.dispose();
  });
  test('a client disconnect aborts its synchronous call', () => {
    const reg = new CancellationRegistry();
    const gone = new AbortController();
    const h = reg.start({ connectionId: 3, queryId: 'q', procedure: 'p' }, Infinity, gone.signal);
    assert.equal(h.signal.aborted, false);
    gone.abort();
    assert.ok(h.signal.reason instanceof ClientGoneReason);
    h.dispose();
    assert.deepEqual(reg.list(), []);
  });
});

test('SET @paimon_call_timeout is mirrored per connection', async () => {
  const { SessionTimeouts, parseSessionTimeoutSet } = await import('../../../../procedures/framework/cancellation.js');
  assert.equal(parseSessionTimeoutSet("SET @paimon_call_timeout = '10m'"), '10m');
  assert.equal(parseSessionTimeoutSet('set @PAIMON_CALL_TIMEOUT:=600'), '600');
  assert.equal(parseSessionTimeoutSet('SET @a = 1, @paimon_call_timeout = NULL'), null);
  assert.equal(parseSessionTimeoutSet('SELECT @paimon_call_timeout'), undefined);
  const t = new SessionTimeouts();
  t.observe(1, "SET @paimon_call_timeout = '5m'");
  t.observe(2, 'SET @x = 1');
  assert.equal(t.get(1), '5m');
  assert.equal(t.get(2), undefined);
  assert.equal(resolveTimeout(null, t.get(1), settings).ms, 300_000);
  t.observe(1, 'SET @paimon_call_timeout = NULL');
  assert.equal(t.get(1), undefined);
});
