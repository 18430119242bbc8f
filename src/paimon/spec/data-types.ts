/**
 * Every Paimon `DataType` in its schema-JSON form (`DataTypeJsonParser`, `DataType.serializeJson`,
 * the `*Type.asSQLString` formats). Atomic types are SQL strings (`"DECIMAL(10, 2) NOT NULL"`);
 * ARRAY, MULTISET, MAP, ROW and VECTOR are objects whose `type` is the root name plus an optional
 * ` NOT NULL`. Nested ROW fields carry their own ids.
 *
 * `root` names follow the SQL keywords (INT, TIME, TIMESTAMP, TIMESTAMP_LTZ for TIMESTAMP WITH LOCAL
 * TIME ZONE). They are the library's one vocabulary of type roots: the BinaryRow codec
 * (binary-row.ts) and the data-file layer (data/field-type.ts) take narrower views of it.
 */
import { PaimonError } from '../errors.js';
import { JsonReader, isJsonObject, orderedObject, type JsonValue } from './json.js';

export type SimpleRoot =
  | 'BOOLEAN'
  | 'TINYINT'
  | 'SMALLINT'
  | 'INT'
  | 'BIGINT'
  | 'FLOAT'
  | 'DOUBLE'
  | 'DATE'
  | 'VARIANT'
  | 'BLOB';
export type LengthRoot = 'CHAR' | 'VARCHAR' | 'BINARY' | 'VARBINARY';
export type PrecisionRoot = 'TIME' | 'TIMESTAMP' | 'TIMESTAMP_LTZ';

/** The roots of the nested types; every other root is atomic. */
export type NestedRoot = 'ARRAY' | 'MULTISET' | 'MAP' | 'ROW' | 'VECTOR';

export type DataType =
  | { root: SimpleRoot; nullable: boolean }
  | { root: LengthRoot; nullable: boolean; length: number }
  | { root: 'DECIMAL'; nullable: boolean; precision: number; scale: number }
  | { root: PrecisionRoot; nullable: boolean; precision: number }
  | { root: 'ARRAY' | 'MULTISET'; nullable: boolean; element: DataType }
  | { root: 'MAP'; nullable: boolean; key: DataType; value: DataType }
  | { root: 'ROW'; nullable: boolean; fields: DataField[] }
  | { root: 'VECTOR'; nullable: boolean; element: DataType; length: number };

/** Every root a `DataType` can have (Java's `DataTypeRoot`, spelled as the SQL keywords). */
export type DataTypeRoot = DataType['root'];
/** The roots of the atomic types (those whose JSON form is a SQL string). */
export type AtomicRoot = Exclude<DataTypeRoot, NestedRoot>;

export interface DataField {
  id: number;
  name: string;
  type: DataType;
  description?: string;
  /** 1.2+ */
  defaultValue?: string;
}

export const MAX_LENGTH = 2147483647; // Integer.MAX_VALUE: VARCHAR(max) = STRING, VARBINARY(max) = BYTES
/** Field ids at or above this are system fields (`SpecialFields.SYSTEM_FIELD_ID_START`). */
export const SYSTEM_FIELD_ID_START = Math.floor(MAX_LENGTH / 2);

function invalid(msg: string): PaimonError {
  return new PaimonError('INVALID_ARGUMENT', msg);
}

// ---------------------------------------------------------------------------------------------
// Constructors (validate like the Java constructors)
// ---------------------------------------------------------------------------------------------

export const DataTypes = {
  simple(root: SimpleRoot, nullable = true): DataType {
    return { root, nullable };
  },
  withLength(root: LengthRoot, length: number, nullable = true): DataType {
    if (!Number.isInteger(length) || length < 1 || length > MAX_LENGTH) {
      throw invalid(`${root} length must be between 1 and ${MAX_LENGTH} (both inclusive), got ${length}`);
    }
    return { root, nullable, length };
  },
  decimal(precision: number, scale: number, nullable = true): DataType {
    if (!Number.isInteger(precision) || precision < 1 || precision > 38) {
      throw invalid(`Decimal precision must be between 1 and 38 (both inclusive), got ${precision}`);
    }
    if (!Number.isInteger(scale) || scale < 0 || scale > precision) {
      throw invalid(`Decimal scale must be between 0 and the precision ${precision} (both inclusive), got ${scale}`);
    }
    return { root: 'DECIMAL', nullable, precision, scale };
  },
  withPrecision(root: PrecisionRoot, precision: number, nullable = true): DataType {
    if (!Number.isInteger(precision) || precision < 0 || precision > 9) {
      throw invalid(`${root} precision must be between 0 and 9 (both inclusive), got ${precision}`);
    }
    return { root, nullable, precision };
  },
  string(nullable = true): DataType {
    return { root: 'VARCHAR', nullable, length: MAX_LENGTH };
  },
  bytes(nullable = true): DataType {
    return { root: 'VARBINARY', nullable, length: MAX_LENGTH };
  },
};

