/**
 * Metrics: the proxy is instrumented with the OpenTelemetry metrics API (@opentelemetry/api),
 * and the API's meter provider is backed by prom-client, which renders the Prometheus text
 * format at `/metrics` on the configured port.
 *
 * Why not the OpenTelemetry SDK and its Prometheus exporter: @opentelemetry/sdk-metrics 3.x
 * (and exporter-prometheus 0.30x) require Node >= 22.15, while this project runs on Node 20;
 * sdk-metrics 2.x accepts only @opentelemetry/api < 1.10, and the project pins 1.10.0. So the
 * provider below implements the API's `MeterProvider` over prom-client: instrumentation code
 * uses only OpenTelemetry's API and would move to the SDK unchanged when the runtime allows.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  metrics as otelMetrics,
  ValueType,
  type Attributes,
  type BatchObservableCallback,
  type Counter,
  type Gauge,
  type Histogram,
  type Meter,
  type MeterProvider,
  type MetricOptions,
  type Observable,
  type ObservableCallback,
  type ObservableResult,
  type UpDownCounter,
} from '@opentelemetry/api';
import * as prom from 'prom-client';

// ---------------------------------------------------------------------------------------------
// OpenTelemetry API -> prom-client

function promName(name: string, kind: 'counter' | 'gauge' | 'histogram', unit: string | undefined): string {
  let n = name.replace(/[^a-zA-Z0-9_:]/g, '_');
  if (/^[0-9]/.test(n)) n = `_${n}`;
  const suffix = unit === 's' ? '_seconds' : unit === 'By' ? '_bytes' : '';
  if (suffix && !n.endsWith(suffix) && !n.endsWith(`${suffix}_total`)) n += suffix;
  if (kind === 'counter' && !n.endsWith('_total')) n += '_total';
  return n;
}

function labelName(key: string): string {
  return key.replace(/[^a-zA-Z0-9_]/g, '_');
}

type Labels = Record<string, string>;

/**
 * One prom-client metric behind one OpenTelemetry instrument. Prometheus needs the label names
 * up front, so they are fixed by the first measurement; later measurements fill missing labels
 * with '' and drop unknown ones (reported once on stderr: an instrumentation bug, not a reason
 * to fail a CALL).
 */
class LazyPromMetric<M extends prom.Counter | prom.Gauge | prom.Histogram> {
  private metric: M | null = null;
  private labelNames: string[] = [];
  private warned = false;

  constructor(private readonly make: (labelNames: string[]) => M, private readonly name: string) {}

  /** Create now with known label names (for observables and pre-declared instruments). */
  init(labelNames: string[]): M {
    if (!this.metric) {
      this.labelNames = labelNames;
      this.metric = this.make(labelNames);
    }
    return this.metric;
  }

  with(attributes: Attributes | undefined): [M, Labels] {
    const labels: Labels = {};
    const keys = attributes ? Object.keys(attributes) : [];
    const m = this.init(keys.map(labelName).sort());
    if (attributes) {
      for (const [k, v] of Object.entries(attributes)) {
        const ln = labelName(k);
        if (!this.labelNames.includes(ln)) {
          if (!this.warned) {
            this.warned = true;
            process.emitWarning(`metric ${this.name}: attribute '${k}' is not among its labels (${this.labelNames.join(', ')}); dropped`);
          }
          continue;
        }
        labels[ln] = v === undefined || v === null ? '' : Array.isArray(v) ? v.join(',') : String(v);
      }
    }
    // Same label order on every series (prom-client prints them in object order).
    const ordered: Labels = {};
    for (const ln of this.labelNames) ordered[ln] = labels[ln] ?? '';
    return [m, ordered];
  }
}

class PromObservable implements Observable {
  readonly callbacks = new Set<ObservableCallback>();
  addCallback(cb: ObservableCallback): void {
    this.callbacks.add(cb);
  }
  removeCallback(cb: ObservableCallback): void {
    this.callbacks.delete(cb);
  }
}

class PromMeter implements Meter {
  private readonly instruments = new Map<string, unknown>();
  private readonly batch = new Map<BatchObservableCallback, Set<Observable>>();

  constructor(private readonly registry: prom.Registry) {}

  private once<T>(key: string, make: () => T): T {
    const existing = this.instruments.get(key);
    if (existing) return existing as T;
    const made = make();
    this.instruments.set(key, made);
    return made;
  }

