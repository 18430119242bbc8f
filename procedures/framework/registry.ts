/**
 * The procedure registry: every procedure is one `defineProcedure({...})` declaration (its
 * signature plus its run function) registered here. Lookup is case-insensitive over names
 * and aliases, as Spark lower-cases procedure names.
 */
import type { ParamSpec, ProcedureSignature, BoundArgs } from './signature.js';
import { validateSignature } from './signature.js';
import type { ProcedureContext } from './context.js';
import type { ProcedureResult } from './result.js';
import { paramIndex, type AnyBoundArgs } from './binding.js';
import { ProcedureError } from './errors.js';
import { bounded } from './quote.js';
import { didYouMean, type Candidate } from './suggest.js';

export interface ProcedureDefinition<Ps extends readonly ParamSpec[] = readonly ParamSpec[]> extends ProcedureSignature {
  readonly params: Ps;
  run(args: BoundArgs<Ps>, ctx: ProcedureContext): Promise<ProcedureResult>;
}

/**
 * Declare a procedure. The `const` type parameter keeps the literal parameter list, so
 * `run` receives typed arguments: `args.retain_max` is `number | null`, `args.table` is
 * `string` when `table` is required, and so on.
 */
export function defineProcedure<const Ps extends readonly ParamSpec[]>(def: ProcedureDefinition<Ps>): ProcedureDefinition<Ps> {
  validateSignature(def);
  return def;
}

/** A registered procedure with its precomputed name index, type-erased for the executor. */
export interface RegisteredProcedure {
  readonly signature: ProcedureSignature;
  readonly paramIndex: Map<string, ParamSpec>;
  run(args: AnyBoundArgs, ctx: ProcedureContext): Promise<ProcedureResult>;
}

export class ProcedureRegistry {
  private readonly byName = new Map<string, RegisteredProcedure>();
  private readonly all: RegisteredProcedure[] = [];

  constructor(definitions: readonly ProcedureDefinition<readonly ParamSpec[]>[] = []) {
    for (const d of definitions) this.register(d);
  }

  register<Ps extends readonly ParamSpec[]>(def: ProcedureDefinition<Ps>): void {
    validateSignature(def);
    const reg: RegisteredProcedure = {
      signature: def,
      paramIndex: paramIndex(def),
      run: (args, ctx) => def.run(args as BoundArgs<Ps>, ctx),
    };
    for (const n of [def.name, ...(def.aliases ?? [])]) {
      const key = n.toLowerCase();
      if (this.byName.has(key)) throw new Error(`procedure name '${n}' is registered twice`);
      this.byName.set(key, reg);
    }
    this.all.push(reg);
  }

  lookup(name: string): RegisteredProcedure | undefined {
    return this.byName.get(name.toLowerCase());
  }

  /**
   * Lookup or PROCEDURE_NOT_FOUND (1305): the nearest names first (over names and aliases,
   * suggest.ts), then the procedures that exist.
   */
  get(name: string, catalog?: string): RegisteredProcedure {
    const p = this.lookup(name);
    if (p !== undefined) return p;
    const names = this.names();
    const list = names.length > 0 ? names.join(', ') : '(none registered)';
    const candidates: Candidate[] = [...this.byName].map(([key, reg]) => ({ name: key, canonical: reg.signature.name }));
    throw new ProcedureError(
      'PROCEDURE_NOT_FOUND',
      `PROCEDURE ${catalog === undefined ? '' : `${catalog}.`}sys.${bounded(name)} does not exist.${didYouMean(name, candidates)} Available procedures: ${list}`,
    );
  }

  /** Canonical names and aliases, sorted. */
  names(): string[] {
    return [...this.byName.keys()].sort();
  }

  /** Registered procedures by canonical name. */
  list(): RegisteredProcedure[] {
    return [...this.all].sort((a, b) => a.signature.name.localeCompare(b.signature.name));
  }
}
