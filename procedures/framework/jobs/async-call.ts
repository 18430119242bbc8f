/**
 * `async => true` on any procedure: the CALL answers at once with the job id, and the call runs
 * in the background through the same executor (binding, privileges, locks, timeout, audit,
 * FE refresh), recorded as a job. The framework arguments `timeout` and `async` are declared
 * here for ExecutorOptions.frameworkParams.
 */
import type { ParamSpec } from '../signature.js';
import type { CallArgument } from '../binding.js';
import type { CallerInfo } from '../context.js';
import type { CallOutcome, CallRequest } from '../executor.js';
import type { LocalReply } from '../reply.js';
import { TIMEOUT_ARGUMENT } from '../cancellation.js';
import type { JobManager } from './job-manager.js';
import type { JobResult } from './job.js';

export const ASYNC_ARGUMENT = 'async';

/** Arguments every procedure accepts by name (ExecutorOptions.frameworkParams). */
export const FRAMEWORK_PARAMS: readonly ParamSpec[] = [
  {
    name: TIMEOUT_ARGUMENT,
    type: 'string',
    description: "Time limit of this call: seconds, or a duration like '90s', '10m', '2h' (default procedures.default_timeout_ms, at most procedures.max_timeout_ms).",
  },
  {
    name: ASYNC_ARGUMENT,
    type: 'boolean',
    description: 'Return a job id at once and run the procedure in the background (see list_jobs, job_status, cancel_job).',
  },
];

/** True when the call has `async => true` (or `async => 1`). */
export function isAsyncCall(args: readonly CallArgument[]): boolean {
  return args.some((a) => {
    if (a.name?.toLowerCase() !== ASYNC_ARGUMENT) return false;
    const v = a.value;
    return (v.kind === 'boolean' && v.value) || (v.kind === 'integer' && v.value === 1n) || (v.kind === 'string' && v.value.toLowerCase() === 'true');
  });
}

/** The arguments without `async` (the background run is an ordinary synchronous call). */
export function withoutAsync(args: readonly CallArgument[]): CallArgument[] {
  return args.filter((a) => a.name?.toLowerCase() !== ASYNC_ARGUMENT);
}

/** The executor surface the job needs (ProcedureExecutor satisfies it). */
export interface CallRunner {
  run(req: CallRequest, caller: CallerInfo, signal: AbortSignal): Promise<CallOutcome>;
}

/** The job's result from a finished call's replies: its result set and the final OK's info. */
export function jobResultOf(replies: readonly LocalReply[]): JobResult {
  const rs = replies.find((r): r is Extract<LocalReply, { kind: 'resultset' }> => r.kind === 'resultset');
  const ok = replies.find((r): r is Extract<LocalReply, { kind: 'ok' }> => r.kind === 'ok');
  return {
    columns: rs ? rs.columns.map((c) => c.name) : [],
    rows: rs ? rs.rows.map((r) => [...r]) : [],
    ...(ok?.info ? { info: ok.info } : {}),
  };
}

export interface SubmitAsyncOptions {
  /** Heavy procedures wait for a slot of the global cap before they start. */
  heavy: boolean;
}

/**
 * Submit a CALL with `async => true` as a job and answer at once: one row (job_id, state) and
 * the final OK. The job runs `runner.run` without the `async` argument; its outcome becomes the
 * job's result or error. The synchronous client may disconnect: the job goes on.
 */
export async function submitAsyncCall(
  jobs: JobManager,
  runner: CallRunner,
  req: CallRequest,
  caller: CallerInfo,
  opts: SubmitAsyncOptions,
): Promise<LocalReply[]> {
  const syncReq: CallRequest = { ...req, args: withoutAsync(req.args) };
  const rec = await jobs.submit(
    {
      catalog: req.catalog,
      procedure: req.procedure.toLowerCase(),
      arguments: Object.fromEntries(syncReq.args.map((a, i) => [a.name ?? `#${i + 1}`, a.value.kind === 'null' ? null : 'value' in a.value ? String(a.value.value) : a.value.text])),
      statement: req.statement,
      user: caller.user,
      clientAddress: caller.clientAddress,
      connectionId: caller.connectionId,
      heavy: opts.heavy,
    },
    async (ctx) => {
      // The job's id goes into the call's audit record; the procedure's progress into the job record.
      const outcome = await runner.run({ ...syncReq, jobId: ctx.jobId, onProgress: (u) => ctx.progress(u) }, caller, ctx.signal);
      if (outcome.committed) ctx.markCommitted();
      if (!outcome.ok) throw outcome.error;
      return jobResultOf(outcome.replies);
    },
  );
  return [
    {
      kind: 'resultset',
      columns: [
        { name: 'job_id', type: 'string' },
        { name: 'state', type: 'string' },
      ],
      rows: [[rec.id, rec.state]],
    },
    { kind: 'ok', affectedRows: 0, info: `job ${rec.id} submitted; CALL ${req.catalog}.sys.job_status('${rec.id}') shows its progress` },
  ];
}
