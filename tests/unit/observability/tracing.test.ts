import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Tracer, Span, SpanOptions, Context, Attributes, SpanStatus, AttributeValue } from '@opentelemetry/api';
import { trace, SpanStatusCode } from '@opentelemetry/api';
import { CallTrace } from '../../../src/observability/tracing.js';

interface Recorded { name: string; parent: string | undefined; attributes: Attributes; status?: SpanStatus; ended: boolean }

/** A minimal recording tracer implementing the OpenTelemetry API interfaces. */
function recordingTracer(): { tracer: Tracer; spans: Recorded[] } {
  const spans: Recorded[] = [];
  let n = 0;
  const tracer = {
    startSpan(name: string, options?: SpanOptions, ctx?: Context): Span {
      const parentSpan = ctx ? trace.getSpan(ctx) : undefined;
      const id = (++n).toString(16).padStart(16, '0');
      const rec: Recorded = { name, parent: parentSpan?.spanContext().spanId, attributes: { ...(options?.attributes ?? {}) }, ended: false };
      spans.push(rec);
      const span: Span = {
        spanContext: () => ({ traceId: '1'.repeat(32), spanId: id, traceFlags: 1 }),
        setAttribute(k: string, v: AttributeValue) { rec.attributes[k] = v; return span; },
        setAttributes(a: Attributes) { Object.assign(rec.attributes, a); return span; },
        addEvent() { return span; },
        addLink() { return span; },
        addLinks() { return span; },
        setStatus(s: SpanStatus) { rec.status = s; return span; },
        updateName() { return span; },
        end() { rec.ended = true; },
        isRecording: () => true,
        recordException() {},
      };
      return span;
    },
    startActiveSpan(): never { throw new Error('unused'); },
  } as unknown as Tracer;
  return { tracer, spans };
}

test('a CALL span with one child span per phase, timings kept for the audit', async () => {
  const { tracer, spans } = recordingTracer();
  let t = 0;
  const ct = new CallTrace('expire_snapshots', { 'paimon.catalog': 'paimon' }, { tracer, now: () => t });
  await ct.phase('resolve', async () => { t += 2; });
  await ct.phase('plan', async () => { t += 10; });
  await assert.rejects(ct.phase('commit', async () => { t += 3; throw new Error('conflict password=zz-secret'); }));
  ct.end('failed', { code: 'COMMIT_CONFLICT', message: 'conflict' });
  ct.end('failed');
  assert.deepEqual(spans.map((s) => s.name), ['CALL expire_snapshots', 'resolve', 'plan', 'commit']);
  const rootId = '0000000000000001';
  assert.ok(spans.slice(1).every((s) => s.parent === rootId && s.ended));
  assert.deepEqual(ct.phases, { resolve: 2, plan: 10, commit: 3 });
  assert.equal(spans[3]!.status?.code, SpanStatusCode.ERROR);
  assert.ok(!String(spans[3]!.status?.message).includes('zz-secret'));
  assert.equal(spans[0]!.attributes['paimon.error_code'], 'COMMIT_CONFLICT');
  assert.equal(spans[0]!.attributes['paimon.catalog'], 'paimon');
  assert.ok(spans[0]!.ended);
});

test('without a registered provider, tracing is a cheap no-op that still times phases', async () => {
  const ct = new CallTrace('create_tag', {});
  const v = await ct.phase('write', async () => 42);
  assert.equal(v, 42);
  assert.ok(typeof ct.phases.write === 'number');
  ct.end('succeeded');
});
