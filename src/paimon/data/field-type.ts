/**
 * The data-file layer's view of Paimon's `DataType` (spec/data-types.ts): the types a Parquet or
 * Avro data file column can have, parsed from a field's schema JSON (`"INT NOT NULL"`,
 * `"DECIMAL(10, 2)"`, `{"type":"ARRAY","element":...}`; `DataTypeJsonParser`) or taken from a
 * parsed `DataField`. The roots are the DataType roots; VECTOR has no data-file form here.
 * Atomic types keep their parameters as optional fields so that a column's type can be handled
 * without narrowing first.
 */
import { PaimonError } from '../errors.js';
import { parseDataTypeJson, type AtomicRoot, type DataField, type DataType } from '../spec/data-types.js';
import type { JsonValue } from '../spec/json.js';

export type { AtomicRoot } from '../spec/data-types.js';

export type FieldType =
  | { root: AtomicRoot; nullable: boolean; precision?: number; scale?: number; length?: number }
  | { root: 'ARRAY'; nullable: boolean; element: FieldType }
  | { root: 'MULTISET'; nullable: boolean; element: FieldType }
  | { root: 'MAP'; nullable: boolean; key: FieldType; value: FieldType }
  | { root: 'ROW'; nullable: boolean; fields: DataFieldSpec[] };

/** A DataField in Paimon's schema JSON form (`DataField.java`). */
export interface DataFieldJson {
  id: number;
  name: string;
  type: unknown;
  description?: string | null;
}

/** A DataField with its type parsed. */
export interface DataFieldSpec {
  id: number;
  name: string;
  type: FieldType;
}

/** The data-file view of a parsed type; VECTOR (anywhere inside it) is refused. */
export function fieldTypeOf(t: DataType): FieldType {
  switch (t.root) {
    case 'ARRAY':
    case 'MULTISET':
      return { root: t.root, nullable: t.nullable, element: fieldTypeOf(t.element) };
    case 'MAP':
      return { root: 'MAP', nullable: t.nullable, key: fieldTypeOf(t.key), value: fieldTypeOf(t.value) };
    case 'ROW':
      return { root: 'ROW', nullable: t.nullable, fields: t.fields.map((f) => ({ id: f.id, name: f.name, type: fieldTypeOf(f.type) })) };
    case 'VECTOR':
      throw new PaimonError('UNSUPPORTED_FORMAT', `data type ${t.nullable ? 'VECTOR' : 'VECTOR NOT NULL'} is not supported by the data-file reader/writer`);
    default:
      return { ...t };
  }
}

/** The JSON form of a type: a string for atomic types, an object for nested ones. */
export function parseFieldType(json: unknown): FieldType {
  let t: DataType;
  try {
    t = parseDataTypeJson(json as JsonValue);
  } catch {
    throw bad(json);
  }
  // A string is an atomic type; the `INT ARRAY` and `VECTOR<...>` spellings are not data-file types.
  if (typeof json === 'string' && (t.root === 'ARRAY' || t.root === 'MULTISET' || t.root === 'VECTOR')) throw bad(json);
  return fieldTypeOf(t);
}

/** A field in either of its forms: the schema JSON (`type` a string or object), or a parsed `DataField`. */
export function parseDataField(f: DataFieldJson | DataField): DataFieldSpec {
  if (typeof f.id !== 'number' || typeof f.name !== 'string') {
    throw new PaimonError('CORRUPT_METADATA', `malformed data field ${String(f.name)} (id ${String(f.id)})`);
  }
  const t = f.type as unknown;
  if (t && typeof t === 'object' && 'root' in t) return { id: f.id, name: f.name, type: fieldTypeOf(t as DataType) };
  return { id: f.id, name: f.name, type: parseFieldType(t) };
}

function bad(json: unknown): PaimonError {
  return new PaimonError('CORRUPT_METADATA', `unrecognised Paimon data type ${JSON.stringify(json)}`);
}

/** The Paimon SQL spelling of a type, for error messages. */
export function typeToString(t: FieldType): string {
  const nn = t.nullable ? '' : ' NOT NULL';
  switch (t.root) {
    case 'ARRAY': case 'MULTISET': return `${t.root}<${typeToString(t.element)}>${nn}`;
    case 'MAP': return `MAP<${typeToString(t.key)}, ${typeToString(t.value)}>${nn}`;
    case 'ROW': return `ROW<${t.fields.map((f) => `${f.name} ${typeToString(f.type)}`).join(', ')}>${nn}`;
    case 'DECIMAL': return `DECIMAL(${t.precision}, ${t.scale})${nn}`;
    case 'TIMESTAMP': return `TIMESTAMP(${t.precision})${nn}`;
    case 'TIMESTAMP_LTZ': return `TIMESTAMP(${t.precision}) WITH LOCAL TIME ZONE${nn}`;
    case 'TIME': return `TIME(${t.precision})${nn}`;
    default: return `${t.root}${t.length !== undefined ? `(${t.length})` : ''}${nn}`;
  }
}
