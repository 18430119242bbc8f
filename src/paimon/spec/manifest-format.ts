/**
 * The file format of a table's metadata files (manifests, manifest lists, index manifests):
 * `manifest.format` (CoreOptions.MANIFEST_FORMAT, default `avro`; `FileFormat.manifestFormat`
 * accepts any registered `FileFormat`: avro, parquet, orc in Paimon 1.4 and 2.0) with
 * `manifest.compression` (default zstd) as the format's codec.
 *
 * Both formats hold the same rows: `_VERSION` then the object's `SCHEMA` (ManifestEntry,
 * ManifestFileMeta, IndexManifestEntry), BinaryRows as their serialized bytes (arity prefix
 * included). Java's Parquet files carry Paimon's field ids (`_VERSION` is -1, every other
 * field its position in its row; list elements `SpecialFields`' structured-type ids), so the
 * Parquet row type is derived here from the Avro schema the files share.
 *
 * Readers decide by the file's magic bytes, not by the option: a table whose option changed
 * keeps its older files readable. ORC is refused: nothing in this process decodes it.
 */
import { PaimonError } from '../errors.js';
import type { DataFieldSpec, FieldType } from '../data/field-type.js';
import type { AvroSchema } from './avro-schemas.js';

export type ManifestFormat = 'avro' | 'parquet';

const AVRO_MAGIC = Buffer.from([0x4f, 0x62, 0x6a, 0x01]);
const PARQUET_MAGIC = Buffer.from('PAR1', 'latin1');
const ORC_MAGIC = Buffer.from('ORC', 'latin1');

/** The `manifest.format` of a table's options, normalized; ORC and unknown formats are refused. */
export function manifestFormatOf(tableOptions: Readonly<Record<string, string>>, table?: string): ManifestFormat {
  const raw = tableOptions['manifest.format'];
  const f = (raw ?? 'avro').trim().toLowerCase();
  if (f === 'avro' || f === 'parquet') return f;
  const who = table ? `table ${table}` : 'the table';
  throw new PaimonError(
    'UNSUPPORTED_FORMAT',
    `${who} has 'manifest.format' = '${raw}'; this proxy reads and writes Avro and Parquet metadata files only. ` +
      `Run the procedure in Paimon's own engines (Flink/Spark CALL sys.<procedure>), or set 'manifest.format' to avro or parquet.`,
  );
}

/** The format of a metadata file by its magic bytes: Avro container, Parquet, or a refusal naming the file. */
export function metadataFileFormat(buf: Buffer, what: string): ManifestFormat {
  if (buf.length >= 4 && buf.subarray(0, 4).equals(AVRO_MAGIC)) return 'avro';
  if (buf.length >= 12 && buf.subarray(0, 4).equals(PARQUET_MAGIC)) {
    if (!buf.subarray(buf.length - 4).equals(PARQUET_MAGIC)) {
      throw new PaimonError('CORRUPT_METADATA', `${what} is a truncated Parquet file (no footer magic)`);
    }
    return 'parquet';
  }
  if (buf.length >= 3 && buf.subarray(0, 3).equals(ORC_MAGIC)) {
    throw new PaimonError(
      'UNSUPPORTED_FORMAT',
      `${what} is an ORC file ('manifest.format' = orc); this proxy reads Avro and Parquet metadata files only. Run the procedure in Paimon's own engines (Flink/Spark).`,
    );
  }
  throw new PaimonError('CORRUPT_METADATA', `${what} is neither an Avro object container file nor a Parquet file`);
}

/** Avro fields Paimon declares as TINYINT (`FileKind` and `FileSource` bytes); every other Avro int is INT. */
const TINYINT_FIELDS = new Set(['_KIND', '_FILE_SOURCE']);

type AvroNode = string | unknown[] | { type?: unknown; fields?: unknown; items?: unknown; logicalType?: unknown; name?: unknown };

function avroFieldType(schema: unknown, name: string, nullable: boolean): FieldType {
  const s = schema as AvroNode;
  if (Array.isArray(s)) {
    const branches = s.filter((b) => b !== 'null');
    if (branches.length !== 1) throw new PaimonError('INVALID_ARGUMENT', `metadata field ${name}: unsupported Avro union`);
    return avroFieldType(branches[0], name, true);
  }
  const t = typeof s === 'string' ? s : s.type;
  if (typeof s === 'object' && s.logicalType === 'timestamp-millis') return { root: 'TIMESTAMP', nullable, precision: 3 };
  switch (t) {
    case 'int':
      return { root: TINYINT_FIELDS.has(name) ? 'TINYINT' : 'INT', nullable };
    case 'long':
      return { root: 'BIGINT', nullable };
    case 'string':
      return { root: 'VARCHAR', nullable, length: 2147483647 };
    case 'bytes':
      return { root: 'VARBINARY', nullable, length: 2147483647 };
    case 'array':
      return { root: 'ARRAY', nullable, element: avroFieldType((s as { items?: unknown }).items, name, false) };
    case 'record':
      return { root: 'ROW', nullable, fields: rowFields((s as { fields?: unknown }).fields, 0) };
    default:
      if (typeof t === 'object' && t !== null) return avroFieldType(t, name, nullable);
      throw new PaimonError('INVALID_ARGUMENT', `metadata field ${name}: unsupported Avro type ${JSON.stringify(t)}`);
  }
}

function rowFields(fields: unknown, firstId: number): DataFieldSpec[] {
  if (!Array.isArray(fields)) throw new PaimonError('INVALID_ARGUMENT', 'metadata schema: record without fields');
  return fields.map((f, i) => {
    const { name, type } = f as { name: string; type: unknown };
    return { id: firstId + i, name, type: avroFieldType(type, name, false) };
  });
}

/**
 * The Paimon row type (with field ids) of a metadata file's Avro schema, as Java writes it to
 * Parquet: `_VERSION` id -1, the object's fields 0..n-1, nested rows numbered from 0.
 */
export function metadataRowType(schema: AvroSchema): DataFieldSpec[] {
  const s = (typeof schema === 'string' ? JSON.parse(schema) : schema) as { fields?: unknown };
  return rowFields(s.fields, -1);
}
