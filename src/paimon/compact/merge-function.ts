/**
 * Merge functions of primary-key tables (`MergeFunction` implementations of Paimon): they receive
 * all records of one key in merge order (ascending `sequence.field` values, then ascending
 * sequence number) and return the record to keep, or null.
 *
 *  - deduplicate (`DeduplicateMergeFunction`): the last record wins; with `ignore-delete`
 *    retract records are skipped;
 *  - first-row (`FirstRowMergeFunction`): the first non-retract record wins; retract records are
 *    skipped with `ignore-delete`, otherwise refused as Paimon refuses them;
 *  - partial-update (`PartialUpdateMergeFunction`, without sequence groups): non-null fields of
 *    later records overwrite; the result is an INSERT with the last sequence number; a DELETE with
 *    `partial-update.remove-record-on-delete` removes the row so far; other retracts are skipped
 *    with `ignore-delete`, otherwise refused;
 *  - aggregation (`AggregateMergeFunction`): per field aggregator (`fields.<f>.aggregate-function`,
 *    default `fields.default-aggregate-function`, else last_non_null_value); primary-key fields
 *    keep the key. Supported aggregators are listed in SUPPORTED_AGGREGATORS; others are refused.
 *
 * Options whose semantics are not implemented (sequence groups, per-field aggregators in
 * partial-update, `aggregation.remove-record-on-delete`, descending sequence order) are refused
 * by `createMergeFunction` with UNSUPPORTED_TABLE naming the option.
 */
import { PaimonError } from '../errors.js';
import { Decimal } from '../binary-row.js';
import type { DataFieldSpec, FieldType } from '../data/field-type.js';
import { compareAtomic, isRetract, RowKind, type Datum, type InternalRow, type KeyValue } from '../data/internal-row.js';

export interface MergeFunction {
  reset(): void;
  add(kv: KeyValue): void;
  /** The merged record (it may be a retract record; the caller drops those at the top level). */
  result(): KeyValue | null;
}

export type MergeEngineName = 'deduplicate' | 'partial-update' | 'aggregation' | 'first-row';

const bool = (v: string | undefined): boolean => v !== undefined && v.trim().toLowerCase() === 'true';

function ignoreDelete(options: Readonly<Record<string, string>>, engine: string): boolean {
  return bool(options['ignore-delete']) || bool(options[`${engine}.ignore-delete`]) || bool(options['first-row.ignore-delete']) && engine === 'first-row';
}

export class DeduplicateMergeFunction implements MergeFunction {
  private latest: KeyValue | null = null;
  constructor(private readonly ignoreDelete: boolean) {}
  reset(): void {
    this.latest = null;
  }
  add(kv: KeyValue): void {
    if (this.ignoreDelete && isRetract(kv.valueKind)) return;
    this.latest = kv;
  }
  result(): KeyValue | null {
    return this.latest;
  }
}

export class FirstRowMergeFunction implements MergeFunction {
  private first: KeyValue | null = null;
  constructor(private readonly ignoreDelete: boolean) {}
  reset(): void {
    this.first = null;
  }
  add(kv: KeyValue): void {
    if (isRetract(kv.valueKind)) {
      if (this.ignoreDelete) return;
      throw new PaimonError(
        'UNSUPPORTED_TABLE',
        "By default, First row merge engine can not accept DELETE/UPDATE_BEFORE records. You can set 'first-row.ignore-delete' to 'true' to ignore them.",
      );
    }
    if (this.first === null) this.first = kv;
  }
  result(): KeyValue | null {
    return this.first;
  }
}

