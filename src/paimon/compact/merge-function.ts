/**
 * Merge functions of primary-key tables (`MergeFunction` implementations of Paimon): they receive
 * all records of one key in merge order (ascending `sequence.field` values, then ascending
 * sequence number) and return the record to keep, or null. As Paimon's
 * `ReducerMergeFunctionWrapper` does, a key with a single record keeps that record unchanged
 * (the merge function only runs for two or more records).
 *
 *  - deduplicate (`DeduplicateMergeFunction`): the last record wins; with `ignore-delete`
 *    retract records are skipped;
 *  - first-row (`FirstRowMergeFunction`): the first non-retract record wins; retract records are
 *    skipped with `ignore-delete`, otherwise refused as Paimon refuses them;
 *  - partial-update (`PartialUpdateMergeFunction`): non-null fields of later records overwrite;
 *    sequence groups (`fields.<s1>,<s2>.sequence-group = <f1>,<f2>`) update their fields only
 *    when the group's sequence fields are not older, with `fields.<f>.aggregate-function` inside
 *    groups; retracts: `ignore-delete`, `partial-update.remove-record-on-delete`, retraction of a
 *    group's fields, `partial-update.remove-record-on-sequence-group`; see the class;
 *  - aggregation (`AggregateMergeFunction`): per field aggregator (`fields.<f>.aggregate-function`,
 *    default `fields.default-aggregate-function`, else last_non_null_value; `sequence.field`
 *    fields last_value; primary-key fields keep the key), see aggregators.ts for the functions.
 *
 * `ignore-delete` is read as Paimon's option with its fallback keys (`first-row.ignore-delete`,
 * `deduplicate.ignore-delete`, `partial-update.ignore-delete`, for every engine).
 * Errors Paimon raises while merging (a NOT NULL field set to null, a retraction an aggregator
 * cannot take, integer overflow) fail the compaction with the same message.
 */
import { PaimonError } from '../errors.js';
import type { DataFieldSpec, FieldType } from '../data/field-type.js';
import { compareNullsFirst, isRetract, RowKind, type Datum, type InternalRow, type KeyValue } from '../data/internal-row.js';
import { createFieldAggregator, PAIMON_AGGREGATORS, SUPPORTED_AGGREGATORS, UNSUPPORTED_AGGREGATORS, type FieldAggregator } from './aggregators.js';
import { optionBool as bool } from '../spec/core-options.js';

export { PAIMON_AGGREGATORS, SUPPORTED_AGGREGATORS, UNSUPPORTED_AGGREGATORS };

export interface MergeFunction {
  reset(): void;
  add(kv: KeyValue): void;
  /** The merged record (it may be a retract record; the caller drops those at the top level). */
  result(): KeyValue | null;
}

export type MergeEngineName = 'deduplicate' | 'partial-update' | 'aggregation' | 'first-row';

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

/** `ReducerMergeFunctionWrapper`: a single record of a key is kept as it is. */
export class ReducerMergeFunction implements MergeFunction {
  private initial: KeyValue | null = null;
  private initialized = false;
  constructor(private readonly inner: MergeFunction) {}
  reset(): void {
    this.initial = null;
    this.initialized = false;
    this.inner.reset();
  }
  add(kv: KeyValue): void {
    if (this.initial === null) {
      this.initial = kv;
      return;
    }
    if (!this.initialized) {
      this.inner.add(this.initial);
      this.initialized = true;
    }
    this.inner.add(kv);
  }
  result(): KeyValue | null {
    return this.initialized ? this.inner.result() : this.initial;
  }
}

function notNull(field: number): PaimonError {
  return new PaimonError('UNSUPPORTED_TABLE', `Field ${field} can not be null (a NOT NULL field is null in a record; Paimon fails this merge too)`);
}

/** Ascending comparison of the sequence fields of a group, nulls first (Paimon's generated RecordComparator). */
function compareSeq(fields: readonly number[], types: readonly FieldType[], a: InternalRow, b: InternalRow): number {
  for (const i of fields) {
    const c = compareNullsFirst(types[i], a[i], b[i]);
    if (c !== 0) return c;
  }
  return 0;
}