  createCounter<A extends Attributes = Attributes>(name: string, options?: MetricOptions): Counter<A> {
    const n = promName(name, 'counter', options?.unit);
    return this.once(`c:${n}`, () => {
      const lazy = new LazyPromMetric(
        (labelNames) => new prom.Counter({ name: n, help: options?.description ?? name, labelNames, registers: [this.registry] }),
        n,
      );
      return {
        add(value: number, attributes?: A): void {
          if (!(value >= 0)) return; // OTel: counters only grow
          const [m, labels] = lazy.with(attributes);
          m.inc(labels, value);
        },
      };
    });
  }

  createUpDownCounter<A extends Attributes = Attributes>(name: string, options?: MetricOptions): UpDownCounter<A> {
    const n = promName(name, 'gauge', options?.unit);
    return this.once(`u:${n}`, () => {
      const lazy = new LazyPromMetric(
        (labelNames) => new prom.Gauge({ name: n, help: options?.description ?? name, labelNames, registers: [this.registry] }),
        n,
      );
      return {
        add(value: number, attributes?: A): void {
          const [m, labels] = lazy.with(attributes);
          m.inc(labels, value);
        },
      };
    });
  }

  createGauge<A extends Attributes = Attributes>(name: string, options?: MetricOptions): Gauge<A> {
    const n = promName(name, 'gauge', options?.unit);
    return this.once(`g:${n}`, () => {
      const lazy = new LazyPromMetric(
        (labelNames) => new prom.Gauge({ name: n, help: options?.description ?? name, labelNames, registers: [this.registry] }),
        n,
      );
      return {
        record(value: number, attributes?: A): void {
          const [m, labels] = lazy.with(attributes);
          m.set(labels, value);
        },
      };
    });
  }

  createHistogram<A extends Attributes = Attributes>(name: string, options?: MetricOptions): Histogram<A> {
    const n = promName(name, 'histogram', options?.unit);
    return this.once(`h:${n}`, () => {
      const buckets = options?.advice?.explicitBucketBoundaries;
      const lazy = new LazyPromMetric(
        (labelNames) =>
          new prom.Histogram({
            name: n,
            help: options?.description ?? name,
            labelNames,
            registers: [this.registry],
            ...(buckets ? { buckets } : {}),
          }),
        n,
      );
      return {
        record(value: number, attributes?: A): void {
          if (!Number.isFinite(value)) return;
          const [m, labels] = lazy.with(attributes);
          m.observe(labels, value);
        },
      };
    });
  }

  private observable(name: string, kind: 'counter' | 'gauge', options?: MetricOptions): PromObservable {
    const n = promName(name, kind, options?.unit);
    return this.once(`o:${n}`, () => {
      const obs = new PromObservable();
      const batch = this.batch;
      // Observed at scrape time: the registry asks this collector for its values, which come
      // from the instrument's callbacks (and batch callbacks that include it).
      const collector = {
        name: n,
        help: options?.description ?? name,
        type: kind,
        aggregator: 'sum' as const,
        async get() {
          const values: { value: number; labels: Labels }[] = [];
          const observe = (value: number, attributes?: Attributes): void => {
            const labels: Labels = {};
            for (const [k, v] of Object.entries(attributes ?? {})) labels[labelName(k)] = v === undefined || v === null ? '' : String(v);
            values.push({ value, labels });
          };
          for (const cb of obs.callbacks) await cb({ observe });
          for (const [cb, set] of batch) {
            if (set.has(obs)) await cb({ observe: (o: Observable, value: number, attributes?: Attributes) => (o === obs ? observe(value, attributes) : undefined) });
          }
          return { name: n, help: options?.description ?? name, type: kind, aggregator: 'sum' as const, values };
        },
        reset(): void {},
      };
      this.registry.registerMetric(collector as unknown as prom.Metric);
      return obs;
    });
  }