export class PartialUpdateMergeFunction implements MergeFunction {
  private row: InternalRow | null = null;
  private key: InternalRow | null = null;
  private seq = 0n;
  private deleted = false;
  constructor(
    private readonly arity: number,
    private readonly ignoreDelete: boolean,
    private readonly removeRecordOnDelete: boolean,
  ) {}
  reset(): void {
    this.row = null;
    this.key = null;
    this.deleted = false;
  }
  add(kv: KeyValue): void {
    this.key = kv.key;
    if (isRetract(kv.valueKind)) {
      if (this.ignoreDelete) return;
      if (this.removeRecordOnDelete && kv.valueKind === RowKind.DELETE) {
        this.seq = kv.sequenceNumber;
        this.row = null;
        this.deleted = true;
        return;
      }
      throw new PaimonError(
        'UNSUPPORTED_TABLE',
        "By default, Partial update can not accept delete records, you can choose one of the following solutions: 1. Configure 'ignore-delete' to ignore delete records. 2. Configure 'partial-update.remove-record-on-delete' to remove the whole row when receiving delete records.",
      );
    }
    this.seq = kv.sequenceNumber;
    this.deleted = false;
    if (this.row === null) this.row = new Array<Datum>(this.arity).fill(null);
    for (let i = 0; i < this.arity; i++) if (kv.value[i] !== null) this.row[i] = kv.value[i];
  }
  result(): KeyValue | null {
    if (this.key === null) return null;
    if (this.row === null) {
      if (!this.deleted) return null;
      return { key: this.key, sequenceNumber: this.seq, valueKind: RowKind.DELETE, value: new Array<Datum>(this.arity).fill(null) };
    }
    return { key: this.key, sequenceNumber: this.seq, valueKind: RowKind.INSERT, value: this.row.slice() };
  }
}

// ------------------------------------------------------------------------------------ aggregation

/** Aggregators implemented here (Paimon's `FieldAggregatorFactory` identifiers). */
export const SUPPORTED_AGGREGATORS = [
  'sum', 'product', 'max', 'min', 'last_value', 'last_non_null_value', 'first_value', 'first_non_null_value', 'bool_and', 'bool_or', 'listagg', 'primary-key',
] as const;
/** Aggregators Paimon lists that this implementation refuses. */
export const UNSUPPORTED_AGGREGATORS = [
  'count', 'collect', 'merge_map', 'merge_map_with_keytime', 'nested_update', 'nested_partial_update', 'hll_sketch', 'theta_sketch', 'rbm32', 'rbm64',
] as const;

interface FieldAggregator {
  reset(): void;
  agg(acc: Datum, input: Datum): Datum;
  retract?(acc: Datum, input: Datum): Datum;
}

function numericAdd(t: FieldType, a: Datum, b: Datum, sign: 1 | -1): Datum {
  switch (t.root) {
    case 'TINYINT': case 'SMALLINT': case 'INT': {
      const bits = t.root === 'TINYINT' ? 8 : t.root === 'SMALLINT' ? 16 : 32;
      const v = (a as number) + sign * (b as number);
      return Number(BigInt.asIntN(bits, BigInt(v)));
    }
    case 'BIGINT': return BigInt.asIntN(64, (a as bigint) + BigInt(sign) * (b as bigint));
    case 'FLOAT': return Math.fround((a as number) + sign * (b as number));
    case 'DOUBLE': return (a as number) + sign * (b as number);
    case 'DECIMAL': {
      const x = a as Decimal, y = b as Decimal;
      return new Decimal(x.unscaled + BigInt(sign) * y.unscaled, x.precision, x.scale);
    }
    default: throw new PaimonError('UNSUPPORTED_TABLE', `sum/product aggregation does not support type ${t.root}`);
  }
}

function numericMul(t: FieldType, a: Datum, b: Datum): Datum {
  switch (t.root) {
    case 'TINYINT': case 'SMALLINT': case 'INT': {
      const bits = t.root === 'TINYINT' ? 8 : t.root === 'SMALLINT' ? 16 : 32;
      return Number(BigInt.asIntN(bits, BigInt(a as number) * BigInt(b as number)));
    }
    case 'BIGINT': return BigInt.asIntN(64, (a as bigint) * (b as bigint));
    case 'FLOAT': return Math.fround((a as number) * (b as number));
    case 'DOUBLE': return (a as number) * (b as number);
    default: throw new PaimonError('UNSUPPORTED_TABLE', `product aggregation does not support type ${t.root}`);
  }
}