export function withNullability(t: DataType, nullable: boolean): DataType {
  return { ...t, nullable } as DataType;
}

// ---------------------------------------------------------------------------------------------
// SQL strings (asSQLString)
// ---------------------------------------------------------------------------------------------

function nn(s: string, nullable: boolean): string {
  return nullable ? s : `${s} NOT NULL`;
}

function escapeIdentifier(s: string): string {
  return '`' + s.replace(/`/g, '``') + '`';
}

export function fieldToSqlString(f: DataField): string {
  let s = `${escapeIdentifier(f.name)} ${typeToSqlString(f.type)}`;
  if (f.description !== undefined && f.description !== '') s += ` COMMENT '${f.description.replace(/'/g, "''")}'`;
  if (f.defaultValue !== undefined) s += ` DEFAULT ${f.defaultValue}`;
  return s;
}

/** `DataType.asSQLString()`. */
export function typeToSqlString(t: DataType): string {
  switch (t.root) {
    case 'CHAR':
    case 'BINARY':
      return nn(`${t.root}(${t.length})`, t.nullable);
    case 'VARCHAR':
      return nn(t.length === MAX_LENGTH ? 'STRING' : `VARCHAR(${t.length})`, t.nullable);
    case 'VARBINARY':
      return nn(t.length === MAX_LENGTH ? 'BYTES' : `VARBINARY(${t.length})`, t.nullable);
    case 'DECIMAL':
      return nn(`DECIMAL(${t.precision}, ${t.scale})`, t.nullable);
    case 'TIME':
      return nn(`TIME(${t.precision})`, t.nullable);
    case 'TIMESTAMP':
      return nn(`TIMESTAMP(${t.precision})`, t.nullable);
    case 'TIMESTAMP_LTZ':
      return nn(`TIMESTAMP(${t.precision}) WITH LOCAL TIME ZONE`, t.nullable);
    case 'ARRAY':
    case 'MULTISET':
      return nn(`${t.root}<${typeToSqlString(t.element)}>`, t.nullable);
    case 'MAP':
      return nn(`MAP<${typeToSqlString(t.key)}, ${typeToSqlString(t.value)}>`, t.nullable);
    case 'ROW':
      return nn(`ROW<${t.fields.map(fieldToSqlString).join(', ')}>`, t.nullable);
    case 'VECTOR':
      return nn(`VECTOR<${typeToSqlString(t.element)}, ${t.length}>`, t.nullable);
    default:
      return nn(t.root, t.nullable);
  }
}

// ---------------------------------------------------------------------------------------------
// JSON form (serializeJson)
// ---------------------------------------------------------------------------------------------

export function dataTypeToJson(t: DataType): JsonValue {
  const rootName = (r: string) => (t.nullable ? r : `${r} NOT NULL`);
  switch (t.root) {
    case 'ARRAY':
    case 'MULTISET':
      return orderedObject([
        ['type', rootName(t.root)],
        ['element', dataTypeToJson(t.element)],
      ]);
    case 'MAP':
      return orderedObject([
        ['type', rootName('MAP')],
        ['key', dataTypeToJson(t.key)],
        ['value', dataTypeToJson(t.value)],
      ]);
    case 'ROW':
      return orderedObject([
        ['type', rootName('ROW')],
        ['fields', t.fields.map(dataFieldToJson)],
      ]);
    case 'VECTOR':
      return orderedObject([
        ['type', rootName('VECTOR')],
        ['element', dataTypeToJson(t.element)],
        ['length', t.length],
      ]);
    default:
      return typeToSqlString(t);
  }
}

/** `DataField.serializeJson`: id, name, type, then description/defaultValue when not null. */
export function dataFieldToJson(f: DataField): JsonValue {
  return orderedObject([
    ['id', f.id],
    ['name', f.name],
    ['type', dataTypeToJson(f.type)],
    ['description', f.description],
    ['defaultValue', f.defaultValue],
  ]);
}

// ---------------------------------------------------------------------------------------------
// Parsing (DataTypeJsonParser)
// ---------------------------------------------------------------------------------------------

/** Counter for fields without ids (Java's AtomicInteger starting at -1); null when ids are given. */
interface FieldIdCounter {
  value: number;
}

export function parseDataField(json: JsonValue, what = 'data field', counter?: FieldIdCounter): DataField {
  const r = JsonReader.of(json, what);
  let id: number;
  if (r.has('id')) {
    if (counter !== undefined && counter.value !== -1) {
      throw new PaimonError('CORRUPT_METADATA', `${what}: Partial field id is not allowed.`);
    }
    id = r.int('id');
  } else {
    if (counter === undefined) throw new PaimonError('CORRUPT_METADATA', `${what}: field "id" is missing`);
    id = ++counter.value;
  }
  const name = r.string('name');
  const type = parseDataTypeJson(r.raw('type') ?? null, `${what} "${name}"`, counter);
  const f: DataField = { id, name, type };
  const description = r.raw('description');
  if (description !== undefined && description !== null) f.description = String(description);
  const defaultValue = r.raw('defaultValue');
  if (defaultValue !== undefined && defaultValue !== null) f.defaultValue = String(defaultValue);
  return f;
}

/** Parse the JSON form of a type (a SQL string or a nested-type object). */
export function parseDataTypeJson(json: JsonValue, what = 'data type', counter?: FieldIdCounter): DataType {
  if (typeof json === 'string') {
    try {
      return parseAtomicTypeSqlString(json);
    } catch (e) {
      throw new PaimonError('CORRUPT_METADATA', `${what}: ${(e as Error).message}`);
    }
  }
  if (isJsonObject(json)) {
    const typeString = json.type;
    if (typeof typeString !== 'string') throw new PaimonError('CORRUPT_METADATA', `${what}: nested type without "type"`);
    const nullable = !typeString.includes('NOT NULL');
    const sub = (k: string) => parseDataTypeJson(json[k] ?? null, `${what}.${k}`, counter);
    // Same order of startsWith checks as Java (ARRAY, VECTOR, MULTISET, MAP, ROW).
    if (typeString.startsWith('ARRAY')) return { root: 'ARRAY', nullable, element: sub('element') };
    if (typeString.startsWith('VECTOR')) {
      const length = json.length;
      if (typeof length !== 'number' || !Number.isInteger(length) || length < 1) {
        throw new PaimonError('CORRUPT_METADATA', `${what}: VECTOR needs a positive "length"`);
      }
      return { root: 'VECTOR', nullable, element: sub('element'), length };
    }
    if (typeString.startsWith('MULTISET')) return { root: 'MULTISET', nullable, element: sub('element') };
    if (typeString.startsWith('MAP')) return { root: 'MAP', nullable, key: sub('key'), value: sub('value') };
    if (typeString.startsWith('ROW')) {
      const fields = json.fields;
      if (!Array.isArray(fields)) throw new PaimonError('CORRUPT_METADATA', `${what}: ROW without "fields"`);
      return {
        root: 'ROW',
        nullable,
        fields: fields.map((f, i) => parseDataField(f, `${what}.fields[${i}]`, counter)),
      };
    }
  }
  throw new PaimonError('CORRUPT_METADATA', `${what}: Can not parse: ${JSON.stringify(json, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
}

/** Parse a whole field list of a schema. Ids are required (schema files always carry them). */
export function parseDataFields(json: JsonValue, what = 'fields'): DataField[] {
  if (!Array.isArray(json)) throw new PaimonError('CORRUPT_METADATA', `${what}: expected an array`);
  return json.map((f, i) => parseDataField(f, `${what}[${i}]`));
}

/** Fields without ids get 0, 1, 2, ... depth-first, like `DataTypeJsonParser.parseDataType(json)`. */
export function parseDataFieldsAssigningIds(json: JsonValue, what = 'fields'): DataField[] {
  if (!Array.isArray(json)) throw new PaimonError('CORRUPT_METADATA', `${what}: expected an array`);
  const counter: FieldIdCounter = { value: -1 };
  return json.map((f, i) => parseDataField(f, `${what}[${i}]`, counter));
}

// --- the SQL-string tokenizer/parser -------------------------------------------------------

const KEYWORDS = new Set([
  'CHAR', 'VARCHAR', 'STRING', 'BOOLEAN', 'BINARY', 'VARBINARY', 'BYTES', 'DECIMAL', 'NUMERIC', 'DEC',
  'TINYINT', 'SMALLINT', 'INT', 'INTEGER', 'BIGINT', 'FLOAT', 'DOUBLE', 'PRECISION', 'DATE', 'TIME',
  'WITH', 'WITHOUT', 'LOCAL', 'ZONE', 'TIMESTAMP', 'TIMESTAMP_LTZ', 'INTERVAL', 'YEAR', 'MONTH', 'DAY',
  'HOUR', 'MINUTE', 'SECOND', 'TO', 'ARRAY', 'VECTOR', 'MULTISET', 'MAP', 'ROW', 'NULL', 'RAW', 'LEGACY',
  'VARIANT', 'BLOB', 'NOT',
]);

type TokenType = '<' | '>' | '(' | ')' | ',' | '.' | 'STRING' | 'INT' | 'KEYWORD' | 'IDENTIFIER';
interface Token {
  type: TokenType;
  value: string;
  pos: number;
}

function isWs(c: string): boolean {
  return /\s/.test(c);
}

function tokenize(s: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if ('<>(),.'.includes(c)) {
      out.push({ type: c as TokenType, value: c, pos: i });
      continue;
    }
    if (c === "'" || c === '`') {
      let v = '';
      i++;
      for (; i < s.length; i++) {
        if (s[i] === c && s[i + 1] === c) {
          v += c;
          i++;
        } else if (s[i] === c) break;
        else v += s[i];
      }
      out.push({ type: c === "'" ? 'STRING' : 'IDENTIFIER', value: v, pos: i });
      continue;
    }
    if (isWs(c)) continue;
    if (c >= '0' && c <= '9') {
      let j = i;
      while (j < s.length && s[j] >= '0' && s[j] <= '9') j++;
      out.push({ type: 'INT', value: s.slice(i, j), pos: j - 1 });
      i = j - 1;
      continue;
    }
    let j = i;
    while (j < s.length && !isWs(s[j]) && !'<>(),.'.includes(s[j])) j++;
    const word = s.slice(i, j);
    const upper = word.toUpperCase();
    out.push(KEYWORDS.has(upper) ? { type: 'KEYWORD', value: upper, pos: j - 1 } : { type: 'IDENTIFIER', value: word, pos: j - 1 });
    i = j - 1;
  }
  return out;
}