interface SeqGroup {
  /** Sequence field positions of the group, in the order the option names them. */
  readonly fields: readonly number[];
}

/**
 * `PartialUpdateMergeFunction` (1.4.2 and 2.0.0 behave alike; 2.0.0 only skips sequence fields
 * already written in the same record, which writes the same values, and refuses primary keys in
 * sequence groups at table creation). Without sequence groups: non-null fields overwrite; with
 * groups: a field of a group (or a group's sequence field) takes the record's value when the
 * record's group sequence is not older than the row's (all of a group's sequence fields are
 * written at once), an aggregated group field aggregates (older records through aggReversed);
 * fields outside groups behave as without groups. A record whose group sequence fields are all
 * null leaves the group alone.
 * Retracts: skipped with `ignore-delete` (the first record still seeds the row); with groups they
 * retract the group fields of a not-older group (null, or the aggregator's retract; a DELETE
 * hitting a group named in `partial-update.remove-record-on-sequence-group` removes the row);
 * without groups a DELETE with `partial-update.remove-record-on-delete` removes the row (its
 * values seed the row for later records), an UPDATE_BEFORE is skipped; otherwise refused.
 * The result is an INSERT with the last sequence number, or a DELETE when the row was removed or
 * no insert was seen.
 */
export class PartialUpdateMergeFunction implements MergeFunction {
  private key: InternalRow | null = null;
  private seq = 0n;
  private row: Datum[];
  private currentDeleteRow = false;
  private notNullColumnFilled = false;
  private meetInsert = false;

  constructor(
    private readonly types: readonly FieldType[],
    private readonly nullables: readonly boolean[],
    private readonly ignoreDelete: boolean,
    private readonly removeRecordOnDelete: boolean,
    /** Per field: its sequence group, or undefined. */
    private readonly groupOf: ReadonlyArray<SeqGroup | undefined>,
    /** Per field: its aggregator (only used with sequence groups), or undefined. */
    private readonly aggregators: ReadonlyArray<FieldAggregator | undefined>,
    /** Sequence fields named by `partial-update.remove-record-on-sequence-group`. */
    private readonly removeOnGroup: ReadonlySet<number>,
  ) {
    this.row = new Array<Datum>(types.length).fill(null);
    this.grouped = groupOf.some((g) => g !== undefined);
  }

  private readonly grouped: boolean;

  reset(): void {
    this.key = null;
    this.meetInsert = false;
    this.notNullColumnFilled = false;
    this.row = new Array<Datum>(this.types.length).fill(null);
    this.seq = 0n;
    for (const a of this.aggregators) a?.reset();
  }

  private initRow(value: InternalRow): void {
    for (let i = 0; i < this.types.length; i++) {
      if (!this.nullables[i] && value[i] === null) throw notNull(i);
      this.row[i] = value[i];
    }
  }

  add(kv: KeyValue): void {
    this.key = kv.key;
    this.currentDeleteRow = false;
    if (isRetract(kv.valueKind)) {
      if (!this.notNullColumnFilled) {
        this.initRow(kv.value);
        this.notNullColumnFilled = true;
      }
      if (this.ignoreDelete) return;
      this.seq = kv.sequenceNumber;
      if (this.grouped) {
        this.retractWithSequenceGroup(kv);
        return;
      }
      if (this.removeRecordOnDelete) {
        if (kv.valueKind === RowKind.DELETE) {
          this.currentDeleteRow = true;
          this.row = new Array<Datum>(this.types.length).fill(null);
          this.initRow(kv.value);
        }
        return;
      }
      throw new PaimonError(
        'UNSUPPORTED_TABLE',
        "By default, Partial update can not accept delete records, you can choose one of the following solutions: 1. Configure 'ignore-delete' to ignore delete records. 2. Configure 'partial-update.remove-record-on-delete' to remove the whole row when receiving delete records. 3. Configure 'sequence-group's to retract partial columns. Also configure 'partial-update.remove-record-on-sequence-group' to remove the whole row when receiving deleted records of `specified sequence group`.",
      );
    }
    this.seq = kv.sequenceNumber;
    if (!this.grouped) this.updateNonNullFields(kv.value);
    else this.updateWithSequenceGroup(kv.value);
    this.meetInsert = true;
    this.notNullColumnFilled = true;
  }

