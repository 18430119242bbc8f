/**
 * A procedure's signature, declared once per procedure: parameter names with their accepted
 * aliases, positional order, types, required flags, defaults, descriptions, result columns,
 * the privilege it needs, and how the operations layer treats its calls (whether they change
 * the table, count as heavy work, or act only on the caller's own jobs). The same declaration
 * drives argument binding, validation, the privilege check, the per-table lock, the heavy-job
 * cap, the FE refresh, the docs table, `SHOW PROCEDURES` and the tests (one source of truth):
 * adding a procedure is its module and one line in procedures/index.ts.
 *
 * Types are Spark's procedure parameter types (paimon-spark `ProcedureParameter`), because
 * names, order and types follow Paimon's Spark procedures so that Spark scripts work here.
 */
import type { ColumnType } from './reply.js';

/** Parameter types (Spark's STRING, INT, BIGINT, BOOLEAN, DOUBLE). */
export type ParamType = 'string' | 'int' | 'bigint' | 'boolean' | 'double';

/** The TypeScript value a bound parameter of each type has. */
export interface ParamValueOf {
  string: string;
  int: number;
  bigint: bigint;
  boolean: boolean;
  double: number;
}

export interface ParamSpec {
  /** Canonical name (Spark's), matched case-insensitively. */
  readonly name: string;
  /** Other accepted names (Flink's spelling, older names), matched case-insensitively. */
  readonly aliases?: readonly string[];
  readonly type: ParamType;
  readonly required?: boolean;
  /** Used when the argument is absent or NULL. */
  readonly default?: string | number | bigint | boolean;
  readonly description: string;
}

export interface ResultColumnSpec {
  readonly name: string;
  readonly type: ColumnType;
  readonly description: string;
}

/**
 * The privilege a procedure needs, in Doris's privilege model (src/security/privileges.ts).
 * `on` says what it is checked against: the table named by the `table` argument, its
 * database, or the catalog. The rule the built-in procedures follow: reading procedures need
 * SELECT; tag, branch, consumer, partition, rollback, expire, compact and the other table
 * maintenance ALTER on the table; database-wide work ALTER on the database.
 */
export interface PrivilegeSpec {
  readonly privilege: 'SELECT' | 'ALTER' | 'DROP' | 'ADMIN';
  readonly on: 'table' | 'database' | 'catalog';
}

export interface ProcedureSignature {
  /** Canonical procedure name, lower case (Paimon's identifier). */
  readonly name: string;
  /** Other names the procedure answers to (for example Spark's `rollback` for `rollback_to`). */
  readonly aliases?: readonly string[];
  readonly description: string;
  /** Parameters in positional order. */
  readonly params: readonly ParamSpec[];
  /** Result columns: Paimon's own first, then ours. */
  readonly resultColumns: readonly ResultColumnSpec[];
  readonly privilege: PrivilegeSpec;
  /** True when the procedure can delete or rewrite anything (it must then accept dry_run). */
  readonly destructive: boolean;
  /**
   * True when a call that is not a dry run changes the table it names: it holds that table's
   * lock while it runs (`procedures.table_lock`), so that two such calls of one table never
   * interleave, and the FE is told to refresh the objects it reports as affected.
   * Default: true when the procedure is destructive or needs more than SELECT.
   */
  readonly changesMetadata?: boolean;
  /**
   * True for work whose cost grows with the table's data (Paimon's compact, compact_database,
   * remove_orphan_files, rewrite_file_index, purge_files): a call that is not a dry run waits
   * for a slot of the global cap `procedures.max_concurrent_heavy`, and an `async => true` job
   * takes its slot before it starts. Default false.
   */
  readonly heavy?: boolean;
  /**
   * True when the procedure acts only on the caller's own jobs and calls (list_jobs,
   * job_status, cancel_job): its privilege is not checked against the caller's grants, because
   * submitting the job already needed the job's own procedure's privilege, and someone else's
   * job is "not found". Default false.
   */
  readonly callerScoped?: boolean;
}

/** How the operations layer treats a procedure's calls: the declared flags with their defaults. */
export interface ProcedureTraits {
  readonly changesMetadata: boolean;
  readonly heavy: boolean;
  readonly callerScoped: boolean;
}

/** The traits of a signature, defaults applied (see ProcedureSignature). */
export function traitsOf(sig: ProcedureSignature): ProcedureTraits {
  return {
    changesMetadata: sig.changesMetadata ?? (sig.destructive || sig.privilege.privilege !== 'SELECT'),
    heavy: sig.heavy ?? false,
    callerScoped: sig.callerScoped ?? false,
  };
}

type ValueOf<P extends ParamSpec> = ParamValueOf[P['type']];

/**
 * Bound arguments keyed by canonical parameter name: required parameters and parameters with
 * a default are always present; other optional ones are null when absent.
 */
