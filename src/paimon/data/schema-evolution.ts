/**
 * Reading a data file written under an older schema as rows of a newer one (Paimon's
 * `SchemaEvolutionUtil` / `FormatReaderMapping`): fields are matched by field id, so renamed
 * columns keep their values and added columns read as null; a widened type is cast. Casts
 * that Paimon allows but that are not plain widenings (e.g. to STRING) are refused here rather
 * than guessed.
 */
import { PaimonError } from '../errors.js';
import { Decimal } from '../spec/binary-row.js';
import type { DataFieldSpec, FieldType } from './field-type.js';
import { typeToString } from './field-type.js';
import type { Datum, InternalRow } from './internal-row.js';

type Cast = (v: Datum) => Datum;
const identity: Cast = (v) => v;
const INTS = ['TINYINT', 'SMALLINT', 'INT'];

function castFor(from: FieldType, to: FieldType, where: string): Cast {
  if (from.root === to.root) {
    if (from.root === 'DECIMAL' && to.root === 'DECIMAL' && (from.scale !== to.scale || from.precision !== to.precision)) {
      if (to.scale! < from.scale!) throw refuse(from, to, where);
      const mul = 10n ** BigInt(to.scale! - from.scale!);
      return (v) => (v === null ? null : new Decimal((v as Decimal).unscaled * mul, to.precision!, to.scale!));
    }
    if ((from.root === 'TIMESTAMP' || from.root === 'TIMESTAMP_LTZ') && precisionOf(to) < precisionOf(from)) throw refuse(from, to, where);
    if (['ARRAY', 'MAP', 'MULTISET', 'ROW'].includes(from.root) && JSON.stringify(from) !== JSON.stringify({ ...to, nullable: from.nullable })) {
      throw refuse(from, to, where);
    }
    return identity;
  }
  if (from.root === 'CHAR' && to.root === 'VARCHAR') return identity;
  if (from.root === 'BINARY' && to.root === 'VARBINARY') return identity;
  if (INTS.includes(from.root) && INTS.includes(to.root) && INTS.indexOf(from.root) < INTS.indexOf(to.root)) return identity;
  if (INTS.includes(from.root) && to.root === 'BIGINT') return (v) => (v === null ? null : BigInt(v as number));
  if ((INTS.includes(from.root) || from.root === 'FLOAT') && (to.root === 'FLOAT' || to.root === 'DOUBLE')) return identity;
  if (from.root === 'BIGINT' && to.root === 'DOUBLE') return (v) => (v === null ? null : Number(v as bigint));
  throw refuse(from, to, where);
}

function precisionOf(t: FieldType): number {
  return 'precision' in t && t.precision !== undefined ? t.precision : 6;
}

function refuse(from: FieldType, to: FieldType, where: string): PaimonError {
  return new PaimonError('UNSUPPORTED_TABLE', `${where}: reading ${typeToString(from)} data as ${typeToString(to)} is not supported`);
}

/**
 * A function turning a row over `fileFields` (the file's schema) into a row over `tableFields`
 * (the target schema), or null when the two are the same.
 */
export function rowEvolution(fileFields: readonly DataFieldSpec[], tableFields: readonly DataFieldSpec[], where = 'data file'): ((row: InternalRow) => InternalRow) | null {
  const byId = new Map(fileFields.map((f, i) => [f.id, i] as const));
  const plan = tableFields.map((f) => {
    const i = byId.get(f.id);
    if (i === undefined) return { index: -1, cast: identity };
    return { index: i, cast: castFor(fileFields[i].type, f.type, `${where}, column ${f.name}`) };
  });
  const same = fileFields.length === tableFields.length && plan.every((p, i) => p.index === i && p.cast === identity);
  if (same) return null;
  return (row) => plan.map((p) => (p.index < 0 ? null : p.cast(row[p.index])));
}
