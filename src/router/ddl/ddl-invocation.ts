/**
 * The procedure calls an ALTER TABLE tag/branch clause stands for (tag-branch-ddl.ts reads
 * it), and the small state machine that turns their outcomes into the answer Doris gives to
 * an ALTER TABLE: an OK with no affected rows, or the error. The calls themselves run through
 * the router's CALL path (privilege, audit, metrics, FE cache refresh): this module only says
 * which calls, with which named arguments, and what an expected error means.
 *
 * Mapping (Paimon's tag and branch model):
 * - CREATE TAG -> create_tag; IF NOT EXISTS turns TAG_ALREADY_EXISTS into OK (with a Note).
 * - REPLACE TAG -> replace_tag (the tag must exist, as for Iceberg's replaceTag).
 * - CREATE OR REPLACE TAG -> replace_tag with create_if_missing => true: one call, so the
 *   statement is one audit record and one metrics count, as every other statement. The
 *   procedure creates a missing tag create-if-absent and replaces one another session created
 *   meanwhile, so the statement ends with the tag at the requested snapshot.
 * - AS OF VERSION n -> snapshot_id => n; RETAIN n DAYS|HOURS|MINUTES -> time_retained =>
 *   'n d' | 'n h' | 'n min' (the units readDuration in src/paimon/spec/core-options.ts reads).
 * - DROP TAG [IF EXISTS] -> delete_tag (if_exists => true with IF EXISTS).
 * - CREATE BRANCH [IF NOT EXISTS] -> create_branch (ignore_if_exists => true): a Paimon branch
 *   starts empty (the table's schema only) or from a tag, never from a snapshot, and it has no
 *   retention of its own (its snapshots expire by its own table options), so AS OF VERSION,
 *   RETAIN and WITH SNAPSHOT RETENTION on a branch are NOT_SUPPORTED naming the CALLs to use.
 *   A branch cannot be re-pointed either: REPLACE BRANCH is NOT_SUPPORTED too.
 * - DROP BRANCH [IF EXISTS] -> delete_branch; IF EXISTS turns BRANCH_NOT_FOUND into OK.
 */
import type { CallArgument } from '../../../procedures/framework/binding.js';
import { ProcedureError, type ProcedureErrorCode } from '../../../procedures/framework/errors.js';
import type { LocalReply, Warning } from '../route.js';
import type { TagBranchClause, TagBranchDdl, TimeValue } from './tag-branch-ddl.js';

export interface ProcedureInvocation {
  procedure: string;
  /** Named arguments, as a CALL with `name => literal` would give them. */
  args: CallArgument[];
}

/** One call of a statement and what its expected failure means. */
export interface DdlStep {
  invocation: ProcedureInvocation;
  /** This error code answers the statement with OK (IF [NOT] EXISTS). */
  okOn?: ProcedureErrorCode;
}

/** What the router's CALL path reports of one call (the executor's CallOutcome fits). */
export interface StepOutcome {
  ok: boolean;
  error?: { code: ProcedureErrorCode; errno: number; message: string };
  replies: LocalReply[];
}

const DURATION_UNIT: Record<TimeValue['unit'], string> = { DAYS: 'd', HOURS: 'h', MINUTES: 'min' };

function str(name: string, value: string): CallArgument {
  return { name, value: { kind: 'string', value }, offset: 0 };
}

function int(name: string, value: bigint): CallArgument {
  return { name, value: { kind: 'integer', value, text: value.toString() }, offset: 0 };
}

function bool(name: string, value: boolean): CallArgument {
  return { name, value: { kind: 'boolean', value }, offset: 0 };
}

/**
 * The `table` argument for the written name parts without the catalog: `db.table`, or `table`
 * alone (resolved with the session's current database, as for a CALL). A part that would not
 * read back as one part is back-quoted (procedures/framework/target.ts reads back-quotes).
 */