  createObservableGauge<A extends Attributes = Attributes>(name: string, options?: MetricOptions): Observable<A> {
    return this.observable(name, 'gauge', options) as unknown as Observable<A>;
  }
  createObservableCounter<A extends Attributes = Attributes>(name: string, options?: MetricOptions): Observable<A> {
    return this.observable(name, 'counter', options) as unknown as Observable<A>;
  }
  createObservableUpDownCounter<A extends Attributes = Attributes>(name: string, options?: MetricOptions): Observable<A> {
    return this.observable(name, 'gauge', options) as unknown as Observable<A>;
  }
  addBatchObservableCallback<A extends Attributes = Attributes>(callback: BatchObservableCallback<A>, observables: Observable<A>[]): void {
    const set = this.batch.get(callback as unknown as BatchObservableCallback) ?? new Set<Observable>();
    for (const o of observables) set.add(o as unknown as Observable);
    this.batch.set(callback as unknown as BatchObservableCallback, set);
  }
  removeBatchObservableCallback<A extends Attributes = Attributes>(callback: BatchObservableCallback<A>, observables: Observable<A>[]): void {
    const set = this.batch.get(callback as unknown as BatchObservableCallback);
    if (!set) return;
    for (const o of observables) set.delete(o as unknown as Observable);
    if (set.size === 0) this.batch.delete(callback as unknown as BatchObservableCallback);
  }
}

/** An OpenTelemetry MeterProvider whose meters write into one prom-client registry. */
export class PromClientMeterProvider implements MeterProvider {
  readonly registry: prom.Registry;
  private readonly meters = new Map<string, PromMeter>();

  constructor(registry?: prom.Registry) {
    this.registry = registry ?? new prom.Registry();
  }

  getMeter(name: string): Meter {
    let m = this.meters.get(name);
    if (!m) {
      m = new PromMeter(this.registry);
      this.meters.set(name, m);
    }
    return m;
  }
}

// ---------------------------------------------------------------------------------------------
// The proxy's instruments

export const METER_NAME = 'paimon-procedure-proxy';

/** Duration buckets in seconds: procedures run from milliseconds to hours. */
const DURATION_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14400];

/** What the listener and sessions count (src/session/session.ts ProxyStats plus the open connections). */
export interface ServerStatsSnapshot {
  connectionsOpen: number;
  connectionsAccepted: number;
  questions: number;
  /** Commands forwarded upstream (when the session counts them). */
  forwarded?: number;
  bytesUpstream?: number;
  bytesDownstream?: number;
}

/**
 * The counters the listener and sessions keep (src/session/session.ts ProxyStats); `forwarded`,
 * `bytesUpstream` and `bytesDownstream` are read when the session counts them.
 */
export interface SessionCounters {
  questions: number;
  connectionsAccepted: number;
  forwarded?: number;
  bytesUpstream?: number;
  bytesDownstream?: number;
}

/** What `observeServer` reads at scrape time, from the open connections and the session counters. */
export function serverStatsSnapshot(connectionsOpen: number, stats: SessionCounters): ServerStatsSnapshot {
  return {
    connectionsOpen,
    connectionsAccepted: stats.connectionsAccepted,
    questions: stats.questions,
    ...(stats.forwarded !== undefined ? { forwarded: stats.forwarded } : {}),
    ...(stats.bytesUpstream !== undefined ? { bytesUpstream: stats.bytesUpstream } : {}),
    ...(stats.bytesDownstream !== undefined ? { bytesDownstream: stats.bytesDownstream } : {}),
  };
}

/** One running call's progress for the progress gauge. */
export interface RunningProgress {
  procedure: string;
  /** Call id (`call-...`) of a synchronous CALL, job id of async work. */
  id: string;
  phase: string;
  /** done/total in [0, 1]. */
  fraction: number;
}

export type CallOutcomeLabel = 'succeeded' | 'failed' | 'denied' | 'cancelled' | 'timeout' | 'submitted';

/**
 * The proxy's metrics, created from any OpenTelemetry Meter (the global one by default). All
 * instrumentation goes through these methods so label sets stay consistent.
 */
export class ProxyMetrics {
  private readonly calls: Counter;
  private readonly callDuration: Histogram;
  private readonly phaseDuration: Histogram;
  private readonly rowsRewritten: Counter;
  private readonly bytesRewritten: Counter;
  private readonly filesDeleted: Counter;
  private readonly jobsActive: UpDownCounter;
  private readonly jobsQueued: UpDownCounter;
  private readonly callsRunning: UpDownCounter;
  private readonly refreshes: Counter;
  private readonly auditFailures: Counter;

