/**
 * One OpenTelemetry span per intercepted CALL, with a child span per phase of the procedure
 * (resolve, plan, write, commit, refresh). Spans go to whatever tracer provider is registered
 * with @opentelemetry/api (none by default: then they cost next to nothing); the phase timings
 * are also kept on the trace object for the audit record and the phase-duration histogram,
 * so they are useful without a tracing backend.
 */
import { trace, context, SpanStatusCode, type Span, type Tracer, type Attributes } from '@opentelemetry/api';
import { maskText } from '../security/masking.js';
import type { ProxyMetrics } from './metrics.js';

export const TRACER_NAME = 'paimon-procedure-proxy';
export const PHASES = ['resolve', 'plan', 'write', 'commit', 'refresh'] as const;
export type Phase = (typeof PHASES)[number];

export interface CallTraceOptions {
  tracer?: Tracer;
  metrics?: ProxyMetrics;
  now?: () => number;
}

export class CallTrace {
  /** Milliseconds spent in each phase (summed if a phase runs more than once). */
  readonly phases: Record<string, number> = {};
  private readonly root: Span;
  private readonly tracer: Tracer;
  private readonly now: () => number;
  private ended = false;

  constructor(
    readonly procedure: string,
    attributes: Attributes,
    private readonly opts: CallTraceOptions = {},
  ) {
    this.tracer = opts.tracer ?? trace.getTracer(TRACER_NAME);
    this.now = opts.now ?? (() => performance.now());
    this.root = this.tracer.startSpan(`CALL ${procedure}`, { attributes: { 'paimon.procedure': procedure, ...attributes } });
  }

  /** Run one phase inside its own child span; its duration is recorded whatever the outcome. */
  async phase<T>(name: Phase, fn: () => Promise<T>): Promise<T> {
    const parent = trace.setSpan(context.active(), this.root);
    const span = this.tracer.startSpan(name, { attributes: { 'paimon.procedure': this.procedure, 'paimon.phase': name } }, parent);
    const t0 = this.now();
    try {
      const r = await context.with(trace.setSpan(parent, span), fn);
      span.setStatus({ code: SpanStatusCode.OK });
      return r;
    } catch (e) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: maskText(e instanceof Error ? e.message : String(e)) });
      throw e;
    } finally {
      const ms = this.now() - t0;
      this.phases[name] = (this.phases[name] ?? 0) + ms;
      this.opts.metrics?.phase(this.procedure, name, ms / 1000);
      span.end();
    }
  }

  private current: { name: Phase; span: Span; startedAt: number } | null = null;

  /**
   * Event style (the executor's progress hook): close the current phase, if any, and open
   * `name`. Re-entering the current phase does nothing.
   */
  enter(name: Phase): void {
    if (this.current?.name === name || this.ended) return;
    this.closePhase();
    const parent = trace.setSpan(context.active(), this.root);
    const span = this.tracer.startSpan(name, { attributes: { 'paimon.procedure': this.procedure, 'paimon.phase': name } }, parent);
    this.current = { name, span, startedAt: this.now() };
  }

  /** Close the phase opened by `enter` (also done by `end`). */
  closePhase(error?: { message?: unknown }): void {
    const c = this.current;
    if (!c) return;
    this.current = null;
    const ms = this.now() - c.startedAt;
    this.phases[c.name] = (this.phases[c.name] ?? 0) + ms;
    this.opts.metrics?.phase(this.procedure, c.name, ms / 1000);
    c.span.setStatus(error ? { code: SpanStatusCode.ERROR, message: maskText(String(error.message ?? 'error')) } : { code: SpanStatusCode.OK });
    c.span.end();
  }

  /** Add attributes to the CALL's span (snapshot ids, counts). Values must not be secrets. */
  annotate(attributes: Attributes): void {
    this.root.setAttributes(attributes);
  }

  /** End the CALL's span with its outcome; idempotent. */
  end(outcome: string, error?: { code?: unknown; message?: unknown }): void {
    if (this.ended) return;
    this.closePhase(error);
    this.ended = true;
    this.root.setAttribute('paimon.outcome', outcome);
    if (error) {
      if (error.code !== undefined) this.root.setAttribute('paimon.error_code', String(error.code));
      this.root.setStatus({ code: SpanStatusCode.ERROR, message: maskText(String(error.message ?? error.code ?? 'error')) });
    } else {
      this.root.setStatus({ code: SpanStatusCode.OK });
    }
    this.root.end();
  }
}
