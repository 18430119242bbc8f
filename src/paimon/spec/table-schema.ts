/**
 * `schema/schema-N` (`TableSchema`, `SchemaSerializer`). Keys in the order written: version, id,
 * fields, highestFieldId, partitionKeys, primaryKeys, options, comment (only when not null),
 * timeMillis. Options keep the order they were read in (Java writes its HashMap order; readers
 * do not care).
 */
import { PaimonError } from '../errors.js';
import {
  currentHighestFieldId,
  dataFieldToJson,
  parseDataFields,
  withNullability,
  type DataField,
} from './data-types.js';
import { JsonReader, orderedObject, parseJson, toJsonPretty, type JsonObject } from './json.js';

export const CURRENT_SCHEMA_VERSION = 3;
const PAIMON_07_VERSION = 1;
const PAIMON_08_VERSION = 2;

export interface TableSchema {
  version: number;
  id: number;
  fields: DataField[];
  highestFieldId: number;
  partitionKeys: string[];
  primaryKeys: string[];
  options: Record<string, string>;
  comment?: string;
  timeMillis: number;
}

export function parseTableSchema(text: string, what = 'schema'): TableSchema {
  const r = JsonReader.of(parseJson(text, what), what);
  const version = r.optInt('version') ?? PAIMON_07_VERSION;
  const options = r.optStringMap('options');
  if (options === undefined) throw new PaimonError('CORRUPT_METADATA', `${what}: field "options" is missing`);
  // SchemaSerializer.deserialize: defaults of old writers.
  if (version <= PAIMON_07_VERSION && !('bucket' in options)) options.bucket = '1';
  if (version <= PAIMON_08_VERSION && !('file.format' in options)) options['file.format'] = 'orc';
  const s: TableSchema = {
    version,
    id: r.int('id'),
    fields: parseDataFields(r.array('fields'), `${what} fields`),
    highestFieldId: r.int('highestFieldId'),
    partitionKeys: r.stringArray('partitionKeys'),
    primaryKeys: r.stringArray('primaryKeys'),
    options,
    timeMillis: r.optInt('timeMillis') ?? 0,
  };
  const comment = r.raw('comment');
  if (comment !== undefined && comment !== null) s.comment = String(comment);
  validateTableSchema(s, what);
  return s;
}

export function tableSchemaToJsonObject(s: TableSchema): JsonObject {
  return orderedObject([
    ['version', s.version],
    ['id', s.id],
    ['fields', s.fields.map(dataFieldToJson)],
    ['highestFieldId', s.highestFieldId],
    ['partitionKeys', [...s.partitionKeys]],
    ['primaryKeys', [...s.primaryKeys]],
    ['options', orderedObject(Object.keys(s.options).map((k) => [k, s.options[k]]))],
    ['comment', s.comment],
    ['timeMillis', s.timeMillis],
  ]);
}

/** `TableSchema.toString()` / what SchemaManager writes. */
export function tableSchemaToJson(s: TableSchema): string {
  return toJsonPretty(tableSchemaToJsonObject(s));
}

function duplicates(xs: readonly string[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const x of xs) (seen.has(x) ? dup : seen).add(x);
  return [...dup];
}

/** The checks of `Schema.normalizeFields` and `TableSchema`'s constructor. */
export function validateTableSchema(s: TableSchema, what = 'schema'): void {
  const fail = (m: string): never => {
    throw new PaimonError('INVALID_ARGUMENT', `${what}: ${m}`);
  };
  const names = s.fields.map((f) => f.name);
  const d = duplicates(names);
  if (d.length) fail(`Table column ${JSON.stringify(names)} must not contain duplicate fields. Found: ${d.join(', ')}`);
  const all = new Set(names);
  for (const k of s.partitionKeys) if (!all.has(k)) fail(`partition key ${k} is not a column`);
  for (const k of s.primaryKeys) if (!all.has(k)) fail(`primary key ${k} is not a column`);
  if (duplicates(s.partitionKeys).length) fail('duplicate partition keys');
  if (duplicates(s.primaryKeys).length) fail('duplicate primary keys');
  trimmedPrimaryKeys(s);
}

/** Primary keys minus partition keys; empty for append tables. */
export function trimmedPrimaryKeys(s: Pick<TableSchema, 'primaryKeys' | 'partitionKeys'>): string[] {
  if (s.primaryKeys.length === 0) return [];
  const adjusted = s.primaryKeys.filter((k) => !s.partitionKeys.includes(k));
  if (adjusted.length === 0) {
    throw new PaimonError(
      'INVALID_ARGUMENT',
      `Primary key constraint [${s.primaryKeys.join(', ')}] should not be same with partition fields [${s.partitionKeys.join(', ')}], this will result in only one record in a partition`,
    );
  }
  return adjusted;
}

/** `bucket-key` option, else the trimmed primary keys. */
export function bucketKeys(s: TableSchema): string[] {
  const opt = s.options['bucket-key'];
  if (opt !== undefined && opt.trim() !== '') return opt.split(',').map((k) => k.trim());
  return trimmedPrimaryKeys(s);
}

export function fieldByName(s: TableSchema, name: string): DataField | undefined {
  return s.fields.find((f) => f.name === name);
}

export interface NewSchema {
  fields: DataField[];
  partitionKeys?: string[];
  primaryKeys?: string[];
  options?: Record<string, string>;
  comment?: string;
}

/**
 * `TableSchema.create(id, schema)` after `Schema`'s normalization: primary-key columns become
 * NOT NULL, highestFieldId is computed over nested fields too.
 */
export function createTableSchema(id: number, schema: NewSchema, timeMillis = Date.now()): TableSchema {
  const primaryKeys = schema.primaryKeys ?? [];
  const pk = new Set(primaryKeys);
  const fields = schema.fields.map((f) => (pk.has(f.name) && f.type.nullable ? { ...f, type: withNullability(f.type, false) } : f));
  const s: TableSchema = {
    version: CURRENT_SCHEMA_VERSION,
    id,
    fields,
    highestFieldId: currentHighestFieldId(fields),
    partitionKeys: schema.partitionKeys ?? [],
    primaryKeys,
    options: { ...(schema.options ?? {}) },
    timeMillis,
  };
  if (schema.comment !== undefined) s.comment = schema.comment;
  validateTableSchema(s, 'new schema');
  return s;
}
