/**
 * VARIANT in Parquet data files, as Paimon 2.0 writes it unshredded
 * (`ParquetSchemaConverter`, case VARIANT): a group of two BINARY fields, `value` (field id 0)
 * then `metadata` (field id 1), both REQUIRED, with no logical-type annotation; the group takes
 * the column's own field id and repetition, top-level or nested in ROW, ARRAY and MAP.
 *
 * In memory a variant is its two encoded parts, `[value, metadata]` (the bytes of Paimon's
 * `GenericVariant`), copied through untouched: compaction never needs to decode one.
 *
 * DuckDB writes the group as STRUCT("value" BLOB, "metadata" BLOB), with two differences: the
 * parts carry no field ids (see variantFieldIdSpec) and are OPTIONAL (DuckDB writes no REQUIRED
 * columns, and its own VARIANT type re-encodes and shreds the values and cannot be nested). Paimon
 * Java's reader sees neither (it goes by the Paimon type and finds the parts by name). pypaimon
 * 2.1 does see the second: its read type has non-nullable parts, and pyarrow will not cast a
 * nullable struct child to a non-nullable one. So every finished file is rewritten with its
 * variant parts REQUIRED (requireVariantParts, parquet-required-parts.ts), the bytes unchanged.
 *
 * Shredded variants (a `typed_value` beside `value`, written when `variant.shreddingSchema` or
 * `variant.inferShreddingSchema` is set) are not reassembled here: reading one is refused.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { DuckDBBlobValue, DuckDBStructValue, type DuckDBValue } from '@duckdb/node-api';
import { PaimonError } from '../errors.js';
import type { DataFieldSpec, FieldType } from './field-type.js';
import type { Datum } from './internal-row.js';
import { requireLeafColumns } from './parquet-required-parts.js';

/** A VARIANT value: its encoded value and metadata bytes (Paimon's `Variant.value()`/`metadata()`). */
export type VariantDatum = [value: Uint8Array, metadata: Uint8Array];

/** The DuckDB column type of a VARIANT column. */
export const VARIANT_DUCK_TYPE = 'STRUCT("value" BLOB, "metadata" BLOB)';

/**
 * The FIELD_IDS entry of a VARIANT column: the group gets the column's id, its parts none. Paimon
 * numbers the parts 0 and 1 in every variant, so they repeat the ids of other columns, which
 * DuckDB refuses in one file; Paimon's reader finds the parts by name
 * (`VariantShreddingReadPlanFactory`, `ParquetReaderFactory.clipParquetSchema`).
 */
export function variantFieldIdSpec(id: number): string {
  return `{__duckdb_field_id: ${id}}`;
}

function bytesOf(part: unknown, name: string): Uint8Array {
  if (part instanceof Uint8Array) return part;
  throw new PaimonError('INVALID_ARGUMENT', `a VARIANT value needs its ${name} bytes`);
}

/** A VARIANT value to the DuckDB struct that is written for it. */
export function variantToDuck(v: Datum): DuckDBValue {
  if (v === null || v === undefined) return null;
  const [value, metadata] = v as Datum[];
  return new DuckDBStructValue({
    value: new DuckDBBlobValue(bytesOf(value, 'value')),
    metadata: new DuckDBBlobValue(bytesOf(metadata, 'metadata')),
  });
}

function blobBytes(v: DuckDBValue | undefined): Uint8Array | null {
  if (v instanceof DuckDBBlobValue) return v.bytes;
  return null;
}

/** A VARIANT group read from a data file, as the two parts; refuses shredded or foreign layouts. */
export function variantFromDuck(v: DuckDBValue): Datum {
  if (v === null) return null;
  if (!(v instanceof DuckDBStructValue)) {
    throw new PaimonError('UNSUPPORTED_FORMAT', 'a VARIANT column of this data file is not the value/metadata group Paimon writes; use Paimon\'s own engine (Spark or Flink) for this table');
  }
  const e = v.entries;
  if ('typed_value' in e) {
    throw new PaimonError(
      'UNSUPPORTED_FORMAT',
      "a VARIANT column of this data file is shredded (typed_value), which this proxy does not reassemble; run Spark or Flink CALL sys.compact for this table",
    );
  }
  const value = blobBytes(e.value), metadata = blobBytes(e.metadata);
  if (value === null || metadata === null) {
    throw new PaimonError('CORRUPT_METADATA', 'a VARIANT value of this data file lacks its value or metadata bytes');
  }
  const out: VariantDatum = [value, metadata];
  return out;
}

/**
 * The Parquet leaf paths of the parts of every VARIANT among the fields, top-level or nested, as
 * the group sits in the file: ROW children by name, an ARRAY's element under `list`/`element`, a
 * MAP's key and value under `key_value` (the three-level layout both DuckDB and Paimon write).
 */
export function variantPartPaths(fields: readonly DataFieldSpec[]): string[][] {
  const out: string[][] = [];
  const walk = (t: FieldType, path: string[]): void => {
    switch (t.root) {
      case 'VARIANT': out.push([...path, 'value'], [...path, 'metadata']); return;
      case 'ROW': for (const f of t.fields) walk(f.type, [...path, f.name]); return;
      case 'ARRAY': walk(t.element, [...path, 'list', 'element']); return;
      case 'MULTISET': walk(t.element, [...path, 'key_value', 'key']); return;
      case 'MAP': walk(t.key, [...path, 'key_value', 'key']); walk(t.value, [...path, 'key_value', 'value']); return;
      default: return;
    }
  };
  for (const f of fields) walk(f.type, [f.name]);
  return out;
}

/**
 * Makes the variant parts of a Parquet file DuckDB has just written REQUIRED, as Paimon writes
 * them, in place; a file without VARIANT columns is not touched. The whole file is held in memory
 * while it is rewritten.
 */
export async function requireVariantParts(localPath: string, fields: readonly DataFieldSpec[], zstdLevel: number): Promise<void> {
  const paths = variantPartPaths(fields);
  if (paths.length === 0) return;
  const before = await readFile(localPath);
  const after = await requireLeafColumns(before, paths, { zstdLevel });
  if (after !== before) await writeFile(localPath, after);
}
