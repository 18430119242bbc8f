/**
 * Jobs through SQL: `CALL <catalog>.sys.list_jobs([state], [limit])`,
 * `CALL <catalog>.sys.job_status('<job id>')`, `CALL <catalog>.sys.cancel_job('<job id>')`.
 * The definitions take the JobManager through a getter, because the registry is built before
 * the job store is opened (and the `call` command has none).
 *
 * They also show the synchronous CALLs running now in this proxy process (the running-calls
 * registry, procedures/framework/cancellation.ts), marked `mode = 'sync'`, with the id `call-<12 hex>`
 * (the first 12 hex digits of the call's query id in the audit log), the connection that waits
 * for it, what it acts on and its last reported phase and counts. A finished synchronous call
 * is no longer listed (its record is the audit log). `cancel_job('call-...')` stops one as
 * `KILL QUERY <connection id>` does: the procedure stops at its next safe point and its client
 * gets error 1317 saying whether anything was committed.
 *
 * They are scoped to the caller: a user lists, inspects and cancels the jobs that user
 * submitted (a job of someone else is "not found", so ids do not reveal other users' work).
 * Their signatures say so (`callerScoped: true`). The executor hooks check their declared
 * privilege within the catalog (src/observability/ops-hooks.ts authorizeWithinCatalog):
 * list_jobs and job_status need any privilege (SELECT, ALTER, ...) and cancel_job ALTER, on the
 * catalog or on anything in it (ADMIN does for all three).
 */
import { defineProcedure, type ProcedureDefinition } from '../framework/registry.js';
import { traitsOf, type ParamSpec } from '../framework/signature.js';
import { ProcedureError } from '../framework/errors.js';
import type { ResultRow } from '../framework/result.js';
import { JOB_STATES, shownProgress, type JobRecord, type JobState } from '../framework/jobs/job.js';
import type { JobManager } from '../framework/jobs/job-manager.js';
import { CallCancelReason, isCallId, type CancellationRegistry, type RunningCall } from '../framework/cancellation.js';

const JOB_RESULT_COLUMNS = [
  { name: 'job_id', type: 'string', description: "The job id returned by the async CALL, or 'call-<12 hex>' for a synchronous CALL running now." },
  { name: 'state', type: 'string', description: 'queued, running, succeeded, failed or cancelled (a synchronous CALL is listed only while running).' },
  { name: 'catalog', type: 'string', description: 'Catalog of the call.' },
  { name: 'procedure', type: 'string', description: 'Procedure name.' },
  { name: 'user', type: 'string', description: 'Who submitted it.' },
  { name: 'created_at', type: 'datetime', description: 'Submission time (UTC).' },
  { name: 'started_at', type: 'datetime', description: 'Start time (UTC), NULL while queued.' },
  { name: 'finished_at', type: 'datetime', description: 'End time (UTC), NULL while not finished.' },
  { name: 'progress', type: 'string', description: "Last reported phase and counts, e.g. 'delete data files 120/400'." },
  { name: 'committed', type: 'boolean', description: 'Whether the job committed anything (also for failed and cancelled jobs); NULL for a synchronous CALL still running.' },
  { name: 'error_code', type: 'string', description: 'Symbolic error code of a failed or cancelled job.' },
  { name: 'errno', type: 'int', description: 'MySQL errno of that error.' },
  { name: 'error_message', type: 'string', description: 'The error message (secrets masked).' },
  { name: 'result', type: 'json', description: 'The result set of a succeeded job: {columns, rows, info}.' },
  { name: 'owner', type: 'string', description: 'The proxy instance that runs the job.' },
  { name: 'mode', type: 'string', description: "'async' for a job, 'sync' for a synchronous CALL whose client waits for its result." },
  { name: 'connection_id', type: 'bigint', description: 'The connection that submitted the job or waits for the synchronous CALL (KILL QUERY <id> stops the latter too).' },
  { name: 'target', type: 'string', description: 'What the call acts on: db.table (with $branch_x), db.* or db, when known.' },
  { name: 'phase', type: 'string', description: "The procedure's current phase, e.g. 'plan', 'delete data files', 'compact', 'commit'; 'started' before its first report." },
  { name: 'done', type: 'bigint', description: 'Units done in that phase (files, buckets...), when reported.' },
  { name: 'total', type: 'bigint', description: 'Units in that phase, when known.' },
  { name: 'message', type: 'string', description: 'The last progress message (rows and bytes so far, ...).' },
  { name: 'query_id', type: 'string', description: "A synchronous CALL's query id (its audit record and trace); NULL for jobs." },
] as const;

function progressText(p: { phase: string; done?: number; total?: number; message?: string } | null | undefined): string | null {
  if (!p) return null;
  const count = p.done !== undefined ? (p.total !== undefined ? ` ${p.done}/${p.total}` : ` ${p.done}`) : '';
  return `${p.phase}${count}${p.message ? `: ${p.message}` : ''}`;
}

