/**
 * Binding the literal arguments of a CALL to a procedure's signature, with Paimon's Spark
 * rules (paimon-spark `PaimonProcedureResolver`): named and positional arguments cannot be
 * mixed; names match case-insensitively (here also through declared aliases); duplicate,
 * unknown and missing arguments are errors; absent optional arguments take the declared
 * default or NULL; values are checked with Spark's up-cast rules (an integer fits a BIGINT or
 * a STRING parameter, a string never fits an INT one). Every error names the argument as the
 * user typed it, quotes values through quote() (bounded), suggests the nearest parameter names
 * for an unknown one (suggest.ts, over names, aliases and the framework arguments) and shows the
 * signature, framework arguments (`timeout`, `async`) included when the executor has them.
 */
import { ProcedureError } from './errors.js';
import { quote } from './quote.js';
import { didYouMean, type Candidate } from './suggest.js';
import { formatSignature, type BoundArgs, type ParamSpec, type ParamType, type ProcedureSignature } from './signature.js';

/** A literal argument as the CALL parser produced it. */
export type ArgumentValue =
  | { kind: 'string'; value: string }
  /** An integer literal, exact (64 bits and beyond are kept; range is checked by binding). */
  | { kind: 'integer'; value: bigint; text: string }
  /** A decimal or exponent literal, as written (sign included). */
  | { kind: 'decimal'; text: string }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'null' };

export interface CallArgument {
  /** The name of a named argument (`name => value`) as written, without backticks; null when positional. */
  name: string | null;
  value: ArgumentValue;
  /** Character offset of the argument in the statement, for messages. */
  offset: number;
}

/** Bound arguments without static parameter knowledge (what the executor handles). */
export type BoundValue = string | number | bigint | boolean | null;
export type AnyBoundArgs = Record<string, BoundValue>;

const INT_MIN = -2147483648n;
const INT_MAX = 2147483647n;
const BIGINT_MIN = -(2n ** 63n);
const BIGINT_MAX = 2n ** 63n - 1n;

export function describeValue(v: ArgumentValue): string {
  switch (v.kind) {
    case 'string':
      return `string ${quote(v.value)}`;
    case 'integer':
      return `integer ${v.text}`;
    case 'decimal':
      return `decimal ${v.text}`;
    case 'boolean':
      return v.value ? 'TRUE' : 'FALSE';
    case 'null':
      return 'NULL';
  }
}

/** What a failure shows: the procedure's signature and the framework arguments it accepts too. */
interface Shown {
  sig: ProcedureSignature;
  framework: readonly ParamSpec[];
}

function fail(shown: Shown, code: ConstructorParameters<typeof ProcedureError>[0], what: string): never {
  const end = /[.?!]$/.test(what) ? '' : '.';
  throw new ProcedureError(code, `${what}${end} Signature: ${formatSignature(shown.sig, shown.framework)}`);
}

/** `retain_max`, or `snapshotId (snapshot_id)` when an alias was typed. */
function nameAsTyped(p: ParamSpec, spelledAs: string): string {
  return spelledAs.toLowerCase() === p.name.toLowerCase() ? spelledAs : `${spelledAs} (${p.name})`;
}

/** Convert one literal to the parameter's type, or explain why it does not fit. */
function coerce(shown: Shown, p: ParamSpec, spelledAs: string, v: Exclude<ArgumentValue, { kind: 'null' }>): BoundValue {
  const wrong = (detail = ''): never =>
    fail(shown, 'ARGUMENT_TYPE', `Argument ${nameAsTyped(p, spelledAs)} of procedure ${shown.sig.name} must be ${typeName(p.type)}, got ${describeValue(v)}${detail}`);
  switch (p.type) {
    case 'string':
      // Spark up-casts any atomic value to STRING.
      if (v.kind === 'string') return v.value;
      if (v.kind === 'integer' || v.kind === 'decimal') return v.text;
      return v.value ? 'true' : 'false';
    case 'int':
      if (v.kind !== 'integer') return wrong();
      if (v.value < INT_MIN || v.value > INT_MAX) return wrong(' (out of the INT range)');
      return Number(v.value);
    case 'bigint':
      if (v.kind !== 'integer') return wrong();
      if (v.value < BIGINT_MIN || v.value > BIGINT_MAX) return wrong(' (out of the BIGINT range)');
      return v.value;
    case 'boolean':
      if (v.kind === 'boolean') return v.value;
      // MySQL's TRUE and FALSE are the integers 1 and 0, so MySQL users write them that way.
      if (v.kind === 'integer' && (v.value === 0n || v.value === 1n)) return v.value === 1n;
      return wrong(' (TRUE, FALSE, 1 or 0)');
    case 'double': {
      if (v.kind !== 'integer' && v.kind !== 'decimal') return wrong();
      const n = Number(v.kind === 'integer' ? v.value : v.text);
      if (!Number.isFinite(n)) return wrong(' (out of the DOUBLE range)');
      return n;
    }
  }
}

function typeName(t: ParamType): string {
  return { string: 'a STRING', int: 'an INT', bigint: 'a BIGINT', boolean: 'a BOOLEAN', double: 'a DOUBLE' }[t];
}

