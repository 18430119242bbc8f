/**
 * A tracer provider for the OpenTelemetry API that records every span and hands the finished
 * ones to a span exporter, plus the one exporter the proxy ships: JSON lines to a file or to
 * standard error (`tracing.file` / `tracing.console`; off by default).
 *
 * Why not @opentelemetry/sdk-trace-base: every 2.x release (2.12.1 is the latest) declares the
 * peer dependency `@opentelemetry/api >=1.3.0 <1.10.0`, and the project pins api 1.10.0 (see
 * metrics.ts for the same situation with the metrics SDK). Network exporters (OTLP) have no
 * collector to talk to here. So this file implements the API's `TracerProvider`, `Tracer` and
 * `Span` directly, for the proxy's own spans: always sampled, parent taken from the context
 * given to `startSpan` (the proxy passes it explicitly; no context manager is needed).
 * Instrumentation uses only the API and would move to the SDK unchanged.
 *
 * Every exported attribute, status message and event is masked (src/security/masking.ts).
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  context as otelContext,
  trace,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Attributes,
  type AttributeValue,
  type Context,
  type Exception,
  type Link,
  type Span,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type TimeInput,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { mask, maskText } from '../security/masking.js';

/** A finished span as exported (one JSON line). Times are epoch milliseconds (fractional). */
export interface FinishedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: string;
  /** Instrumentation scope (the tracer's name). */
  scope: string;
  startTime: string;
  endTime: string;
  startTimeMs: number;
  durationMs: number;
  attributes: Attributes;
  status: { code: 'UNSET' | 'OK' | 'ERROR'; message?: string };
  events: { name: string; timeMs: number; attributes: Attributes }[];
  links: { traceId: string; spanId: string }[];
  resource: Attributes;
}

export interface SpanExporter {
  export(span: FinishedSpan): void;
  /** Write out what is buffered and release the destination. */
  shutdown(): Promise<void>;
}

/** JSON lines, one span per line, to a file (appended, created with its directory, mode 0600) or a stream. */
export class JsonLinesSpanExporter implements SpanExporter {
  private readonly stream: NodeJS.WritableStream;
  private readonly owned: WriteStream | null;
  private failed = false;

  constructor(target: { file: string } | { stream: NodeJS.WritableStream }) {
    if ('file' in target) {
      mkdirSync(dirname(target.file), { recursive: true });
      this.owned = createWriteStream(target.file, { flags: 'a', mode: 0o600 });
      // A broken trace file must not break CALLs: it is reported once and tracing stops.
      this.owned.on('error', (e) => {
        if (!this.failed) process.emitWarning(`trace file ${target.file}: ${e.message}; spans are no longer written`);
        this.failed = true;
      });
      this.stream = this.owned;
    } else {
      this.owned = null;
      this.stream = target.stream;
    }
  }

  export(span: FinishedSpan): void {
    if (this.failed) return;
    this.stream.write(JSON.stringify(span) + '\n');
  }

  shutdown(): Promise<void> {
    const s = this.owned;
    if (!s || s.closed || s.destroyed) return Promise.resolve();
    return new Promise((resolve) => s.end(() => resolve()));
  }
}

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** Epoch milliseconds of an API time input (HrTime, epoch ms, performance.now() ms, Date). */
function toEpochMs(t: TimeInput | undefined): number {
  if (t === undefined) return performance.timeOrigin + performance.now();
  if (t instanceof Date) return t.getTime();
  if (Array.isArray(t)) return t[0] * 1000 + t[1] / 1e6;
  // Small numbers are performance.now() readings, large ones epoch milliseconds (as the SDK reads them).
  return t < 1e12 ? performance.timeOrigin + t : t;
}

function maskAttributes(a: Attributes): Attributes {
  return mask(a) as Attributes;
}

class RecordingSpan implements Span {
  private readonly attributes: Attributes = {};
  private readonly events: FinishedSpan['events'] = [];
  private readonly links: FinishedSpan['links'] = [];
  private status: FinishedSpan['status'] = { code: 'UNSET' };
  private readonly startMs: number;
  private ended = false;

  constructor(
    private name: string,
    private readonly ctx: SpanContext,
    private readonly parentSpanId: string | null,
    private readonly kind: SpanKind,
    private readonly tracer: RecordingTracer,
    options: SpanOptions,
  ) {
    this.startMs = toEpochMs(options.startTime);
    if (options.attributes) this.setAttributes(options.attributes);
    if (options.links) this.addLinks(options.links);
  }