class TypeParser {
  private cur = -1;
  constructor(
    private readonly input: string,
    private readonly tokens: Token[],
  ) {}

  parse(): DataType {
    const t = this.typeWithNullability();
    if (this.cur + 1 < this.tokens.length) {
      this.next();
      throw this.error(`Unexpected token: ${this.tok().value}`);
    }
    return t;
  }

  private error(cause: string): Error {
    return new Error(`Could not parse type "${this.input}": ${cause}`);
  }

  private tok(): Token {
    return this.tokens[this.cur];
  }

  private next(type?: TokenType, keyword?: string): Token {
    this.cur++;
    if (this.cur >= this.tokens.length) throw this.error('Unexpected end.');
    const t = this.tok();
    if (type !== undefined && t.type !== type) throw this.error(`<${type}> expected but was <${t.type}>.`);
    if (keyword !== undefined && t.value !== keyword) throw this.error(`Keyword '${keyword}' expected but was '${t.value}'.`);
    return t;
  }

  private peekIs(...types: TokenType[]): boolean {
    return types.every((ty, i) => this.tokens[this.cur + 1 + i]?.type === ty);
  }

  private peekKw(...kws: string[]): boolean {
    return kws.every((kw, i) => {
      const t = this.tokens[this.cur + 1 + i];
      return t !== undefined && t.type === 'KEYWORD' && t.value === kw;
    });
  }

