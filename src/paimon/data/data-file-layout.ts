/**
 * The physical layout of Paimon data files: which columns a file of an append or a
 * primary-key table holds, with which field ids, and which options decide its format,
 * compression and statistics. Follows `KeyValue.createKeyValueFields`,
 * `PrimaryKeyTableUtils.addKeyNamePrefix`, `SpecialFields`, `TableSchema.trimmedPrimaryKeys`,
 * `StatsCollectorFactories`, `DataFilePathFactory` and `CoreOptions` (1.0 - 2.0 agree on all
 * of these).
 */
import { randomUUID } from 'node:crypto';
import { PaimonError } from '../errors.js';
import { parseMemorySize } from '../spec/core-options.js';
import { parseDataField, type DataFieldJson, type DataFieldSpec, type FieldType } from './field-type.js';
import type { DataField } from '../spec/data-types.js';

/** `SpecialFields.KEY_FIELD_ID_START` = Integer.MAX_VALUE / 2. */
export const KEY_FIELD_ID_START = 1073741823;
export const KEY_FIELD_PREFIX = '_KEY_';
/** `SpecialFields.SEQUENCE_NUMBER`: BIGINT NOT NULL, id Integer.MAX_VALUE - 1. */
export const SEQUENCE_NUMBER_FIELD: DataFieldSpec = { id: 2147483646, name: '_SEQUENCE_NUMBER', type: { root: 'BIGINT', nullable: false } };
/** `SpecialFields.ROW_ID`: BIGINT NOT NULL, id Integer.MAX_VALUE - 5. */
export const ROW_ID_FIELD: DataFieldSpec = { id: 2147483642, name: '_ROW_ID', type: { root: 'BIGINT', nullable: false } };
/** `SpecialFields.VALUE_KIND`: TINYINT NOT NULL, id Integer.MAX_VALUE - 2. */
export const VALUE_KIND_FIELD: DataFieldSpec = { id: 2147483645, name: '_VALUE_KIND', type: { root: 'TINYINT', nullable: false } };
const SYSTEM_FIELD_NAMES = new Set(['_SEQUENCE_NUMBER', '_VALUE_KIND', '_LEVEL', 'rowkind', '_ROW_ID']);

/** `SpecialFields.STRUCTURED_TYPE_FIELD_ID_BASE` = Integer.MAX_VALUE / 4, depth limit 1024. */
export const STRUCTURED_TYPE_FIELD_ID_BASE = 536870911;
export function arrayElementFieldId(fieldId: number, depth: number): number {
  return STRUCTURED_TYPE_FIELD_ID_BASE + fieldId * 1024 + depth;
}
export function mapKeyFieldId(fieldId: number, depth: number): number {
  return STRUCTURED_TYPE_FIELD_ID_BASE - fieldId * 1024 - depth;
}
export const mapValueFieldId = arrayElementFieldId;

export function isSystemField(name: string): boolean {
  return name.startsWith(KEY_FIELD_PREFIX) || SYSTEM_FIELD_NAMES.has(name);
}

/**
 * The part of a table schema the data files depend on: the `schema/schema-N` JSON keys.
 * Field types may be in JSON form or already parsed.
 */
export interface TableSchemaLike {
  id: number | bigint;
  fields: ReadonlyArray<DataFieldJson | DataField>;
  partitionKeys: readonly string[];
  primaryKeys: readonly string[];
  options: Readonly<Record<string, string>>;
}

export type FileFormatName = 'parquet' | 'orc' | 'avro';

/** What a writer needs to know about one table schema's data files. */
export interface DataFileLayout {
  schemaId: bigint;
  /** The table's fields (the value fields), in schema order. */
  valueFields: DataFieldSpec[];
  /** The trimmed primary key as `_KEY_`-prefixed fields; empty for append tables. */
  keyFields: DataFieldSpec[];
  /** The trimmed primary key's value-field positions, in key order. */
  keyValueIndexes: number[];
  /** Columns of the file, in order. */
  physicalFields: DataFieldSpec[];
  isPrimaryKey: boolean;
  /** `data-file.thin-mode`: the `_KEY_` columns are left out of the file. */
  thinMode: boolean;
}

/** `TableSchema.trimmedPrimaryKeys`: the primary key minus the partition columns, in PK order. */
export function trimmedPrimaryKeys(schema: TableSchemaLike): string[] {
  if (schema.primaryKeys.length === 0) return [];
  const trimmed = schema.primaryKeys.filter((k) => !schema.partitionKeys.includes(k));
  if (trimmed.length === 0) {
    throw new PaimonError('CORRUPT_METADATA', `primary key [${schema.primaryKeys.join(', ')}] has no column outside the partition keys`);
  }
  return trimmed;
}

