/**
 * Jobs through SQL: `CALL <catalog>.sys.list_jobs([state], [limit])`,
 * `CALL <catalog>.sys.job_status('<job id>')`, `CALL <catalog>.sys.cancel_job('<job id>')`.
 * The definitions take the JobManager through a getter, because the registry is built before
 * the job store is opened (and the `call` command has none).
 *
 * They are scoped to the caller: a user lists, inspects and cancels the jobs that user
 * submitted (a job of someone else is "not found", so ids do not reveal other users' work).
 * The privilege check of the executor hooks is therefore skipped for them
 * (CALLER_SCOPED_PROCEDURES): submitting the job already required the procedure's privilege.
 */
import { defineProcedure, type ProcedureDefinition } from '../registry.js';
import type { ParamSpec } from '../signature.js';
import { ProcedureError } from '../errors.js';
import type { ResultRow } from '../result.js';
import { JOB_STATES, type JobRecord, type JobState } from './job.js';
import type { JobManager } from './job-manager.js';

const JOB_RESULT_COLUMNS = [
  { name: 'job_id', type: 'string', description: 'The job id returned by the async CALL.' },
  { name: 'state', type: 'string', description: 'queued, running, succeeded, failed or cancelled.' },
  { name: 'catalog', type: 'string', description: 'Catalog of the call.' },
  { name: 'procedure', type: 'string', description: 'Procedure name.' },
  { name: 'user', type: 'string', description: 'Who submitted it.' },
  { name: 'created_at', type: 'datetime', description: 'Submission time (UTC).' },
  { name: 'started_at', type: 'datetime', description: 'Start time (UTC), NULL while queued.' },
  { name: 'finished_at', type: 'datetime', description: 'End time (UTC), NULL while not finished.' },
  { name: 'progress', type: 'string', description: "Last reported phase and counts, e.g. 'delete data files 120/400'." },
  { name: 'committed', type: 'boolean', description: 'Whether the job committed anything (also for failed and cancelled jobs).' },
  { name: 'error_code', type: 'string', description: 'Symbolic error code of a failed or cancelled job.' },
  { name: 'errno', type: 'int', description: 'MySQL errno of that error.' },
  { name: 'error_message', type: 'string', description: 'The error message (secrets masked).' },
  { name: 'result', type: 'json', description: 'The result set of a succeeded job: {columns, rows, info}.' },
  { name: 'owner', type: 'string', description: 'The proxy instance that runs the job.' },
] as const;

function progressText(r: JobRecord): string | null {
  const p = r.progress;
  if (!p) return null;
  const count = p.done !== undefined ? (p.total !== undefined ? ` ${p.done}/${p.total}` : ` ${p.done}`) : '';
  return `${p.phase}${count}${p.message ? `: ${p.message}` : ''}`;
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
    progress: progressText(r),
    committed: r.committed,
    error_code: r.error?.code ?? null,
    errno: r.error?.errno ?? null,
    error_message: r.error?.message ?? null,
    result: r.result ? JSON.stringify(r.result) : null,
    owner: r.owner,
  };
}

function need(getJobs: () => JobManager | undefined): JobManager {
  const jobs = getJobs();
  if (!jobs) throw new ProcedureError('NOT_SUPPORTED', 'asynchronous jobs are not available here (no job store: use the proxy server, not the call command)');
  return jobs;
}

export const CALLER_SCOPED_PROCEDURES: ReadonlySet<string> = new Set(['list_jobs', 'job_status', 'cancel_job']);

async function ownJob(jobs: JobManager, id: string, user: string): Promise<JobRecord> {
  const rec = await jobs.get(id);
  if (rec.user !== user) throw new ProcedureError('JOB_NOT_FOUND', `no job of user ${user} has id '${id}'; list yours with CALL sys.list_jobs()`);
  return rec;
}

export function jobProcedures(getJobs: () => JobManager | undefined): ProcedureDefinition<readonly ParamSpec[]>[] {
  const listJobs = defineProcedure({
    name: 'list_jobs',
    description: 'Your asynchronous procedure jobs in this catalog, newest first.',
    params: [
      { name: 'state', type: 'string', description: `Only jobs in this state (${JOB_STATES.join(', ')}).` },
      { name: 'limit', type: 'int', default: 100, description: 'At most this many jobs.' },
    ],
    resultColumns: JOB_RESULT_COLUMNS,
    privilege: { privilege: 'SELECT', on: 'catalog' },
    destructive: false,
    async run(args, ctx) {
      const jobs = need(getJobs);
      let states: JobState[] | undefined;
      if (args.state !== null) {
        const s = args.state.toLowerCase();
        if (!(JOB_STATES as readonly string[]).includes(s)) {
          throw new ProcedureError('INVALID_ARGUMENT', `state must be one of ${JOB_STATES.join(', ')}, got '${args.state}'`);
        }
        states = [s as JobState];
      }
      if (args.limit < 1) throw new ProcedureError('INVALID_ARGUMENT', `limit must be at least 1, got ${args.limit}`);
      const list = (await jobs.list({ ...(states ? { states } : {}), user: ctx.caller.user })).filter((r) => r.catalog === ctx.catalog.name).slice(0, args.limit);
      return { rows: list.map(jobResultRow) };
    },
  });
  const jobStatus = defineProcedure({
    name: 'job_status',
    aliases: ['show_job'],
    description: 'State, progress, result or error of one asynchronous job.',
    params: [{ name: 'job_id', type: 'string', required: true, description: 'The id returned by the async CALL.' }],
    resultColumns: JOB_RESULT_COLUMNS,
    privilege: { privilege: 'SELECT', on: 'catalog' },
    destructive: false,
    async run(args, ctx) {
      return { rows: [jobResultRow(await ownJob(need(getJobs), args.job_id, ctx.caller.user))] };
    },
  });
  const cancelJob = defineProcedure({
    name: 'cancel_job',
    description: 'Cancel a queued or running asynchronous job. It ends cancelled; its error says whether anything was committed.',
    params: [{ name: 'job_id', type: 'string', required: true, description: 'The id returned by the async CALL.' }],
    resultColumns: [
      { name: 'job_id', type: 'string', description: 'The job.' },
      { name: 'action', type: 'string', description: "'aborted' (it ran here), 'requested' (its proxy stops it within seconds) or 'already_finished'." },
      { name: 'state', type: 'string', description: 'The state when the request was made.' },
    ],
    privilege: { privilege: 'ALTER', on: 'catalog' },
    destructive: false,
    async run(args, ctx) {
      const jobs = need(getJobs);
      await ownJob(jobs, args.job_id, ctx.caller.user);
      const { record, action } = await jobs.cancel(args.job_id);
      return { rows: [{ job_id: record.id, action, state: record.state }] };
    },
  });
  return [listJobs, jobStatus, cancelJob] as unknown as ProcedureDefinition<readonly ParamSpec[]>[];
}
