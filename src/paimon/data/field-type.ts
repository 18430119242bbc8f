/**
 * Paimon data types as the data-file code needs them, parsed from the JSON form that schema
 * files use (`"INT NOT NULL"`, `"DECIMAL(10, 2)"`, `{"type":"ARRAY","element":...}`; see
 * `DataTypeJsonParser.java`). Kept local to `data/` so that the Parquet layer depends only
 * on the stable on-disk JSON form, whatever in-memory form the schema module chooses.
 */
import { PaimonError } from '../errors.js';
import { dataTypeToJson, type DataType } from '../spec/data-types.js';

export type AtomicRoot =
  | 'BOOLEAN' | 'TINYINT' | 'SMALLINT' | 'INT' | 'BIGINT' | 'FLOAT' | 'DOUBLE'
  | 'CHAR' | 'VARCHAR' | 'BINARY' | 'VARBINARY' | 'DECIMAL' | 'DATE' | 'TIME'
  | 'TIMESTAMP' | 'TIMESTAMP_LTZ' | 'VARIANT' | 'BLOB';

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

/** The JSON form of a type: a string for atomic types, an object for nested ones. */
export function parseFieldType(json: unknown): FieldType {
  if (typeof json === 'string') return parseAtomic(json);
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    const o = json as Record<string, unknown>;
    const t = o.type;
    if (typeof t !== 'string') throw bad(json);
    const m = /^(ARRAY|MULTISET|MAP|ROW|VECTOR)( NOT NULL)?$/.exec(t.trim());
    if (!m) throw bad(json);
    const nullable = m[2] === undefined;
    switch (m[1]) {
      case 'ARRAY':
        return { root: 'ARRAY', nullable, element: parseFieldType(o.element) };
      case 'MULTISET':
        return { root: 'MULTISET', nullable, element: parseFieldType(o.element) };
      case 'MAP':
        return { root: 'MAP', nullable, key: parseFieldType(o.key), value: parseFieldType(o.value) };
      case 'ROW': {
        if (!Array.isArray(o.fields)) throw bad(json);
        return { root: 'ROW', nullable, fields: (o.fields as DataFieldJson[]).map(parseDataField) };
      }
      default:
        throw new PaimonError('UNSUPPORTED_FORMAT', `data type ${t} is not supported by the data-file reader/writer`);
    }
  }
  throw bad(json);
}

/**
 * A field in any of its forms: the schema JSON (`type` a string or object), or the schema
 * module's parsed `DataField` (`type.root`), which goes through its JSON form so that this
 * module never depends on the in-memory shape.
 */
export function parseDataField(f: DataFieldJson | { id: number; name: string; type: DataType }): DataFieldSpec {
  if (typeof f.id !== 'number' || typeof f.name !== 'string') {
    throw new PaimonError('CORRUPT_METADATA', `malformed data field ${String(f.name)} (id ${String(f.id)})`);
  }
  const t = f.type as unknown;
  if (t && typeof t === 'object' && 'root' in (t as object)) return { id: f.id, name: f.name, type: parseFieldType(dataTypeToJson(t as DataType)) };
  return { id: f.id, name: f.name, type: parseFieldType(t) };
}

const MAX_LEN = 2147483647;

function parseAtomic(s: string): FieldType {
  let text = s.trim();
  let nullable = true;
  if (/ NOT NULL$/i.test(text)) {
    nullable = false;
    text = text.slice(0, -' NOT NULL'.length).trim();
  }
  const upper = text.toUpperCase();
  const simple: Record<string, AtomicRoot> = {
    BOOLEAN: 'BOOLEAN', TINYINT: 'TINYINT', SMALLINT: 'SMALLINT', INT: 'INT', INTEGER: 'INT',
    BIGINT: 'BIGINT', FLOAT: 'FLOAT', DOUBLE: 'DOUBLE', DATE: 'DATE', VARIANT: 'VARIANT', BLOB: 'BLOB',
  };
  if (simple[upper]) return { root: simple[upper], nullable };
  if (upper === 'STRING') return { root: 'VARCHAR', nullable, length: MAX_LEN };
  if (upper === 'BYTES') return { root: 'VARBINARY', nullable, length: MAX_LEN };
  let m = /^(CHAR|VARCHAR|BINARY|VARBINARY)\s*\(\s*(\d+)\s*\)$/.exec(upper);
  if (m) return { root: m[1] as AtomicRoot, nullable, length: Number(m[2]) };
  if (/^(CHAR|BINARY)$/.test(upper)) return { root: upper as AtomicRoot, nullable, length: 1 };
  m = /^(?:DECIMAL|NUMERIC|DEC)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?$/.exec(upper);
  if (m) return { root: 'DECIMAL', nullable, precision: m[1] ? Number(m[1]) : 10, scale: m[2] ? Number(m[2]) : 0 };
  m = /^TIME\s*(?:\(\s*(\d+)\s*\))?(?:\s+WITHOUT TIME ZONE)?$/.exec(upper);
  if (m) return { root: 'TIME', nullable, precision: m[1] ? Number(m[1]) : 0 };
  m = /^TIMESTAMP\s*(?:\(\s*(\d+)\s*\))?\s+WITH LOCAL TIME ZONE$/.exec(upper);
  if (m) return { root: 'TIMESTAMP_LTZ', nullable, precision: m[1] ? Number(m[1]) : 6 };
  m = /^TIMESTAMP_LTZ\s*(?:\(\s*(\d+)\s*\))?$/.exec(upper);
  if (m) return { root: 'TIMESTAMP_LTZ', nullable, precision: m[1] ? Number(m[1]) : 6 };
  m = /^TIMESTAMP\s*(?:\(\s*(\d+)\s*\))?(?:\s+WITHOUT TIME ZONE)?$/.exec(upper);
  if (m) return { root: 'TIMESTAMP', nullable, precision: m[1] ? Number(m[1]) : 6 };
  throw bad(s);
}

function bad(json: unknown): PaimonError {
  return new PaimonError('CORRUPT_METADATA', `unrecognised Paimon data type ${JSON.stringify(json)}`);
}

export function withNullable(t: FieldType, nullable: boolean): FieldType {
  return { ...t, nullable } as FieldType;
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