  private int(): number {
    const v = Number(this.next('INT').value);
    if (!Number.isSafeInteger(v) || v > MAX_LENGTH) throw this.error('Invalid integer value.');
    return v;
  }

  private nullability(): boolean {
    if (this.peekKw('NOT', 'NULL')) {
      this.next('KEYWORD', 'NOT');
      this.next('KEYWORD', 'NULL');
      return false;
    }
    if (this.peekKw('NULL')) {
      this.next('KEYWORD', 'NULL');
      return true;
    }
    return true;
  }

  private typeWithNullability(): DataType {
    const t = withNullability(this.typeByKeyword(), this.nullability());
    if (this.peekKw('ARRAY')) {
      this.next('KEYWORD', 'ARRAY');
      return { root: 'ARRAY', nullable: this.nullability(), element: t };
    }
    if (this.peekKw('MULTISET')) {
      this.next('KEYWORD', 'MULTISET');
      return { root: 'MULTISET', nullable: this.nullability(), element: t };
    }
    return t;
  }

  private optionalLength(): number | undefined {
    if (!this.peekIs('(')) return undefined;
    this.next('(');
    const n = this.int();
    this.next(')');
    return n;
  }

  private typeByKeyword(): DataType {
    const kw = this.next('KEYWORD').value;
    switch (kw) {
      case 'CHAR':
      case 'VARCHAR':
      case 'BINARY':
      case 'VARBINARY':
        return DataTypes.withLength(kw, this.optionalLength() ?? 1);
      case 'STRING':
        return DataTypes.string();
      case 'BYTES':
        return DataTypes.bytes();
      case 'BOOLEAN':
      case 'TINYINT':
      case 'SMALLINT':
      case 'BIGINT':
      case 'FLOAT':
      case 'DATE':
      case 'VARIANT':
      case 'BLOB':
        return DataTypes.simple(kw);
      case 'INT':
      case 'INTEGER':
        return DataTypes.simple('INT');
      case 'DOUBLE':
        if (this.peekKw('PRECISION')) this.next('KEYWORD', 'PRECISION');
        return DataTypes.simple('DOUBLE');
      case 'DECIMAL':
      case 'NUMERIC':
      case 'DEC': {
        let precision = 10;
        let scale = 0;
        if (this.peekIs('(')) {
          this.next('(');
          precision = this.int();
          if (this.peekIs(',')) {
            this.next(',');
            scale = this.int();
          }
          this.next(')');
        }
        return DataTypes.decimal(precision, scale);
      }
      case 'TIME': {
        const p = this.optionalLength() ?? 0;
        if (this.peekKw('WITHOUT')) {
          this.next('KEYWORD', 'WITHOUT');
          this.next('KEYWORD', 'TIME');
          this.next('KEYWORD', 'ZONE');
        }
        return DataTypes.withPrecision('TIME', p);
      }
      case 'TIMESTAMP': {
        const p = this.optionalLength() ?? 6;
        if (this.peekKw('WITHOUT')) {
          this.next('KEYWORD', 'WITHOUT');
          this.next('KEYWORD', 'TIME');
          this.next('KEYWORD', 'ZONE');
        } else if (this.peekKw('WITH')) {
          this.next('KEYWORD', 'WITH');
          if (this.peekKw('LOCAL')) {
            this.next('KEYWORD', 'LOCAL');
            this.next('KEYWORD', 'TIME');
            this.next('KEYWORD', 'ZONE');
            return DataTypes.withPrecision('TIMESTAMP_LTZ', p);
          }
        }
        return DataTypes.withPrecision('TIMESTAMP', p);
      }
      case 'TIMESTAMP_LTZ':
        return DataTypes.withPrecision('TIMESTAMP_LTZ', this.optionalLength() ?? 6);
      case 'VECTOR': {
        this.next('<');
        const element = this.typeWithNullability();
        this.next(',');
        const length = this.int();
        this.next('>');
        if (length < 1) throw this.error('VECTOR length must be positive');
        return { root: 'VECTOR', nullable: true, element, length };
      }
      default:
        throw this.error(`Unsupported type: ${kw}`);
    }
  }
}