export function dataFileLayout(schema: TableSchemaLike): DataFileLayout {
  const valueFields = schema.fields.map((f) => parseDataField(f));
  const isPrimaryKey = schema.primaryKeys.length > 0;
  const thinMode = isPrimaryKey && booleanOption(schema.options, 'data-file.thin-mode', false);
  if (!isPrimaryKey) {
    return { schemaId: BigInt(schema.id), valueFields, keyFields: [], keyValueIndexes: [], physicalFields: valueFields, isPrimaryKey, thinMode };
  }
  const keyNames = trimmedPrimaryKeys(schema);
  const keyValueIndexes = keyNames.map((k) => {
    const i = valueFields.findIndex((f) => f.name === k);
    if (i < 0) throw new PaimonError('CORRUPT_METADATA', `primary key column ${k} is not a field of schema ${schema.id}`);
    return i;
  });
  const keyFields = keyValueIndexes.map((i) => {
    const f = valueFields[i];
    return { id: KEY_FIELD_ID_START + f.id, name: KEY_FIELD_PREFIX + f.name, type: f.type };
  });
  const physicalFields = [...(thinMode ? [] : keyFields), SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD, ...valueFields];
  return { schemaId: BigInt(schema.id), valueFields, keyFields, keyValueIndexes, physicalFields, isPrimaryKey, thinMode };
}

// ---------------------------------------------------------------------------------------
// Options (CoreOptions defaults, identical from 0.9 through 2.0)
// ---------------------------------------------------------------------------------------

function booleanOption(options: Readonly<Record<string, string>>, key: string, dflt: boolean): boolean {
  const v = options[key];
  return v === undefined ? dflt : v.trim().toLowerCase() === 'true';
}

/** `file.format.per.level` / `file.compression.per.level` / `metadata.stats-mode.per.level`: "0:avro,3:parquet". */
export function perLevelOption(options: Readonly<Record<string, string>>, key: string): Map<number, string> {
  const out = new Map<number, string>();
  const v = options[key];
  if (!v) return out;
  for (const part of v.split(',')) {
    const [lvl, val] = part.split(':').map((s) => s.trim());
    if (lvl === undefined || val === undefined || !/^\d+$/.test(lvl)) {
      throw new PaimonError('INVALID_ARGUMENT', `option ${key} has a malformed entry "${part}"`);
    }
    out.set(Number(lvl), val);
  }
  return out;
}

/** The data-file format written at a level (`file.format`, default parquet; `file.format.per.level`). */
export function fileFormatForLevel(options: Readonly<Record<string, string>>, level: number): string {
  return (perLevelOption(options, 'file.format.per.level').get(level) ?? options['file.format'] ?? 'parquet').toLowerCase();
}

/**
 * The compression codec of a data file at a level: `file.compression` (default zstd), overridden by
 * `file.compression.per.level`, and for Parquet by `parquet.compression`
 * (`RowDataParquetBuilder.getCompression`).
 */
export function fileCompressionForLevel(options: Readonly<Record<string, string>>, level: number): string {
  const base = perLevelOption(options, 'file.compression.per.level').get(level) ?? options['file.compression'] ?? 'zstd';
  return (options['parquet.compression'] ?? base).toLowerCase();
}

export function zstdLevel(options: Readonly<Record<string, string>>): number {
  const v = options['file.compression.zstd-level'];
  return v === undefined ? 1 : Number(v);
}

/** `target-file-size`: 128 MiB for primary-key tables, 256 MiB for append tables. */
export function targetFileSize(options: Readonly<Record<string, string>>, isPrimaryKey: boolean): number {
  const v = options['target-file-size'];
  return v === undefined ? (isPrimaryKey ? 128 : 256) * 1024 * 1024 : parseMemorySize(v, 'target-file-size');
}

// ---------------------------------------------------------------------------------------
// Statistics modes (StatsCollectorFactories.createStatsFactories)
// ---------------------------------------------------------------------------------------

export type StatsMode = { kind: 'none' } | { kind: 'counts' } | { kind: 'full' } | { kind: 'truncate'; length: number };

