/**
 * Forwarded statements and bytes as Prometheus counters: the session's ProxyStats counters
 * (`forwarded`, `bytesUpstream`, `bytesDownstream`) are read live at scrape time through
 * serverStatsSnapshot, which proxy-app.ts gives to ProxyMetrics.observeServer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as prom from 'prom-client';
import { PromClientMeterProvider, ProxyMetrics, serverStatsSnapshot } from '../../../src/observability/metrics.js';

test('the session counters become ppp forwarded-statement and forwarded-byte counters, read at each scrape', async () => {
  const provider = new PromClientMeterProvider(new prom.Registry());
  const m = new ProxyMetrics(provider.getMeter('fwd'));
  // Shaped as src/session/session.ts ProxyStats with the forwarding counters.
  const stats = { startedAt: Date.now(), questions: 3, connectionsAccepted: 1, forwarded: 2, bytesUpstream: 40, bytesDownstream: 900 };
  let open = 1;
  const stop = m.observeServer(() => serverStatsSnapshot(open, stats));
  let text = await provider.registry.metrics();
  assert.match(text, /# TYPE paimon_proxy_forwarded_statements_total counter\npaimon_proxy_forwarded_statements_total 2\n/);
  assert.match(text, /paimon_proxy_forwarded_bytes_total\{direction="upstream"\} 40\n/);
  assert.match(text, /paimon_proxy_forwarded_bytes_total\{direction="downstream"\} 900\n/);
  // The session keeps counting; the next scrape sees the new values (no copy was taken).
  stats.forwarded += 5;
  stats.bytesUpstream += 60;
  stats.bytesDownstream += 100;
  open = 0;
  text = await provider.registry.metrics();
  assert.match(text, /paimon_proxy_forwarded_statements_total 7\n/);
  assert.match(text, /paimon_proxy_forwarded_bytes_total\{direction="upstream"\} 100\n/);
  assert.match(text, /paimon_proxy_forwarded_bytes_total\{direction="downstream"\} 1000\n/);
  assert.match(text, /paimon_proxy_connections 0\n/);
  stop();
});

test('a session that does not count forwarding yields no forwarded series (not zeros that look measured)', async () => {
  const provider = new PromClientMeterProvider(new prom.Registry());
  const m = new ProxyMetrics(provider.getMeter('fwd2'));
  const snap = serverStatsSnapshot(2, { questions: 1, connectionsAccepted: 2 });
  assert.deepEqual(snap, { connectionsOpen: 2, connectionsAccepted: 2, questions: 1 });
  const stop = m.observeServer(() => snap);
  const text = await provider.registry.metrics();
  assert.doesNotMatch(text, /paimon_proxy_forwarded_statements_total \d/);
  assert.match(text, /paimon_proxy_commands_total 1\n/);
  stop();
});
