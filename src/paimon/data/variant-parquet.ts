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
 * columns; the parts are never null, which costs one definition level). Paimon Java's reader
 * sees neither (it goes by the Paimon type and finds the parts by name). pypaimon 2.1 does see
 * the second: its read type has non-nullable parts, and pyarrow will not cast a nullable struct
 * child to a non-nullable one, so it cannot read these files.
 *
 * Shredded variants (a `typed_value` beside `value`, written when `variant.shreddingSchema` or
 * `variant.inferShreddingSchema` is set) are not reassembled here: reading one is refused.
 */
import { DuckDBBlobValue, DuckDBStructValue, type DuckDBValue } from '@duckdb/node-api';
import { PaimonError } from '../errors.js';
import type { Datum } from './internal-row.js';

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