/** `SimpleColStatsCollector.from`: none, counts, full, truncate(n); case-insensitive. */
export function parseStatsMode(text: string): StatsMode {
  const t = text.trim().toUpperCase();
  if (t === 'NONE') return { kind: 'none' };
  if (t === 'COUNTS') return { kind: 'counts' };
  if (t === 'FULL') return { kind: 'full' };
  const m = /^TRUNCATE\((\d+)\)$/.exec(t);
  if (m && Number(m[1]) > 0) return { kind: 'truncate', length: Number(m[1]) };
  throw new PaimonError('INVALID_ARGUMENT', `unexpected stats mode "${text}"`);
}

/**
 * The stats mode of every physical column of a data file written at `level`:
 * `fields.<name>.stats-mode` first; then system and `_KEY_` columns get truncate(128); then
 * `metadata.stats-keep-first-n-columns` (counting non-system columns) turns the rest to none;
 * otherwise `metadata.stats-mode` (default truncate(16)), overridden per level by
 * `metadata.stats-mode.per.level`, or for changelog files by `changelog-file.stats-mode`.
 */
export function statsModes(
  options: Readonly<Record<string, string>>,
  physicalFieldNames: readonly string[],
  level: number,
  opts: { changelog?: boolean; thinModeKeyNames?: readonly string[] } = {},
): StatsMode[] {
  let modeText = perLevelOption(options, 'metadata.stats-mode.per.level').get(level) ?? options['metadata.stats-mode'] ?? 'truncate(16)';
  if (opts.changelog && options['changelog-file.stats-mode'] !== undefined) modeText = options['changelog-file.stats-mode'];
  const tableMode = parseStatsMode(modeText);
  const keepFirstN = options['metadata.stats-keep-first-n-columns'] === undefined ? -1 : Number(options['metadata.stats-keep-first-n-columns']);
  const thinKeys = opts.thinModeKeyNames ?? [];
  let columnCount = 0;
  return physicalFieldNames.map((name) => {
    const own = options[`fields.${name}.stats-mode`];
    if (own !== undefined) {
      columnCount++;
      return parseStatsMode(own);
    }
    if (isSystemField(name) || thinKeys.includes(KEY_FIELD_PREFIX + name)) return { kind: 'truncate', length: 128 };
    const mode: StatsMode = keepFirstN >= 0 && columnCount >= keepFirstN ? { kind: 'none' } : tableMode;
    columnCount++;
    return mode;
  });
}

export function statsDenseStore(options: Readonly<Record<string, string>>): boolean {
  return booleanOption(options, 'metadata.stats-dense-store', true);
}

// ---------------------------------------------------------------------------------------
// Naming and format detection
// ---------------------------------------------------------------------------------------

/**
 * A new data file name as `DataFilePathFactory` makes them: `<prefix><uuid>-<n>.<format>`, with
 * `.<codec>` before the format when `file.suffix.include.compression` is set.
 */
export function newDataFileName(
  options: Readonly<Record<string, string>>,
  format: string,
  opts: { changelog?: boolean; uuid?: string; count?: number; compression?: string } = {},
): string {
  const prefix = opts.changelog ? (options['changelog-file.prefix'] ?? 'changelog-') : (options['data-file.prefix'] ?? 'data-');
  const uuid = opts.uuid ?? randomUUID();
  const includeCompression = booleanOption(options, 'file.suffix.include.compression', false);
  const codec = opts.compression ?? 'none';
  const ext = includeCompression && codec !== 'none' && codec !== 'uncompressed' ? `.${codec}.${format}` : `.${format}`;
  return `${prefix}${uuid}-${opts.count ?? 0}${ext}`;
}

/** The format of a data file, from its name (readers go by the extension, as Java does). */
export function formatFromFileName(fileName: string): FileFormatName | null {
  const m = /\.([a-z0-9]+)$/i.exec(fileName);
  const ext = m?.[1].toLowerCase();
  return ext === 'parquet' || ext === 'orc' || ext === 'avro' ? ext : null;
}

/** The format of a data file from its first bytes: `PAR1`, `ORC`, or Avro's `Obj\x01`. */
export function formatFromMagic(head: Uint8Array): FileFormatName | null {
  const s = Buffer.from(head.subarray(0, 4)).toString('latin1');
  if (s === 'PAR1') return 'parquet';
  if (s.startsWith('ORC')) return 'orc';
  if (s === 'Obj\x01') return 'avro';
  return null;
}

export function typeOf(layout: DataFileLayout, name: string): FieldType | undefined {
  return layout.physicalFields.find((f) => f.name === name)?.type;
}