  private updateNonNullFields(value: InternalRow): void {
    for (let i = 0; i < this.types.length; i++) {
      const v = value[i];
      if (v !== null) this.row[i] = v;
      else if (!this.nullables[i]) throw notNull(i);
    }
  }

  /** All sequence fields of the group are null in the record: it does not touch the group. */
  private emptyGroup(g: SeqGroup, value: InternalRow, processed: boolean[]): boolean {
    for (const s of g.fields) if (value[s] !== null) return false;
    for (const s of g.fields) processed[s] = true;
    return true;
  }

  private updateWithSequenceGroup(value: InternalRow): void {
    const processed = new Array<boolean>(this.types.length).fill(false);
    for (let i = 0; i < this.types.length; i++) {
      const g = this.groupOf[i];
      const agg = this.aggregators[i];
      const acc = this.row[i];
      if (g === undefined) {
        const v = value[i];
        if (agg !== undefined) this.row[i] = agg.agg(acc, v);
        else if (v !== null) this.row[i] = v;
        continue;
      }
      if (processed[i]) continue;
      if (this.emptyGroup(g, value, processed)) continue;
      const v = value[i];
      if (compareSeq(g.fields, this.types, value, this.row) >= 0) {
        if (g.fields.includes(i)) {
          // all sequence fields of the group at once
          for (const s of g.fields) {
            this.row[s] = value[s];
            processed[s] = true;
          }
          continue;
        }
        this.row[i] = agg === undefined ? v : agg.agg(acc, v);
      } else if (agg !== undefined) {
        this.row[i] = agg.aggReversed(acc, v);
      }
    }
  }

  private retractWithSequenceGroup(kv: KeyValue): void {
    const value = kv.value;
    const updated = new Set<number>();
    const processed = new Array<boolean>(this.types.length).fill(false);
    for (let i = 0; i < this.types.length; i++) {
      const g = this.groupOf[i];
      if (g === undefined) continue;
      const agg = this.aggregators[i];
      if (processed[i]) continue;
      if (this.emptyGroup(g, value, processed)) continue;
      if (compareSeq(g.fields, this.types, value, this.row) >= 0) {
        if (g.fields.includes(i)) {
          for (const s of g.fields) {
            if (!updated.has(s)) {
              if (kv.valueKind === RowKind.DELETE && this.removeOnGroup.has(s)) {
                this.currentDeleteRow = true;
                this.row = new Array<Datum>(this.types.length).fill(null);
                this.initRow(value);
                return;
              }
              this.row[s] = value[s];
              updated.add(s);
            }
            processed[s] = true;
          }
        } else if (agg === undefined) {
          this.row[i] = null;
        } else {
          this.row[i] = agg.retract(this.row[i], value[i]);
        }
      } else if (agg !== undefined) {
        this.row[i] = agg.retract(this.row[i], value[i]);
      }
    }
  }

  result(): KeyValue | null {
    if (this.key === null) return null;
    const kind = this.currentDeleteRow || !this.meetInsert ? RowKind.DELETE : RowKind.INSERT;
    return { key: this.key, sequenceNumber: this.seq, valueKind: kind, value: this.row.slice() };
  }
}

/**
 * `AggregateMergeFunction`: every field through its aggregator (retract records through
 * `retract`); with `aggregation.remove-record-on-delete` a DELETE replaces the row with the
 * delete's values and marks it deleted (a later record aggregates onto those values, as in Paimon).
 */