/** Index of canonical and alias names, lower-cased. Built once per signature by the registry. */
export function paramIndex(sig: ProcedureSignature): Map<string, ParamSpec> {
  const m = new Map<string, ParamSpec>();
  for (const p of sig.params) {
    m.set(p.name.toLowerCase(), p);
    for (const a of p.aliases ?? []) m.set(a.toLowerCase(), p);
  }
  return m;
}

/** Every spelling a parameter answers to, for suggestions. */
function candidatesOf(params: readonly ParamSpec[]): Candidate[] {
  return params.flatMap((p) => [p.name, ...(p.aliases ?? [])].map((name) => ({ name, canonical: p.name })));
}

export function bindArguments<Ps extends readonly ParamSpec[]>(
  sig: ProcedureSignature & { readonly params: Ps },
  args: readonly CallArgument[],
  index: Map<string, ParamSpec> = paramIndex(sig),
  framework: readonly ParamSpec[] = [],
): BoundArgs<Ps> {
  return bindArgumentsDynamic(sig, args, index, framework) as BoundArgs<Ps>;
}

/**
 * Bind a call's own arguments. `framework` are the arguments the executor takes out before
 * binding (ExecutorOptions.frameworkParams): only shown in messages and offered as suggestions.
 */
export function bindArgumentsDynamic(
  sig: ProcedureSignature,
  args: readonly CallArgument[],
  index: Map<string, ParamSpec> = paramIndex(sig),
  framework: readonly ParamSpec[] = [],
): AnyBoundArgs {
  const shown: Shown = { sig, framework };
  const named = args.filter((a) => a.name !== null).length;
  if (named > 0 && named < args.length) {
    fail(shown, 'ARGUMENTS_MIXED', `Cannot mix named and positional arguments in a call of ${sig.name}`);
  }
  // Which literal each parameter received, keyed by canonical name; the spelling used is kept for messages.
  const given = new Map<string, { value: ArgumentValue; spelledAs: string }>();
  if (named === 0) {
    if (args.length > sig.params.length) {
      fail(shown, 'TOO_MANY_ARGUMENTS', `Too many arguments for procedure ${sig.name}: ${args.length} given, at most ${sig.params.length} accepted by position`);
    }
    args.forEach((a, i) => {
      const p = sig.params[i]!;
      given.set(p.name, { value: a.value, spelledAs: p.name });
    });
  } else {
    for (const a of args) {
      const name = a.name!;
      const p = index.get(name.toLowerCase());
      if (p === undefined) {
        const hint = didYouMean(name, [...candidatesOf(sig.params), ...candidatesOf(framework)]);
        fail(shown, 'ARGUMENT_UNKNOWN', `Argument ${quote(name)} is unknown for procedure ${sig.name}.${hint}`);
      }
      const prev = given.get(p.name);
      if (prev !== undefined) {
        const how = prev.spelledAs.toLowerCase() === name.toLowerCase() ? '' : ` (also given as ${prev.spelledAs})`;
        fail(shown, 'ARGUMENT_DUPLICATED', `Procedure argument ${nameAsTyped(p, name)} is duplicated${how}`);
      }
      given.set(p.name, { value: a.value, spelledAs: name });
    }
  }
  const out: AnyBoundArgs = {};
  const missing: string[] = [];
  for (const p of sig.params) {
    const g = given.get(p.name);
    if (g !== undefined && g.value.kind !== 'null') {
      out[p.name] = coerce(shown, p, g.spelledAs, g.value);
    } else if (p.required) {
      missing.push(p.name);
    } else {
      out[p.name] = p.default ?? null;
    }
  }
  if (missing.length > 0) {
    fail(shown, 'ARGUMENT_MISSING', `Required parameters [${missing.join(', ')}] of procedure ${sig.name} are missing (NULL counts as missing)`);
  }
  return out;
}

/**
 * Bind the framework arguments of a call (those the executor took out: `timeout`, `async`) with
 * the ordinary type rules. A failure names the argument as typed and shows the procedure's own
 * signature with the framework arguments after it, not a signature made of the framework
 * arguments alone. Only the arguments given are returned (absent ones keep their hooks' defaults).
 */
export function bindFrameworkArguments(sig: ProcedureSignature, framework: readonly ParamSpec[], args: readonly CallArgument[]): AnyBoundArgs {
  const shown: Shown = { sig, framework };
  const out: AnyBoundArgs = {};
  const spelled = new Map<string, string>();
  for (const a of args) {
    const name = a.name ?? '';
    const p = framework.find((f) => [f.name, ...(f.aliases ?? [])].some((n) => n.toLowerCase() === name.toLowerCase()));
    if (p === undefined) {
      fail(shown, 'ARGUMENT_UNKNOWN', `Argument ${quote(name)} is unknown for procedure ${sig.name}.${didYouMean(name, [...candidatesOf(sig.params), ...candidatesOf(framework)])}`);
    }
    const prev = spelled.get(p.name);
    if (prev !== undefined) {
      fail(shown, 'ARGUMENT_DUPLICATED', `Procedure argument ${nameAsTyped(p, name)} is duplicated${prev.toLowerCase() === name.toLowerCase() ? '' : ` (also given as ${prev})`}`);
    }
    spelled.set(p.name, name);
    // NULL is bound as NULL: the hooks treat it as not given, as for an absent optional argument.
    out[p.name] = a.value.kind === 'null' ? null : coerce(shown, p, name, a.value);
  }
  return out;
}
