import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import * as prom from 'prom-client';
import { PromClientMeterProvider, ProxyMetrics, startMetricsServer, setupMetrics } from '../../../src/observability/metrics.js';
import { metrics as otelMetrics } from '@opentelemetry/api';

describe('PromClientMeterProvider (OpenTelemetry API over prom-client)', () => {
  test('counters, up-down counters, histograms and gauges render as Prometheus text', async () => {
    const provider = new PromClientMeterProvider();
    const meter = provider.getMeter('t');
    meter.createCounter('demo_calls').add(2, { procedure: 'compact', outcome: 'succeeded' });
    meter.createCounter('demo_calls').add(1, { procedure: 'compact', outcome: 'succeeded' });
    const ud = meter.createUpDownCounter('demo_active');
    ud.add(3); ud.add(-1);
    meter.createHistogram('demo_duration', { unit: 's', advice: { explicitBucketBoundaries: [1, 10] } }).record(5, { procedure: 'x' });
    meter.createGauge('demo_level').record(7, { k: 'v' });
    const obs = meter.createObservableGauge('demo_observed');
    obs.addCallback((r) => r.observe(11, { pool: 'a' }));
    const text = await provider.registry.metrics();
    assert.match(text, /# TYPE demo_calls_total counter\ndemo_calls_total\{outcome="succeeded",procedure="compact"\} 3/);
    assert.match(text, /demo_active 2/);
    assert.match(text, /demo_duration_seconds_bucket\{le="1",procedure="x"\} 0/);
    assert.match(text, /demo_duration_seconds_bucket\{le="10",procedure="x"\} 1/);
    assert.match(text, /demo_duration_seconds_count\{procedure="x"\} 1/);
    assert.match(text, /demo_level\{k="v"\} 7/);
    assert.match(text, /# TYPE demo_observed gauge\ndemo_observed\{pool="a"\} 11/);
  });
  test('an unexpected attribute is dropped, not thrown', async () => {
    const provider = new PromClientMeterProvider();
    const c = provider.getMeter('t').createCounter('odd');
    c.add(1, { a: '1' });
    c.add(1, { a: '1', b: '2' });
    assert.match(await provider.registry.metrics(), /odd_total\{a="1"\} 2/);
  });
});

describe('ProxyMetrics', () => {
  test('records every metric family of the proxy', async () => {
    const provider = new PromClientMeterProvider(new prom.Registry());
    const m = new ProxyMetrics(provider.getMeter('p'));
    m.callFinished('expire_snapshots', 'succeeded', 0.2);
    m.callFinished('expire_snapshots', 'failed', 0.1);
    m.phase('expire_snapshots', 'commit', 0.05);
    m.rewritten('compact', 1000, 4096);
    m.deleted('remove_orphan_files', 12);
    m.jobStarted('async'); m.queued(1, 'table_lock');
    let stats = { connectionsOpen: 1, connectionsAccepted: 2, questions: 10, forwarded: 7, bytesUpstream: 100, bytesDownstream: 5000 };
    const stop = m.observeServer(() => stats);
    m.refresh('failed');
    const text = await provider.registry.metrics();
    for (const re of [
      /paimon_proxy_calls_total\{outcome="succeeded",procedure="expire_snapshots"\} 1/,
      /paimon_proxy_calls_total\{outcome="failed",procedure="expire_snapshots"\} 1/,
      /paimon_proxy_call_duration_seconds_count\{outcome="succeeded",procedure="expire_snapshots"\} 1/,
      /paimon_proxy_call_phase_duration_seconds_sum\{phase="commit",procedure="expire_snapshots"\} 0.05/,
      /paimon_proxy_rows_rewritten_total\{procedure="compact"\} 1000/,
      /paimon_proxy_rewritten_bytes_total\{procedure="compact"\} 4096/,
      /paimon_proxy_files_deleted_total\{procedure="remove_orphan_files"\} 12/,
      /paimon_proxy_jobs_active\{mode="async"\} 1/,
      /paimon_proxy_jobs_queued\{reason="table_lock"\} 1/,
      /# TYPE paimon_proxy_connections gauge\npaimon_proxy_connections 1/,
      /# TYPE paimon_proxy_connections_accepted_total counter\npaimon_proxy_connections_accepted_total 2/,
      /paimon_proxy_commands_total 10/,
      /paimon_proxy_forwarded_statements_total 7/,
      /paimon_proxy_forwarded_bytes_total\{direction="upstream"\} 100/,
      /paimon_proxy_forwarded_bytes_total\{direction="downstream"\} 5000/,
      /paimon_proxy_fe_refreshes_total\{outcome="failed"\} 1/,
    ]) assert.match(text, re);
    stats = { ...stats, connectionsOpen: 0, questions: 11 };
    const again = await provider.registry.metrics();
    assert.match(again, /paimon_proxy_connections 0/);
    assert.match(again, /paimon_proxy_commands_total 11/);
    // A second listener in the same process is added to the first; stopping one removes it.
    const stop2 = m.observeServer(() => ({ connectionsOpen: 2, connectionsAccepted: 3, questions: 4 }));
    assert.match(await provider.registry.metrics(), /paimon_proxy_connections 2\n[\s\S]*paimon_proxy_commands_total 15/);
    stop2();
    stop();
  });
});

describe('the /metrics endpoint', () => {
  const setup = setupMetrics();
  let close: (() => Promise<void>) | undefined;
  after(async () => { await close?.(); });
  test('serves the global OpenTelemetry meter provider in Prometheus text on a free port', async () => {
    // Instruments created through the global API land in the served registry.
    otelMetrics.getMeter('some-other-module').createCounter('via_global_api').add(4);
    setup.metrics.callFinished('create_tag', 'denied', 0.001);
    const srv = await startMetricsServer(setup.registry, '127.0.0.1', 0);
    close = srv.close;
    const res = await fetch(`http://127.0.0.1:${srv.port}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
    const body = await res.text();
    assert.match(body, /via_global_api_total 4/);
    assert.match(body, /paimon_proxy_calls_total\{outcome="denied",procedure="create_tag"\} 1/);
    assert.match(body, /paimon_proxy_process_cpu_seconds_total/);
    assert.equal((await fetch(`http://127.0.0.1:${srv.port}/nope`)).status, 404);
    assert.equal(setupMetrics(), setup);
  });
});