/** A reported count as an integer column value (a procedure may report anything numeric). */
function count(v: number | undefined): number | null {
  if (v === undefined || !Number.isFinite(v)) return null;
  const n = Math.round(v);
  return Number.isSafeInteger(n) ? n : null;
}

/** What an async job acts on, from its stored (masked) arguments: `table`, `database` or the first positional one. */
function jobTarget(r: JobRecord): string | null {
  for (const k of ['table', 'database', '#1']) {
    const v = r.arguments[k];
    if (typeof v === 'string' && v !== '') return v;
  }
  return null;
}

export function jobResultRow(r: JobRecord): ResultRow {
  return {
    job_id: r.id,
    state: r.state,
    catalog: r.catalog,
    procedure: r.procedure,
    user: r.user,
    created_at: new Date(r.createdAt),
    started_at: r.startedAt === null ? null : new Date(r.startedAt),
    finished_at: r.finishedAt === null ? null : new Date(r.finishedAt),
    progress: progressText(shownProgress(r)),
    committed: r.committed,
    error_code: r.error?.code ?? null,
    errno: r.error?.errno ?? null,
    error_message: r.error?.message ?? null,
    result: r.result ? JSON.stringify(r.result) : null,
    owner: r.owner,
    mode: 'async',
    connection_id: r.connectionId,
    target: jobTarget(r),
    phase: shownProgress(r)?.phase ?? null,
    done: count(shownProgress(r)?.done),
    total: count(shownProgress(r)?.total),
    message: shownProgress(r)?.message ?? null,
    query_id: null,
  };
}

/** The row of a synchronous CALL running now (list_jobs, job_status). */
export function runningCallRow(c: RunningCall, catalog: string, owner: string | null): ResultRow {
  return {
    job_id: c.callId,
    state: 'running',
    catalog: c.catalog ?? catalog,
    procedure: c.procedure,
    user: c.user ?? null,
    created_at: new Date(c.startedAt),
    started_at: new Date(c.startedAt),
    finished_at: null,
    progress: progressText(c.progress),
    committed: null,
    error_code: null,
    errno: null,
    error_message: null,
    result: null,
    owner,
    mode: 'sync',
    connection_id: c.connectionId,
    target: c.target ?? null,
    phase: c.progress?.phase ?? null,
    done: count(c.progress?.done),
    total: count(c.progress?.total),
    message: c.progress?.message ?? null,
    query_id: c.queryId,
  };
}

/**
 * The synchronous CALLs of `user` in `catalog` that list_jobs shows: not the caller's own
 * (its connection runs this very list_jobs), not the CALLs that only submit an async job, and
 * not the job procedures themselves (`hidden`: the canonical names of the caller-scoped ones).
 */
function visibleCalls(calls: CancellationRegistry, user: string, catalog: string, selfConnection: number, hidden: ReadonlySet<string>): RunningCall[] {
  return calls
    .list()
    .filter((c) => c.user === user && (c.catalog ?? catalog) === catalog && c.connectionId !== selfConnection && !c.submitsJob && !hidden.has(c.procedure));
}

/** A running synchronous call of this user by its call id, or JOB_NOT_FOUND saying where a finished one is recorded. */
function ownCall(calls: CancellationRegistry | undefined, id: string, user: string): RunningCall {
  const c = calls?.get(id);
  if (!c || c.user !== user) {
    const hex = id.slice('call-'.length);
    throw new ProcedureError(
      'JOB_NOT_FOUND',
      `no synchronous CALL of user ${user} with id '${id}' is running in this proxy; a finished one is in the audit log under a query id starting with '${hex.slice(0, 8)}-${hex.slice(8)}'`,
    );
  }
  return c;
}

function need(getJobs: () => JobManager | undefined): JobManager {
  const jobs = getJobs();
  if (!jobs) throw new ProcedureError('NOT_SUPPORTED', 'asynchronous jobs are not available here (no job store: use the proxy server, not the call command)');
  return jobs;
}

async function ownJob(jobs: JobManager, id: string, user: string): Promise<JobRecord> {
  const rec = await jobs.get(id);
  if (rec.user !== user) throw new ProcedureError('JOB_NOT_FOUND', `no job of user ${user} has id '${id}'; list yours with CALL sys.list_jobs()`);
  return rec;
}

