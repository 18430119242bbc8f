/**
 * How a Paimon column type looks to a MySQL client browsing standalone mode: the type Doris
 * gives a Paimon column in an external catalog (apache/doris fe-core
 * `datasource/paimon/PaimonUtil.paimonPrimitiveTypeToDorisType`), written as Doris writes it in
 * `DESC` / `SHOW COLUMNS` (`int`, `varchar(10)`, `text`, `decimal(10,2)`, `datetime(3)`) and in
 * `SHOW CREATE TABLE` (`datetimev2(3)`, `datev2`, `decimalv3(10,2)`), plus the
 * information_schema.COLUMNS facts (DATA_TYPE, lengths, precision) MySQL clients read.
 *
 * Doris's mapping: BINARY/VARBINARY become STRING, DECIMAL is DECIMALV3, DATE is DATEV2, both
 * timestamp kinds are DATETIMEV2 with the precision capped at 6, TIME and the types Doris has
 * no counterpart for are UNSUPPORTED. A CHAR longer than 255 or a VARCHAR longer than 65533
 * (Paimon's STRING is VARCHAR(2147483647)) is Doris's STRING, shown as `text`.
 */
import type { DataType } from '../../paimon/spec/data-types.js';

/** Doris's longest CHAR and VARCHAR (`ScalarType.MAX_CHAR_LENGTH`, `MAX_VARCHAR_LENGTH`). */
const MAX_CHAR_LENGTH = 255;
const MAX_VARCHAR_LENGTH = 65533;
/** What Doris's STRING reports as its maximum length (2 GiB - 1, as Doris's `text`). */
const STRING_LENGTH = 2147483647;

export interface MysqlColumnType {
  /** `SHOW COLUMNS` / `DESC` Type and information_schema COLUMN_TYPE: `varchar(10)`. */
  columnType: string;
  /** `SHOW CREATE TABLE` type: Doris's versioned names (`datetimev2(3)`, `decimalv3(10,2)`). */
  ddlType: string;
  /** information_schema DATA_TYPE: the type name without its parameters. */
  dataType: string;
  /** CHARACTER_MAXIMUM_LENGTH (characters) for character types, else null. */
  charMaxLength: number | null;
  /** CHARACTER_OCTET_LENGTH (utf8mb4: four bytes a character), else null. */
  charOctetLength: number | null;
  /** NUMERIC_PRECISION / NUMERIC_SCALE for numeric types, else null. */
  numericPrecision: number | null;
  numericScale: number | null;
  /** DATETIME_PRECISION for date-time types, else null. */
  datetimePrecision: number | null;
}

function plain(name: string, numeric: [number, number | null] | null = null): MysqlColumnType {
  return {
    columnType: name,
    ddlType: name,
    dataType: name,
    charMaxLength: null,
    charOctetLength: null,
    numericPrecision: numeric ? numeric[0] : null,
    numericScale: numeric ? numeric[1] : null,
    datetimePrecision: null,
  };
}

function characters(name: string, length: number): MysqlColumnType {
  const columnType = name === 'text' ? 'text' : `${name}(${length})`;
  return { ...plain(name), columnType, ddlType: columnType, charMaxLength: length, charOctetLength: Math.min(length * 4, STRING_LENGTH) };
}

const TEXT = characters('text', STRING_LENGTH);

/** The Doris type of a Paimon type, as a MySQL client sees it. */
export function mysqlColumnType(t: DataType): MysqlColumnType {
  switch (t.root) {
    case 'BOOLEAN':
      return plain('boolean');
    case 'TINYINT':
      return plain('tinyint', [3, 0]);
    case 'SMALLINT':
      return plain('smallint', [5, 0]);
    case 'INT':
      return plain('int', [10, 0]);
    case 'BIGINT':
      return plain('bigint', [19, 0]);
    case 'FLOAT':
      return plain('float', [7, null]);
    case 'DOUBLE':
      return plain('double', [15, null]);
    case 'CHAR':
      return t.length > MAX_CHAR_LENGTH ? TEXT : characters('char', t.length);
    case 'VARCHAR':
      return t.length > MAX_VARCHAR_LENGTH ? TEXT : characters('varchar', t.length);
    case 'BINARY':
    case 'VARBINARY':
      return TEXT;
    case 'DECIMAL':
      return {
        ...plain('decimal', [t.precision, t.scale]),
        columnType: `decimal(${t.precision},${t.scale})`,
        ddlType: `decimalv3(${t.precision},${t.scale})`,
      };
    case 'DATE':
      return { ...plain('date'), ddlType: 'datev2', datetimePrecision: 0 };
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const p = Math.min(t.precision, 6);
      return { ...plain('datetime'), columnType: p === 0 ? 'datetime' : `datetime(${p})`, ddlType: `datetimev2(${p})`, datetimePrecision: p };
    }
    case 'ARRAY':
      return nested('array', `array<${mysqlColumnType(t.element).columnType}>`, `array<${mysqlColumnType(t.element).ddlType}>`);
    case 'MAP': {
      const k = mysqlColumnType(t.key);
      const v = mysqlColumnType(t.value);
      return nested('map', `map<${k.columnType},${v.columnType}>`, `map<${k.ddlType},${v.ddlType}>`);
    }
    case 'ROW': {
      const fields = t.fields.map((f) => ({ name: f.name, type: mysqlColumnType(f.type) }));
      return nested(
        'struct',
        `struct<${fields.map((f) => `${f.name}:${f.type.columnType}`).join(',')}>`,
        `struct<${fields.map((f) => `${f.name}:${f.type.ddlType}`).join(',')}>`,
      );
    }
    default:
      // TIME, MULTISET, VARIANT, BLOB, VECTOR: Doris has no type for them.
      return plain('unsupported');
  }
}

function nested(dataType: string, columnType: string, ddlType: string): MysqlColumnType {
  return { ...plain(dataType), columnType, ddlType };
}