function makeAggregator(name: string, field: DataFieldSpec, options: Readonly<Record<string, string>>): FieldAggregator {
  const t = field.type;
  const nothing = (): void => undefined;
  const ignoreRetract = bool(options[`fields.${field.name}.ignore-retract`]);
  const noRetract = (what: string) => (acc: Datum): Datum => {
    if (ignoreRetract) return acc;
    throw new PaimonError('UNSUPPORTED_TABLE', `Aggregate function '${what}' does not support retraction, If you allow this function to ignore retraction messages, you can configure 'fields.${field.name}.ignore-retract'='true'.`);
  };
  switch (name) {
    case 'primary-key':
      return { reset: nothing, agg: (_a, i) => i, retract: (_a, i) => i };
    case 'sum':
      return {
        reset: nothing,
        agg: (a, i) => (a === null ? i : i === null ? a : numericAdd(t, a, i, 1)),
        retract: (a, i) => (i === null ? a : a === null ? numericAdd(t, zeroOf(t), i, -1) : numericAdd(t, a, i, -1)),
      };
    case 'product':
      return { reset: nothing, agg: (a, i) => (a === null ? i : i === null ? a : numericMul(t, a, i)), retract: noRetract(name) };
    case 'max':
      return { reset: nothing, agg: (a, i) => (a === null ? i : i === null ? a : compareAtomic(t, i, a) > 0 ? i : a), retract: noRetract(name) };
    case 'min':
      return { reset: nothing, agg: (a, i) => (a === null ? i : i === null ? a : compareAtomic(t, i, a) < 0 ? i : a), retract: noRetract(name) };
    case 'last_value':
      return { reset: nothing, agg: (_a, i) => i, retract: (a, i) => (i === null ? a : null) };
    case 'last_non_null_value':
      return { reset: nothing, agg: (a, i) => (i === null ? a : i), retract: (a, i) => (i === null ? a : null) };
    case 'first_value': {
      let initialized = false;
      return {
        reset: () => { initialized = false; },
        agg: (a, i) => { if (initialized) return a; initialized = true; return i; },
        retract: noRetract(name),
      };
    }
    case 'first_non_null_value': {
      let initialized = false;
      return {
        reset: () => { initialized = false; },
        agg: (a, i) => { if (initialized || i === null) return a; initialized = true; return i; },
        retract: noRetract(name),
      };
    }
    case 'bool_and':
      return { reset: nothing, agg: (a, i) => (a === null ? i : i === null ? a : (a as boolean) && (i as boolean)), retract: noRetract(name) };
    case 'bool_or':
      return { reset: nothing, agg: (a, i) => (a === null ? i : i === null ? a : (a as boolean) || (i as boolean)), retract: noRetract(name) };
    case 'listagg': {
      const delimiter = options[`fields.${field.name}.list-agg-delimiter`] ?? ',';
      if (bool(options[`fields.${field.name}.distinct`])) {
        throw new PaimonError('UNSUPPORTED_TABLE', `listagg with 'fields.${field.name}.distinct' is not supported by this compaction; use Paimon's own (Flink/Spark) compaction`);
      }
      return { reset: nothing, agg: (a, i) => (a === null ? i : i === null ? a : `${a as string}${delimiter}${i as string}`), retract: noRetract(name) };
    }
    default:
      throw new PaimonError(
        'UNSUPPORTED_TABLE',
        `aggregate function '${name}' (field ${field.name}) is not supported by this compaction; supported: ${SUPPORTED_AGGREGATORS.join(', ')}; not supported: ${UNSUPPORTED_AGGREGATORS.join(', ')}. Use Paimon's own (Flink/Spark) compaction for this table.`,
      );
  }
}

function zeroOf(t: FieldType): Datum {
  switch (t.root) {
    case 'BIGINT': return 0n;
    case 'DECIMAL': return new Decimal(0n, t.precision ?? 10, t.scale ?? 0);
    default: return 0;
  }
}