export function tableArgument(parts: readonly string[]): string {
  return parts.map((p) => (/^[A-Za-z0-9_$]+$/.test(p) ? p : '`' + p.replace(/`/g, '``') + '`')).join('.');
}

/** The procedure a statement is audited under when it is refused before any call. */
export function procedureOfDdl(ddl: Pick<TagBranchDdl, 'action' | 'ref'>): string {
  return `${ddl.action === 'drop' ? 'delete' : 'create'}_${ddl.ref}`;
}

function notSupported(what: string, instead: string): never {
  throw new ProcedureError('NOT_SUPPORTED', `${what} has no equivalent for a Paimon table: ${instead}`);
}

/**
 * The calls of a clause on `table` (a tableArgument). Throws NOT_SUPPORTED for what Paimon's
 * model has no equivalent of, naming the CALL to use instead.
 */
export function planTagBranchDdl(clause: TagBranchClause, table: string): DdlStep[] {
  const t = str('table', table);
  if (clause.ref === 'tag') {
    const tag = str('tag', clause.name);
    if (clause.action === 'drop') {
      return [{ invocation: { procedure: 'delete_tag', args: [t, tag, ...(clause.ifExists ? [bool('if_exists', true)] : [])] } }];
    }
    const args = [t, tag];
    if (clause.asOfVersion !== null) args.push(int('snapshot_id', clause.asOfVersion));
    if (clause.retain !== null) args.push(str('time_retained', `${clause.retain.value} ${DURATION_UNIT[clause.retain.unit]}`));
    const create: ProcedureInvocation = { procedure: 'create_tag', args };
    const replace: ProcedureInvocation = { procedure: 'replace_tag', args };
    switch (clause.mode) {
      case 'create':
        return [{ invocation: create }];
      case 'create_if_not_exists':
        return [{ invocation: create, okOn: 'TAG_ALREADY_EXISTS' }];
      case 'replace':
        return [{ invocation: replace }];
      case 'create_or_replace':
        return [{ invocation: { procedure: 'replace_tag', args: [...args, bool('create_if_missing', true)] } }];
    }
  }
  const branch = str('branch', clause.name);
  if (clause.action === 'drop') {
    return [{ invocation: { procedure: 'delete_branch', args: [t, branch] }, ...(clause.ifExists ? { okOn: 'BRANCH_NOT_FOUND' as const } : {}) }];
  }
  const call = `CALL sys.create_branch(table => '${table}', branch => '${clause.name}'${clause.asOfVersion !== null ? ", tag => '<tag>'" : ''})`;
  if (clause.mode === 'replace' || clause.mode === 'create_or_replace') {
    notSupported(`${clause.mode === 'replace' ? 'REPLACE' : 'CREATE OR REPLACE'} BRANCH`, `a Paimon branch cannot be re-pointed; drop it (CALL sys.delete_branch) and create it again (${call})`);
  }
  if (clause.asOfVersion !== null) {
    notSupported('CREATE BRANCH ... AS OF VERSION', `a Paimon branch starts from a tag, not a snapshot; tag the snapshot (CALL sys.create_tag(table => '${table}', tag => '<tag>', snapshot_id => ${clause.asOfVersion})) and branch from it (${call})`);
  }
  if (clause.retain !== null || clause.snapshotRetention !== null) {
    notSupported(`CREATE BRANCH ... ${clause.retain !== null ? 'RETAIN' : 'WITH SNAPSHOT RETENTION'}`, `a Paimon branch has no retention of its own (its snapshots expire by the branch's table options); create it without it (${call})`);
  }
  const args = [t, branch];
  if (clause.mode === 'create_if_not_exists') args.push(bool('ignore_if_exists', true));
  return [{ invocation: { procedure: 'create_branch', args } }];
}

/**
 * Run the steps in order through `run` and answer as Doris answers an ALTER TABLE: OK with no
 * affected rows (the last procedure's warnings kept, its result set dropped), or the first
 * error. Every statement plans to exactly one call today, so it is audited and counted once.
 */
export async function runDdlPlan(steps: readonly DdlStep[], run: (invocation: ProcedureInvocation) => Promise<StepOutcome>): Promise<LocalReply[]> {
  let answer: LocalReply[] = [];
  for (const step of steps) {
    const outcome = await run(step.invocation);
    if (outcome.ok) {
      answer = [okOf(outcome.replies)];
      continue;
    }
    if (outcome.error !== undefined && outcome.error.code === step.okOn) {
      // As MySQL's IF [NOT] EXISTS: OK, with a Note saying what was skipped.
      const note: Warning = { level: 'Note', code: outcome.error.errno, message: outcome.error.message };
      answer = [{ kind: 'ok', affectedRows: 0, warnings: [note] }];
      continue;
    }
    return outcome.replies;
  }
  return answer;
}

function okOf(replies: readonly LocalReply[]): LocalReply {
  const ok = replies.find((r) => r.kind === 'ok');
  const warnings = ok?.kind === 'ok' ? ok.warnings : undefined;
  return { kind: 'ok', affectedRows: 0, ...(warnings !== undefined && warnings.length > 0 ? { warnings } : {}) };
}