/** `DataTypeJsonParser.parseAtomicTypeSQLString`. Throws INVALID_ARGUMENT on bad input. */
export function parseAtomicTypeSqlString(s: string): DataType {
  try {
    return new TypeParser(s, tokenize(s)).parse();
  } catch (e) {
    if (e instanceof PaimonError) throw e;
    throw invalid((e as Error).message);
  }
}

// ---------------------------------------------------------------------------------------------
// Field ids
// ---------------------------------------------------------------------------------------------

/** Every field id in a field list, nested ROW fields included (`RowType.collectFieldIds`). */
export function collectFieldIds(fields: readonly DataField[], out: Set<number> = new Set()): Set<number> {
  const visit = (t: DataType) => {
    switch (t.root) {
      case 'ROW':
        collectFieldIds(t.fields, out);
        break;
      case 'ARRAY':
      case 'MULTISET':
      case 'VECTOR':
        visit(t.element);
        break;
      case 'MAP':
        visit(t.key);
        visit(t.value);
        break;
      default:
    }
  };
  for (const f of fields) {
    out.add(f.id);
    visit(f.type);
  }
  return out;
}

/** `RowType.currentHighestFieldId`: the max non-system id, or -1. */
export function currentHighestFieldId(fields: readonly DataField[]): number {
  let max = -1;
  for (const id of collectFieldIds(fields)) if (id < SYSTEM_FIELD_ID_START && id > max) max = id;
  return max;
}

/** Structural equality (nullability, parameters, nested fields incl. ids, names, descriptions). */
export function dataTypeEquals(a: DataType, b: DataType): boolean {
  return typeToSqlString(a) === typeToSqlString(b) && JSON.stringify(dataTypeToJson(a)) === JSON.stringify(dataTypeToJson(b));
}