  constructor(meter: Meter = otelMetrics.getMeter(METER_NAME)) {
    this.calls = meter.createCounter('paimon_proxy_calls', { description: 'Intercepted CALLs by procedure and outcome', valueType: ValueType.INT });
    this.callDuration = meter.createHistogram('paimon_proxy_call_duration', {
      description: 'Duration of intercepted CALLs', unit: 's', advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.phaseDuration = meter.createHistogram('paimon_proxy_call_phase_duration', {
      description: 'Duration of the phases of a CALL (resolve, plan, write, commit, refresh)', unit: 's', advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.rowsRewritten = meter.createCounter('paimon_proxy_rows_rewritten', { description: 'Rows rewritten by procedures (compaction)' });
    this.bytesRewritten = meter.createCounter('paimon_proxy_rewritten', { description: 'Bytes of data files written by procedures', unit: 'By' });
    this.filesDeleted = meter.createCounter('paimon_proxy_files_deleted', { description: 'Files deleted by procedures' });
    this.jobsActive = meter.createUpDownCounter('paimon_proxy_jobs_active', { description: 'Procedures running now (sync and async)' });
    this.jobsQueued = meter.createUpDownCounter('paimon_proxy_jobs_queued', { description: 'Procedures waiting for a table lock or the heavy-job cap' });
    this.callsRunning = meter.createUpDownCounter('paimon_proxy_calls_running', { description: 'Procedures running now, by procedure and mode (sync: a CALL waiting for its result; async: the work of a job)' });
    this.refreshes = meter.createCounter('paimon_proxy_fe_refreshes', { description: 'REFRESH TABLE statements sent to the FE, by outcome' });
    this.auditFailures = meter.createCounter('paimon_proxy_audit_write_failures', { description: 'Audit records that no sink accepted' });
    this.meter = meter;
  }

  private readonly meter: Meter;
  private readonly servers = new Set<() => ServerStatsSnapshot>();

  /**
   * Connections, statements and relayed bytes are counted by the session as plain integers on
   * its hot path (no metric call per packet) and read here at scrape time. Several listeners in
   * one process (tests) are summed. Returns the function that stops observing this one.
   */
  observeServer(source: () => ServerStatsSnapshot): () => void {
    if (this.servers.size === 0 && !this.observing) this.registerServerInstruments();
    this.servers.add(source);
    return () => {
      this.servers.delete(source);
    };
  }

  private observing = false;

  private registerServerInstruments(): void {
    this.observing = true;
    const m = this.meter;
    const open = m.createObservableGauge('paimon_proxy_connections', { description: 'Client connections open now' });
    const accepted = m.createObservableCounter('paimon_proxy_connections_accepted', { description: 'Client connections accepted' });
    const commands = m.createObservableCounter('paimon_proxy_commands', { description: 'Client commands received (forwarded and answered by the proxy)' });
    const forwarded = m.createObservableCounter('paimon_proxy_forwarded_statements', { description: 'Commands forwarded to the upstream FE' });
    const bytes = m.createObservableCounter('paimon_proxy_forwarded', { description: 'Bytes relayed between clients and the upstream FE, by direction', unit: 'By' });
    m.addBatchObservableCallback((r) => {
      if (this.servers.size === 0) return;
      const sum: Required<ServerStatsSnapshot> = { connectionsOpen: 0, connectionsAccepted: 0, questions: 0, forwarded: 0, bytesUpstream: 0, bytesDownstream: 0 };
      let fwd = false, up = false, down = false;
      for (const src of this.servers) {
        const s = src();
        sum.connectionsOpen += s.connectionsOpen;
        sum.connectionsAccepted += s.connectionsAccepted;
        sum.questions += s.questions;
        if (s.forwarded !== undefined) { sum.forwarded += s.forwarded; fwd = true; }
        if (s.bytesUpstream !== undefined) { sum.bytesUpstream += s.bytesUpstream; up = true; }
        if (s.bytesDownstream !== undefined) { sum.bytesDownstream += s.bytesDownstream; down = true; }
      }
      r.observe(open, sum.connectionsOpen);
      r.observe(accepted, sum.connectionsAccepted);
      r.observe(commands, sum.questions);
      if (fwd) r.observe(forwarded, sum.forwarded);
      if (up) r.observe(bytes, sum.bytesUpstream, { direction: 'upstream' });
      if (down) r.observe(bytes, sum.bytesDownstream, { direction: 'downstream' });
    }, [open, accepted, commands, forwarded, bytes]);
  }

  callFinished(procedure: string, outcome: CallOutcomeLabel, seconds: number): void {
    this.calls.add(1, { procedure, outcome });
    this.callDuration.record(seconds, { procedure, outcome });
  }
  phase(procedure: string, phase: string, seconds: number): void {
    this.phaseDuration.record(seconds, { procedure, phase });
  }
  rewritten(procedure: string, rows: number, bytes: number): void {
    if (rows > 0) this.rowsRewritten.add(rows, { procedure });
    if (bytes > 0) this.bytesRewritten.add(bytes, { procedure });
  }
  deleted(procedure: string, files: number): void {
    if (files > 0) this.filesDeleted.add(files, { procedure });
  }
  jobStarted(mode: 'sync' | 'async'): void {
    this.jobsActive.add(1, { mode });
  }
  jobEnded(mode: 'sync' | 'async'): void {
    this.jobsActive.add(-1, { mode });
  }
  /** A procedure started (+1) or ended (-1) running: `paimon_proxy_calls_running{procedure, mode}`. */
  callRunning(procedure: string, mode: 'sync' | 'async', delta: 1 | -1): void {
    this.callsRunning.add(delta, { procedure, mode });
  }

  private progressSources = new Set<() => Iterable<RunningProgress>>();

  /**
   * `paimon_proxy_call_progress_ratio{procedure, id, phase}`: done/total of the current phase
   * of each running call that reported both (id: the call id of a synchronous CALL or the job
   * id), read at scrape time from `source`. Returns the function that stops observing it.
   */
  observeProgress(source: () => Iterable<RunningProgress>): () => void {
    if (!this.progressGauge) {
      const g = this.meter.createObservableGauge('paimon_proxy_call_progress_ratio', { description: 'Fraction done (done/total) of the current phase of each running procedure that reports counts' });
      this.progressGauge = g;
      g.addCallback((r) => {
        for (const src of this.progressSources) {
          for (const p of src()) r.observe(p.fraction, { procedure: p.procedure, id: p.id, phase: p.phase });
        }
      });
    }
    this.progressSources.add(source);
    return () => {
      this.progressSources.delete(source);
    };
  }

  private progressGauge: ReturnType<Meter['createObservableGauge']> | null = null;

  queued(delta: 1 | -1, reason: 'table_lock' | 'heavy_cap'): void {
    this.jobsQueued.add(delta, { reason });
  }
  refresh(outcome: 'ok' | 'failed' | 'skipped'): void {
    this.refreshes.add(1, { outcome });
  }
  auditFailed(): void {
    this.auditFailures.add(1);
  }
}

// ---------------------------------------------------------------------------------------------
// Set-up and the HTTP endpoint

export interface MetricsSetup {
  provider: PromClientMeterProvider;
  metrics: ProxyMetrics;
  registry: prom.Registry;
}

/**
 * Register the prom-client-backed provider as OpenTelemetry's global meter provider (once per
 * process; a second call reuses the first) and create the proxy's instruments on it.
 */
let globalSetup: MetricsSetup | null = null;
export function setupMetrics(opts: { defaultProcessMetrics?: boolean } = {}): MetricsSetup {
  if (globalSetup) return globalSetup;
  const provider = new PromClientMeterProvider();
  otelMetrics.setGlobalMeterProvider(provider);
  if (opts.defaultProcessMetrics !== false) prom.collectDefaultMetrics({ register: provider.registry, prefix: 'paimon_proxy_' });
  const metrics = new ProxyMetrics(otelMetrics.getMeter(METER_NAME));
  globalSetup = { provider, metrics, registry: provider.registry };
  return globalSetup;
}

/** Serve `GET /metrics` (Prometheus text) and `GET /healthz` on host:port; port 0 picks a free one. */
export async function startMetricsServer(registry: prom.Registry, host: string, port: number): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/metrics') {
      registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'Content-Type': registry.contentType });
          res.end(text);
        },
        (e: unknown) => {
          res.writeHead(500, { 'Content-Type': 'text/plain' });
          res.end(`metrics collection failed: ${e instanceof Error ? e.message : String(e)}\n`);
        },
      );
      return;
    }
    if (req.method === 'GET' && path === '/healthz') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('ok\n');
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not found: try /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    server,
    port: actual,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