export function jobProcedures(getJobs: () => JobManager | undefined, getCalls: () => CancellationRegistry | undefined = () => undefined): ProcedureDefinition<readonly ParamSpec[]>[] {
  const listJobs = defineProcedure({
    name: 'list_jobs',
    description: "Your asynchronous procedure jobs in this catalog and your synchronous CALLs running now in this proxy (mode 'sync'), newest first.",
    params: [
      { name: 'state', type: 'string', description: `Only jobs in this state (${JOB_STATES.join(', ')}).` },
      { name: 'limit', type: 'int', default: 100, description: 'At most this many jobs.' },
    ],
    resultColumns: JOB_RESULT_COLUMNS,
    privilege: { privilege: 'SELECT', on: 'catalog' },
    destructive: false,
    callerScoped: true,
    async run(args, ctx) {
      let states: JobState[] | undefined;
      if (args.state !== null) {
        const s = args.state.toLowerCase();
        if (!(JOB_STATES as readonly string[]).includes(s)) {
          throw new ProcedureError('INVALID_ARGUMENT', `state must be one of ${JOB_STATES.join(', ')}, got '${args.state}'`);
        }
        states = [s as JobState];
      }
      if (args.limit < 1) throw new ProcedureError('INVALID_ARGUMENT', `limit must be at least 1, got ${args.limit}`);
      const calls = getCalls();
      const jobs = calls ? getJobs() : need(getJobs);
      const running = calls && (!states || states.includes('running')) ? visibleCalls(calls, ctx.caller.user, ctx.catalog.name, ctx.caller.connectionId, jobProcedureNames) : [];
      const list = jobs ? (await jobs.list({ ...(states ? { states } : {}), user: ctx.caller.user })).filter((r) => r.catalog === ctx.catalog.name) : [];
      const rows: { at: number; row: ResultRow }[] = [
        ...running.map((c) => ({ at: c.startedAt, row: runningCallRow(c, ctx.catalog.name, jobs?.owner ?? null) })),
        ...list.map((r) => ({ at: r.createdAt, row: jobResultRow(r) })),
      ];
      // Newest first (the job store lists newest first; the sort is stable for equal times).
      rows.sort((a, b) => b.at - a.at);
      return { rows: rows.slice(0, args.limit).map((r) => r.row) };
    },
  });
  const jobStatus = defineProcedure({
    name: 'job_status',
    aliases: ['show_job'],
    description: "State, progress, result or error of one asynchronous job, or the progress of a synchronous CALL running now ('call-...' id from list_jobs).",
    params: [{ name: 'job_id', type: 'string', required: true, description: "The id returned by the async CALL, or a running CALL's 'call-...' id from list_jobs." }],
    resultColumns: JOB_RESULT_COLUMNS,
    privilege: { privilege: 'SELECT', on: 'catalog' },
    destructive: false,
    callerScoped: true,
    async run(args, ctx) {
      if (isCallId(args.job_id)) return { rows: [runningCallRow(ownCall(getCalls(), args.job_id, ctx.caller.user), ctx.catalog.name, getJobs()?.owner ?? null)] };
      return { rows: [jobResultRow(await ownJob(need(getJobs), args.job_id, ctx.caller.user))] };
    },
  });
  const cancelJob = defineProcedure({
    name: 'cancel_job',
    description:
      "Cancel a queued or running asynchronous job (it ends cancelled; its error says whether anything was committed), or stop a synchronous CALL running now ('call-...' id) as KILL QUERY <its connection id> does: its client gets error 1317 saying whether anything was committed.",
    params: [{ name: 'job_id', type: 'string', required: true, description: "The id returned by the async CALL, or a running CALL's 'call-...' id from list_jobs." }],
    resultColumns: [
      { name: 'job_id', type: 'string', description: 'The job.' },
      { name: 'action', type: 'string', description: "'aborted' (it ran here: a synchronous CALL stops at its next safe point), 'requested' (its proxy stops it within seconds) or 'already_finished'." },
      { name: 'state', type: 'string', description: 'The state when the request was made.' },
    ],
    privilege: { privilege: 'ALTER', on: 'catalog' },
    destructive: false,
    // It stops a job or call, whose own procedure holds any table lock; it changes no table itself.
    changesMetadata: false,
    callerScoped: true,
    async run(args, ctx) {
      if (isCallId(args.job_id)) {
        const calls = getCalls();
        const c = ownCall(calls, args.job_id, ctx.caller.user);
        if (c.connectionId === ctx.caller.connectionId) throw new ProcedureError('INVALID_ARGUMENT', `'${args.job_id}' is this connection's own CALL; a CALL cannot cancel itself`);
        const aborted = calls!.cancel(c.callId, new CallCancelReason(c.callId, ctx.caller.connectionId));
        return { rows: [{ job_id: c.callId, action: aborted ? 'aborted' : 'already_finished', state: 'running' }] };
      }
      const jobs = need(getJobs);
      await ownJob(jobs, args.job_id, ctx.caller.user);
      const { record, action } = await jobs.cancel(args.job_id);
      return { rows: [{ job_id: record.id, action, state: record.state }] };
    },
  });
  const all = [listJobs, jobStatus, cancelJob] as unknown as ProcedureDefinition<readonly ParamSpec[]>[];
  // The running calls list_jobs leaves out (read when list_jobs runs, after this is set).
  const jobProcedureNames: ReadonlySet<string> = new Set(all.filter((d) => traitsOf(d).callerScoped).map((d) => d.name));
  return all;
}