  spanContext(): SpanContext {
    return this.ctx;
  }
  setAttribute(key: string, value: AttributeValue | undefined): this {
    if (!this.ended && value !== undefined) this.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    for (const [k, v] of Object.entries(attributes)) this.setAttribute(k, v);
    return this;
  }
  addEvent(name: string, attributesOrStartTime?: Attributes | TimeInput, startTime?: TimeInput): this {
    if (this.ended) return this;
    const isTime = attributesOrStartTime instanceof Date || Array.isArray(attributesOrStartTime) || typeof attributesOrStartTime === 'number';
    const attributes = isTime || attributesOrStartTime === undefined ? {} : (attributesOrStartTime as Attributes);
    const time = isTime ? (attributesOrStartTime as TimeInput) : startTime;
    this.events.push({ name, timeMs: toEpochMs(time), attributes: { ...attributes } });
    return this;
  }
  addLink(link: Link): this {
    this.links.push({ traceId: link.context.traceId, spanId: link.context.spanId });
    return this;
  }
  addLinks(links: Link[]): this {
    for (const l of links) this.addLink(l);
    return this;
  }
  setStatus(status: SpanStatus): this {
    if (this.ended) return this;
    const code = status.code === SpanStatusCode.OK ? 'OK' : status.code === SpanStatusCode.ERROR ? 'ERROR' : 'UNSET';
    this.status = { code, ...(status.message !== undefined ? { message: status.message } : {}) };
    return this;
  }
  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }
  isRecording(): boolean {
    return !this.ended;
  }
  recordException(exception: Exception, time?: TimeInput): void {
    const e = typeof exception === 'string' ? { message: exception } : exception;
    const attrs: Attributes = {};
    if (e.name !== undefined) attrs['exception.type'] = e.name;
    if (e.message !== undefined) attrs['exception.message'] = e.message;
    this.addEvent('exception', attrs, time);
  }
  end(endTime?: TimeInput): void {
    if (this.ended) return;
    this.ended = true;
    const endMs = Math.max(this.startMs, toEpochMs(endTime));
    this.tracer.finished({
      traceId: this.ctx.traceId,
      spanId: this.ctx.spanId,
      parentSpanId: this.parentSpanId,
      name: maskText(this.name),
      kind: SpanKind[this.kind] ?? 'INTERNAL',
      scope: this.tracer.name,
      startTime: new Date(this.startMs).toISOString(),
      endTime: new Date(endMs).toISOString(),
      startTimeMs: this.startMs,
      durationMs: endMs - this.startMs,
      attributes: maskAttributes(this.attributes),
      status: this.status.message !== undefined ? { code: this.status.code, message: maskText(this.status.message) } : { code: this.status.code },
      events: this.events.map((ev) => ({ name: ev.name, timeMs: ev.timeMs, attributes: maskAttributes(ev.attributes) })),
      links: this.links,
      resource: this.tracer.resource,
    });
  }
}

class RecordingTracer implements Tracer {
  constructor(readonly name: string, readonly resource: Attributes, private readonly sink: (s: FinishedSpan) => void) {}

  finished(span: FinishedSpan): void {
    this.sink(span);
  }

  startSpan(name: string, options: SpanOptions = {}, ctx: Context = otelContext.active()): Span {
    const parent = options.root ? undefined : trace.getSpanContext(ctx);
    const validParent = parent !== undefined && trace.isSpanContextValid(parent) ? parent : undefined;
    const spanContext: SpanContext = {
      traceId: validParent?.traceId ?? hex(16),
      spanId: hex(8),
      traceFlags: TraceFlags.SAMPLED,
    };
    return new RecordingSpan(name, spanContext, validParent?.spanId ?? null, options.kind ?? SpanKind.INTERNAL, this, options);
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, options: SpanOptions, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, options: SpanOptions, ctx: Context, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, a?: SpanOptions | F, b?: Context | F, c?: F): ReturnType<F> {
    let options: SpanOptions = {};
    let ctx: Context = otelContext.active();
    let fn: F;
    if (typeof a === 'function') fn = a;
    else if (typeof b === 'function') {
      options = a ?? {};
      fn = b;
    } else {
      options = a ?? {};
      ctx = b ?? ctx;
      fn = c!;
    }
    const span = this.startSpan(name, options, ctx);
    return otelContext.with(trace.setSpan(ctx, span), () => fn(span) as ReturnType<F>);
  }
}

export interface RecordingTracerProviderOptions {
  exporter: SpanExporter;
  /** Resource attributes on every span (service.name is set by default). */
  resource?: Attributes;
}

/**
 * Records spans and exports each when it ends. Exporting is a buffered stream write, so a CALL
 * never waits for it; an exporter that throws loses the span, not the CALL.
 */
export class RecordingTracerProvider implements TracerProvider {
  private readonly tracers = new Map<string, RecordingTracer>();
  private readonly resource: Attributes;
  private shut = false;

  constructor(private readonly opts: RecordingTracerProviderOptions) {
    this.resource = { 'service.name': 'paimon-procedure-proxy', ...(opts.resource ?? {}) };
  }

  getTracer(name: string): Tracer {
    let t = this.tracers.get(name);
    if (!t) {
      t = new RecordingTracer(name, this.resource, (s) => {
        if (this.shut) return;
        try {
          this.opts.exporter.export(s);
        } catch {
          // Lost span; never the CALL's failure.
        }
      });
      this.tracers.set(name, t);
    }
    return t;
  }

  /** Stop exporting and close the exporter. */
  async shutdown(): Promise<void> {
    if (this.shut) return;
    this.shut = true;
    await this.opts.exporter.shutdown();
  }
}