export type BoundArgs<Ps extends readonly ParamSpec[]> = {
  [P in Ps[number] as P['name']]: P extends { required: true }
    ? ValueOf<P>
    : P extends { default: string | number | bigint | boolean }
      ? ValueOf<P>
      : ValueOf<P> | null;
};

/**
 * Human signature text used in error messages and listings:
 * `expire_snapshots(table STRING required, retain_max INT, ...; by name only: timeout STRING, async BOOLEAN)`.
 * `framework` are the arguments every procedure accepts by name (ExecutorOptions.frameworkParams):
 * they come after the procedure's own, which can also be given by position; one that the
 * procedure declares itself is shown once, as its own.
 */
export function formatSignature(sig: Pick<ProcedureSignature, 'name' | 'params'>, framework: readonly ParamSpec[] = []): string {
  const own = sig.params.map(formatParam);
  const taken = new Set(sig.params.flatMap((p) => [p.name, ...(p.aliases ?? [])].map((n) => n.toLowerCase())));
  const extra = framework.filter((p) => !taken.has(p.name.toLowerCase())).map(formatParam);
  return `${sig.name}(${own.join(', ')}${extra.length > 0 ? `${own.length > 0 ? '; ' : ''}by name only: ${extra.join(', ')}` : ''})`;
}

function formatParam(p: ParamSpec): string {
  let s = `${p.name} ${p.type.toUpperCase()}`;
  if (p.required) s += ' required';
  else if (p.default !== undefined) s += ` = ${formatDefault(p.default)}`;
  if (p.aliases && p.aliases.length > 0) s += ` (alias ${p.aliases.join(', ')})`;
  return s;
}

/** A default as a CALL would spell it: `'x'`, `TRUE`, `10`. */
export function formatDefault(v: string | number | bigint | boolean): string {
  if (typeof v === 'string') return `'${v}'`;
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  return String(v);
}

/**
 * Checks a declaration for mistakes that would make binding ambiguous: duplicate names or
 * aliases, a required parameter with a default, a default of the wrong type, a destructive
 * procedure without dry_run; and for traits that would let a call past a safeguard: a
 * destructive procedure that takes no table lock, a procedure changing tables with only
 * SELECT, a caller-scoped procedure (never checked against grants) that acts on a table or
 * changes one. Run by the registry at registration.
 */
export function validateSignature(sig: ProcedureSignature): void {
  const problems: string[] = [];
  if (!/^[a-z][a-z0-9_]*$/.test(sig.name)) problems.push(`name '${sig.name}' must be lower case letters, digits and _`);
  const seen = new Map<string, string>();
  for (const p of sig.params) {
    for (const n of [p.name, ...(p.aliases ?? [])]) {
      const k = n.toLowerCase();
      const prev = seen.get(k);
      if (prev !== undefined) problems.push(`parameter name '${n}' of '${p.name}' is already used by '${prev}'`);
      seen.set(k, p.name);
    }
    if (p.required && p.default !== undefined) problems.push(`parameter '${p.name}' is required and has a default`);
    if (p.default !== undefined && !defaultMatches(p.type, p.default)) {
      problems.push(`default of '${p.name}' does not match its type ${p.type}`);
    }
  }
  if (sig.destructive && !sig.params.some((p) => p.name === 'dry_run' && p.type === 'boolean')) {
    problems.push('a destructive procedure must accept dry_run BOOLEAN');
  }
  const traits = traitsOf(sig);
  if (sig.destructive && !traits.changesMetadata) problems.push('a destructive procedure changes metadata (it must hold the table lock)');
  if (traits.changesMetadata && sig.privilege.privilege === 'SELECT') problems.push('a procedure that changes metadata needs more than SELECT');
  if (traits.callerScoped) {
    if (sig.destructive || traits.changesMetadata || traits.heavy) problems.push('a caller-scoped procedure must not be destructive, change metadata or be heavy');
    const scoped = sig.params.filter((p) => p.name === 'table' || p.name === 'database');
    if (scoped.length > 0) problems.push(`a caller-scoped procedure must not take a ${scoped.map((p) => p.name).join(' or ')} argument`);
  }
  const cols = new Set<string>();
  for (const c of sig.resultColumns) {
    if (cols.has(c.name)) problems.push(`result column '${c.name}' is declared twice`);
    cols.add(c.name);
  }
  if (problems.length > 0) throw new Error(`invalid signature of procedure ${sig.name}: ${problems.join('; ')}`);
}

function defaultMatches(type: ParamType, v: string | number | bigint | boolean): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'int':
      return typeof v === 'number' && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647;
    case 'bigint':
      return typeof v === 'bigint';
    case 'boolean':
      return typeof v === 'boolean';
    case 'double':
      return typeof v === 'number';
  }
}