export class AggregateMergeFunction implements MergeFunction {
  private row: Datum[] = [];
  private latest: KeyValue | null = null;
  private currentDeleteRow = false;
  constructor(
    private readonly aggregators: FieldAggregator[],
    private readonly nullables: readonly boolean[],
    private readonly removeRecordOnDelete: boolean,
  ) {}
  reset(): void {
    this.latest = null;
    this.row = new Array<Datum>(this.aggregators.length).fill(null);
    for (const a of this.aggregators) a.reset();
    this.currentDeleteRow = false;
  }
  add(kv: KeyValue): void {
    this.latest = kv;
    this.currentDeleteRow = this.removeRecordOnDelete && kv.valueKind === RowKind.DELETE;
    if (this.currentDeleteRow) {
      this.row = new Array<Datum>(this.aggregators.length).fill(null);
      for (let i = 0; i < this.aggregators.length; i++) {
        if (!this.nullables[i] && kv.value[i] === null) throw notNull(i);
        this.row[i] = kv.value[i];
      }
      return;
    }
    const retract = isRetract(kv.valueKind);
    for (let i = 0; i < this.aggregators.length; i++) {
      const a = this.aggregators[i];
      this.row[i] = retract ? a.retract(this.row[i], kv.value[i]) : a.agg(this.row[i], kv.value[i]);
    }
  }
  result(): KeyValue | null {
    if (this.latest === null) return null;
    return { key: this.latest.key, sequenceNumber: this.latest.sequenceNumber, valueKind: this.currentDeleteRow ? RowKind.DELETE : RowKind.INSERT, value: this.row.slice() };
  }
}

const splitNames = (s: string): string[] => s.split(',').map((x) => x.trim()).filter((x) => x !== '');

/** Paimon's `ignore-delete` with its fallback keys: the first one set decides. */
export function ignoreDeleteOption(options: Readonly<Record<string, string>>): boolean {
  for (const k of ['ignore-delete', 'first-row.ignore-delete', 'deduplicate.ignore-delete', 'partial-update.ignore-delete']) {
    if (options[k] !== undefined) return bool(options[k]);
  }
  return false;
}

function invalid(msg: string): PaimonError {
  return new PaimonError('UNSUPPORTED_TABLE', msg);
}

/** The partial-update factory: sequence groups, their aggregators and the option checks of Paimon. */
function partialUpdateFactory(fields: readonly DataFieldSpec[], primaryKeys: readonly string[], options: Readonly<Record<string, string>>): () => MergeFunction {
  const names = fields.map((f) => f.name);
  const requireField = (n: string): number => {
    const i = names.indexOf(n);
    if (i < 0) throw invalid(`Field ${n} can not be found in table schema`);
    return i;
  };
  const ig = ignoreDeleteOption(options);
  const removeOnDelete = bool(options['partial-update.remove-record-on-delete']);
  const removeOnGroupOpt = options['partial-update.remove-record-on-sequence-group'];
  const groupOf: Array<SeqGroup | undefined> = new Array<SeqGroup | undefined>(fields.length).fill(undefined);
  const sequenceGroupMap = new Map<string, number>();
  const allSequenceFields: string[] = [];
  const protectedFields: string[] = [];
  // Options in the schema's order (Paimon iterates a HashMap; the result does not depend on it).
  for (const [k, v] of Object.entries(options)) {
    if (!k.startsWith('fields.') || !k.endsWith('.sequence-group')) continue;
    const seqNames = k.slice('fields.'.length, k.length - '.sequence-group'.length).split(',');
    const group: SeqGroup = { fields: seqNames.map(requireField) };
    for (const n of v.split(',')) {
      const f = requireField(n);
      if (primaryKeys.includes(names[f])) {
        throw invalid(`The sequence-group '${k}' contains primary key field '${names[f]}', which is not allowed. Primary key columns cannot be put in sequence-group.`);
      }
      if (groupOf[f] !== undefined) {
        if (allSequenceFields.includes(names[f])) throw invalid(`Field ${names[f]} is a sequence field of another group and a field of '${k}'; this is ambiguous and not supported by this compaction`);
        throw invalid(`Field ${names[f]} is defined repeatedly by multiple groups: ${k}`);
      }
      groupOf[f] = group;
      protectedFields.push(names[f]);
    }
    for (const s of group.fields) {
      if (groupOf[s] !== undefined) {
        // Paimon's outcome depends on its HashMap's option order (an error, or the field silently moved to this group)
        throw invalid(`Field ${names[s]} is the sequence field of '${k}' and also in another sequence group; this is ambiguous and not supported by this compaction`);
      }
      if (primaryKeys.includes(names[s])) {
        throw invalid(`The sequence-group '${k}' contains primary key field '${names[s]}', which is not allowed. Primary key columns cannot be put in sequence-group.`);
      }
      allSequenceFields.push(names[s]);
      groupOf[s] = group;
      sequenceGroupMap.set(names[s], s);
    }
  }
  const grouped = groupOf.some((g) => g !== undefined);
  // getAggFuncName of PartialUpdateMergeFunction
  const aggNames = fields.map((f): string | undefined => {
    if (allSequenceFields.includes(f.name)) return undefined;
    if (primaryKeys.includes(f.name)) return 'primary-key';
    const n = options[`fields.${f.name}.aggregate-function`] ?? options['fields.default-aggregate-function'];
    if (n !== undefined && n !== 'last_non_null_value' && !protectedFields.includes(f.name)) {
      throw invalid(`Must use sequence group for aggregation functions but not found for field ${f.name}.`);
    }
    return n;
  });
  if (removeOnDelete && ig) throw invalid('ignore-delete and partial-update.remove-record-on-delete have conflicting behavior so should not be enabled at the same time.');
  if (removeOnGroupOpt !== undefined && ig) throw invalid('ignore-delete and partial-update.remove-record-on-sequence-group have conflicting behavior so should not be enabled at the same time.');
  if (removeOnDelete && grouped) throw invalid('sequence-group and partial-update.remove-record-on-delete have conflicting behavior so should not be enabled at the same time.');
  const removeOnGroup = new Set<number>();
  if (removeOnGroupOpt !== undefined) {
    const wanted = removeOnGroupOpt.split(',');
    if (!wanted.every((n) => sequenceGroupMap.has(n))) {
      throw invalid(`field '${removeOnGroupOpt}' defined in 'partial-update.remove-record-on-sequence-group' option must be part of sequence groups`);
    }
    for (const n of wanted) removeOnGroup.add(sequenceGroupMap.get(n)!);
  }
  const types = fields.map((f) => f.type);
  const nullables = fields.map((f) => f.type.nullable);
  const makeAggs = (): Array<FieldAggregator | undefined> => fields.map((f, i) => (aggNames[i] === undefined ? undefined : createFieldAggregator(f, aggNames[i]!, options)));
  makeAggs(); // validate now, before any work
  return () => new PartialUpdateMergeFunction(types, nullables, ig, removeOnDelete, groupOf, makeAggs(), removeOnGroup);
}

