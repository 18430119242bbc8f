/**
 * Test-only stand-ins for the tag and branch procedures, with the signatures the DDL maps onto
 * (create_tag, replace_tag, delete_tag, create_branch, delete_branch): each resolves its table
 * through the real catalog, records the arguments it was bound with, keeps which tags and
 * branches exist in memory, and fails with the codes the real ones use
 * (TAG_ALREADY_EXISTS, TAG_NOT_FOUND, BRANCH_ALREADY_EXISTS, BRANCH_NOT_FOUND). They touch no
 * file: the tests that use them check the router's translation, not Paimon's tag files
 * (tests/integration/relay-tag-branch-ddl-files.test.ts does that with the real procedures).
 */
import { defineProcedure, type ProcedureDefinition } from '../../../../procedures/framework/registry.js';
import { ProcedureError } from '../../../../procedures/framework/errors.js';
import type { ParamSpec } from '../../../../procedures/framework/signature.js';

export interface RecordedCall {
  procedure: string;
  args: Record<string, unknown>;
  identifier: string;
}

export interface Recorder {
  calls: RecordedCall[];
  /** `<identifier>#<name>` of existing tags and branches. */
  tags: Set<string>;
  branches: Set<string>;
  procedures: ProcedureDefinition<readonly ParamSpec[]>[];
}

const RESULT = [{ name: 'result', type: 'string', description: 'what was done' }] as const;

export function recordingProcedures(): Recorder {
  const calls: RecordedCall[] = [];
  const tags = new Set<string>();
  const branches = new Set<string>();
  const table = { name: 'table', type: 'string', required: true, description: 'db.table' } as const;
  const tagP = { name: 'tag', type: 'string', required: true, description: 'tag' } as const;
  const branchP = { name: 'branch', type: 'string', required: true, description: 'branch' } as const;
  const tagOptions = [
    { name: 'snapshot_id', type: 'bigint', description: 'snapshot' },
    { name: 'time_retained', type: 'string', description: 'retention' },
  ] as const;
  const common = { privilege: { privilege: 'ALTER', on: 'table' }, destructive: false, resultColumns: RESULT } as const;
  async function record(procedure: string, args: Record<string, unknown>, ctx: { resolveTable(t: string): Promise<{ identifier: string }> }): Promise<string> {
    const t = await ctx.resolveTable(String(args.table));
    calls.push({ procedure, args: { ...args }, identifier: t.identifier });
    return t.identifier;
  }
  const procedures = [
    defineProcedure({
      name: 'create_tag', description: 'test-only create_tag', params: [table, tagP, ...tagOptions], ...common,
      async run(args, ctx) {
        const key = `${await record('create_tag', args, ctx)}#${args.tag}`;
        if (tags.has(key)) throw new ProcedureError('TAG_ALREADY_EXISTS', `Tag '${args.tag}' already exists`);
        tags.add(key);
        return { rows: [{ result: 'created' }] };
      },
    }),
    defineProcedure({
      name: 'replace_tag', description: 'test-only replace_tag',
      params: [table, tagP, ...tagOptions, { name: 'create_if_missing', type: 'boolean', default: false, description: 'create when absent' }], ...common,
      async run(args, ctx) {
        const key = `${await record('replace_tag', args, ctx)}#${args.tag}`;
        if (!tags.has(key)) {
          if (!args.create_if_missing) throw new ProcedureError('TAG_NOT_FOUND', `Tag '${args.tag}' does not exist`);
          tags.add(key);
          return { rows: [{ result: 'created' }] };
        }
        return { rows: [{ result: 'replaced' }] };
      },
    }),
    defineProcedure({
      name: 'delete_tag', description: 'test-only delete_tag', params: [table, tagP, { name: 'if_exists', type: 'boolean', default: false, description: 'no error when absent' }], ...common,
      async run(args, ctx) {
        const key = `${await record('delete_tag', args, ctx)}#${args.tag}`;
        if (!tags.delete(key) && !args.if_exists) throw new ProcedureError('TAG_NOT_FOUND', `Tag '${args.tag}' does not exist`);
        return { rows: [{ result: 'deleted' }] };
      },
    }),
    defineProcedure({
      name: 'create_branch', description: 'test-only create_branch',
      params: [table, branchP, { name: 'tag', type: 'string', description: 'from tag' }, { name: 'ignore_if_exists', type: 'boolean', default: false, description: 'no error when present' }], ...common,
      async run(args, ctx) {
        const key = `${await record('create_branch', args, ctx)}#${args.branch}`;
        if (branches.has(key) && !args.ignore_if_exists) throw new ProcedureError('BRANCH_ALREADY_EXISTS', `Branch '${args.branch}' already exists`);
        branches.add(key);
        return { rows: [{ result: 'created' }] };
      },
    }),
    defineProcedure({
      name: 'delete_branch', description: 'test-only delete_branch', params: [table, branchP], ...common,
      async run(args, ctx) {
        const key = `${await record('delete_branch', args, ctx)}#${args.branch}`;
        if (!branches.delete(key)) throw new ProcedureError('BRANCH_NOT_FOUND', `Branch '${args.branch}' does not exist`);
        return { rows: [{ result: 'deleted' }] };
      },
    }),
  ] as unknown as ProcedureDefinition<readonly ParamSpec[]>[];
  return { calls, tags, branches, procedures };
}
