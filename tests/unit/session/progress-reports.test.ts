/**
 * The session's progress reporter (src/session/progress-reports.ts): a packet only when the
 * call's progress changed, each new phase the next stage, sequence ids from 1 on, and the
 * response continuing after them; the current progress read from the router's registry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseProgressReport } from '../../../protocol/progress-report.js';
import { CancellationRegistry } from '../../../procedures/framework/cancellation.js';
import { currentProgress, ProgressReporter, type ProgressView } from '../../../src/session/progress-reports.js';

test('reports changes only, numbers phases as stages and sequence ids from 1', () => {
  let now: ProgressView | undefined;
  const sent: { seq: number; payload: Buffer }[] = [];
  const r = new ProgressReporter(() => now, (payload, seq) => sent.push({ seq, payload }));
  r.tick();
  assert.equal(sent.length, 0, 'nothing reported yet');
  now = { phase: 'scan t', done: 0 };
  r.tick();
  r.tick();
  now = { phase: 'delete t', done: 250, total: 1000 };
  r.tick();
  now = { phase: 'delete t', done: 500, total: 1000 };
  r.tick();
  now = { phase: 'scan t', done: 3, message: 'again' };
  r.tick();
  assert.deepEqual(sent.map((s) => s.seq), [1, 2, 3, 4]);
  assert.deepEqual(
    sent.map((s) => parseProgressReport(s.payload)),
    [
      { stage: 1, maxStage: 1, progress: 0, info: 'scan t 0' },
      { stage: 2, maxStage: 2, progress: 0.25, info: 'delete t 250/1000' },
      { stage: 2, maxStage: 2, progress: 0.5, info: 'delete t 500/1000' },
      { stage: 1, maxStage: 2, progress: 0, info: 'scan t 3: again' },
    ],
  );
  assert.equal(r.stop(), 5, 'the response goes on at the next sequence id');
});

test('with no report the response starts at sequence id 1; the timer stops', async () => {
  let reads = 0;
  const r = new ProgressReporter(() => (reads++, undefined), () => assert.fail('nothing to send'), 5).start();
  await new Promise((res) => setTimeout(res, 40));
  assert.equal(r.stop(), 1);
  const after = reads;
  assert.ok(after > 0);
  await new Promise((res) => setTimeout(res, 30));
  assert.equal(reads, after, 'no reads after stop');
});

test("the current progress is the running call's entry in the router's registry", () => {
  const calls = new CancellationRegistry();
  assert.equal(currentProgress({ calls }, 7), undefined);
  assert.equal(currentProgress({}, 7), undefined, 'a router without a registry');
  const untrack = calls.track({ connectionId: 7, queryId: 'q1', procedure: 'compact', user: 'u', catalog: 'paimon', clientAddress: 'x' }, new AbortController());
  assert.equal(currentProgress({ calls }, 7), undefined, 'running, nothing reported');
  calls.progress('q1', { phase: 'compact', done: 1, total: 4 });
  assert.deepEqual(
    (({ phase, done, total }) => ({ phase, done, total }))(currentProgress({ calls }, 7)!),
    { phase: 'compact', done: 1, total: 4 },
  );
  assert.equal(currentProgress({ calls }, 8), undefined, 'another connection');
  untrack();
  assert.equal(currentProgress({ calls }, 7), undefined);
});