/** Merge engine of a table and the merge function for its fields; refuses what is not implemented. */
export function createMergeFunction(
  fields: readonly DataFieldSpec[],
  primaryKeys: readonly string[],
  options: Readonly<Record<string, string>>,
): { engine: MergeEngineName; create: () => MergeFunction; createUnwrapped: () => MergeFunction } {
  const engine = (options['merge-engine'] ?? 'deduplicate') as MergeEngineName;
  const ig = ignoreDeleteOption(options);
  let make: () => MergeFunction;
  switch (engine) {
    case 'deduplicate':
      make = () => new DeduplicateMergeFunction(ig);
      break;
    case 'first-row':
      make = () => new FirstRowMergeFunction(ig);
      break;
    case 'partial-update':
      make = partialUpdateFactory(fields, primaryKeys, options);
      break;
    case 'aggregation': {
      const rm = bool(options['aggregation.remove-record-on-delete']);
      const sequenceFields = splitNames(options['sequence.field'] ?? '');
      const def = options['fields.default-aggregate-function'];
      const names = fields.map((f) =>
        sequenceFields.includes(f.name) ? 'last_value'
          : primaryKeys.includes(f.name) ? 'primary-key'
            : options[`fields.${f.name}.aggregate-function`] ?? def ?? 'last_non_null_value');
      const nullables = fields.map((f) => f.type.nullable);
      // Validate now (clear error before any work), then build fresh aggregators per merge function.
      fields.forEach((f, i) => createFieldAggregator(f, names[i], options));
      make = () => new AggregateMergeFunction(fields.map((f, i) => createFieldAggregator(f, names[i], options)), nullables, rm);
      break;
    }
    default:
      throw new PaimonError('UNSUPPORTED_TABLE', `unknown merge-engine '${String(engine)}'`);
  }
  /** create: as compaction merges (single records kept as they are); createUnwrapped: the bare merge function. */
  return { engine, create: () => new ReducerMergeFunction(make()), createUnwrapped: make };
}