export class AggregateMergeFunction implements MergeFunction {
  private row: Datum[] = [];
  private key: InternalRow | null = null;
  private seq = 0n;
  private kind: KeyValue['valueKind'] = RowKind.INSERT;
  constructor(
    private readonly aggregators: FieldAggregator[],
    private readonly removeRecordOnDelete: boolean,
  ) {}
  reset(): void {
    this.row = new Array<Datum>(this.aggregators.length).fill(null);
    for (const a of this.aggregators) a.reset();
    this.key = null;
    this.kind = RowKind.INSERT;
  }
  add(kv: KeyValue): void {
    this.key = kv.key;
    this.seq = kv.sequenceNumber;
    const retract = isRetract(kv.valueKind);
    if (retract && this.removeRecordOnDelete && kv.valueKind === RowKind.DELETE) {
      this.kind = RowKind.DELETE;
      this.row = new Array<Datum>(this.aggregators.length).fill(null);
      for (const a of this.aggregators) a.reset();
      return;
    }
    this.kind = RowKind.INSERT;
    for (let i = 0; i < this.aggregators.length; i++) {
      const a = this.aggregators[i];
      this.row[i] = retract ? a.retract!(this.row[i], kv.value[i]) : a.agg(this.row[i], kv.value[i]);
    }
  }
  result(): KeyValue | null {
    if (this.key === null) return null;
    return { key: this.key, sequenceNumber: this.seq, valueKind: this.kind, value: this.row.slice() };
  }
}

/** Merge engine of a table and the merge function for its fields; refuses what is not implemented. */
export function createMergeFunction(
  fields: readonly DataFieldSpec[],
  primaryKeys: readonly string[],
  options: Readonly<Record<string, string>>,
): { engine: MergeEngineName; create: () => MergeFunction } {
  const engine = (options['merge-engine'] ?? 'deduplicate') as MergeEngineName;
  switch (engine) {
    case 'deduplicate': {
      const ig = ignoreDelete(options, 'deduplicate');
      return { engine, create: () => new DeduplicateMergeFunction(ig) };
    }
    case 'first-row': {
      const ig = ignoreDelete(options, 'first-row');
      return { engine, create: () => new FirstRowMergeFunction(ig) };
    }
    case 'partial-update': {
      for (const k of Object.keys(options)) {
        if (/^fields\..+\.sequence-group$/.test(k) || /^fields\..+\.aggregate-function$/.test(k) || k === 'fields.default-aggregate-function') {
          throw new PaimonError('UNSUPPORTED_TABLE', `partial-update with option '${k}' (sequence groups / field aggregation) is not supported by this compaction; use Paimon's own (Flink/Spark) compaction for this table`);
        }
      }
      if (bool(options['partial-update.remove-record-on-sequence-group'])) {
        throw new PaimonError('UNSUPPORTED_TABLE', "partial-update with 'partial-update.remove-record-on-sequence-group' is not supported by this compaction");
      }
      const ig = ignoreDelete(options, 'partial-update');
      const rm = bool(options['partial-update.remove-record-on-delete']);
      return { engine, create: () => new PartialUpdateMergeFunction(fields.length, ig, rm) };
    }
    case 'aggregation': {
      const rm = bool(options['aggregation.remove-record-on-delete']);
      const def = options['fields.default-aggregate-function'];
      const names = fields.map((f) => (primaryKeys.includes(f.name) ? 'primary-key' : options[`fields.${f.name}.aggregate-function`] ?? def ?? 'last_non_null_value'));
      // Validate now (clear error before any work), then build fresh aggregators per merge function.
      fields.forEach((f, i) => makeAggregator(names[i], f, options));
      return { engine, create: () => new AggregateMergeFunction(fields.map((f, i) => makeAggregator(names[i], f, options)), rm) };
    }
    default:
      throw new PaimonError('UNSUPPORTED_TABLE', `unknown merge-engine '${String(engine)}'`);
  }
}
