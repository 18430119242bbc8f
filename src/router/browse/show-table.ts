/**
 * The SHOW statements that describe a Paimon table in standalone mode, with MySQL's columns
 * (what Connector/J's DatabaseMetaData reads with its default useInformationSchema=false:
 * `SHOW FULL COLUMNS FROM t FROM db LIKE '%'` for getColumns, `SHOW KEYS FROM t FROM db` for
 * getPrimaryKeys) and Doris's values for an external Paimon table:
 *
 * * `SHOW [FULL] COLUMNS` / `DESC`: Field, Type, [Collation,] Null, Key, Default, Extra, [Privileges, Comment];
 * * `SHOW INDEX | KEYS`: the primary key as index `PRIMARY`;
 * * `SHOW CREATE TABLE`: Doris's DDL of a Paimon table in an external catalog
 *   (`) ENGINE=PAIMON_EXTERNAL_TABLE`, `LOCATION '...'`, `PROPERTIES ("path" = ..., options)`,
 *   as Doris's regression output test_paimon_table_properties.out shows it);
 * * `SHOW TABLE STATUS`: one row a table, the row count of its latest snapshot.
 */
import type { ColumnSpec, ColumnType, LocalReply, TextRow } from '../route.js';
import { tablesRow } from './information-schema.js';
import { javaHashMapOrder } from './java-hash-order.js';
import type { TableMetadata } from './table-metadata.js';
import { mysqlColumnType } from './type-mapping.js';

const COLLATION = 'utf8mb4_0900_bin';

function resultset(columns: [string, ColumnType][], rows: TextRow[]): LocalReply {
  return { kind: 'resultset', columns: columns.map(([name, type]): ColumnSpec => ({ name, type })), rows };
}

/** Keeps the rows whose value in the named column passes the SHOW filter (null: all). */
export type RowFilter = ((value: string) => boolean) | null;

export function showColumns(t: TableMetadata, full: boolean, filter: RowFilter): LocalReply {
  const s = t.schema;
  const rows: TextRow[] = [];
  for (const f of s?.fields ?? []) {
    if (filter !== null && !filter(f.name)) continue;
    const m = mysqlColumnType(f.type);
    const key = s!.primaryKeys.includes(f.name) ? 'PRI' : '';
    const nul = f.type.nullable ? 'YES' : 'NO';
    const def = f.defaultValue ?? null;
    rows.push(
      full
        ? [f.name, m.columnType, m.charMaxLength !== null ? COLLATION : null, nul, key, def, '', 'select', f.description ?? '']
        : [f.name, m.columnType, nul, key, def, ''],
    );
  }
  const columns: [string, ColumnType][] = full
    ? [['Field', 'string'], ['Type', 'string'], ['Collation', 'string'], ['Null', 'string'], ['Key', 'string'], ['Default', 'string'], ['Extra', 'string'], ['Privileges', 'string'], ['Comment', 'string']]
    : [['Field', 'string'], ['Type', 'string'], ['Null', 'string'], ['Key', 'string'], ['Default', 'string'], ['Extra', 'string']];
  return resultset(columns, rows);
}

export function showIndex(t: TableMetadata, filter: RowFilter): LocalReply {
  const s = t.schema;
  const rows: TextRow[] = (s?.primaryKeys ?? [])
    .map((k, i): TextRow => {
      const nullable = s!.fields.find((f) => f.name === k)?.type.nullable ?? false;
      return [t.table, '0', 'PRIMARY', String(i + 1), k, 'A', null, null, null, nullable ? 'YES' : '', 'BTREE', '', '', 'YES', null];
    })
    .filter((r) => filter === null || filter(r[2]!));
  return resultset(
    [
      ['Table', 'string'],
      ['Non_unique', 'bigint'],
      ['Key_name', 'string'],
      ['Seq_in_index', 'bigint'],
      ['Column_name', 'string'],
      ['Collation', 'string'],
      ['Cardinality', 'bigint'],
      ['Sub_part', 'bigint'],
      ['Packed', 'string'],
      ['Null', 'string'],
      ['Index_type', 'string'],
      ['Comment', 'string'],
      ['Index_comment', 'string'],
      ['Visible', 'string'],
      ['Expression', 'string'],
    ],
    rows,
  );
}

function quoteIdent(s: string): string {
  return '`' + s.replace(/`/g, '``') + '`';
}

function quoteText(s: string, q: string): string {
  return q + s.replace(/\\/g, '\\\\').replace(new RegExp(q, 'g'), '\\' + q) + q;
}

/** Doris's `SHOW CREATE TABLE` text of a Paimon table at `location`. */
export function createTableText(t: TableMetadata, location: string): string {
  const s = t.schema;
  const lines = (s?.fields ?? []).map((f) => {
    let line = `  ${quoteIdent(f.name)} ${mysqlColumnType(f.type).ddlType} ${f.type.nullable ? 'NULL' : 'NOT NULL'}`;
    if (f.description !== undefined && f.description !== '') line += ` COMMENT ${quoteText(f.description, "'")}`;
    return line;
  });
  const options = s?.options ?? {};
  const props = [['path', location] as const, ...javaHashMapOrder(Object.keys(options)).map((k) => [k, options[k]!] as const)].map(
    ([k, v]) => `  ${quoteText(k, '"')} = ${quoteText(v, '"')}`,
  );
  let text = `CREATE TABLE ${quoteIdent(t.table)} (\n${lines.join(',\n')}\n) ENGINE=PAIMON_EXTERNAL_TABLE`;
  if (s?.comment) text += `\nCOMMENT ${quoteText(s.comment, "'")}`;
  text += `\nLOCATION ${quoteText(location, "'")}\nPROPERTIES (\n${props.join(',\n')}\n);`;
  return text;
}

export function showCreateTable(t: TableMetadata, location: string): LocalReply {
  return resultset([['Table', 'string'], ['Create Table', 'string']], [[t.table, createTableText(t, location)]]);
}

export function showTableStatus(tables: TableMetadata[], filter: RowFilter): LocalReply {
  const rows = tables.filter((t) => filter === null || filter(t.table)).map((t): TextRow => {
    const r = tablesRow(t);
    return [r[2]!, ...r.slice(4)];
  });
  return resultset(
    [
      ['Name', 'string'],
      ['Engine', 'string'],
      ['Version', 'bigint'],
      ['Row_format', 'string'],
      ['Rows', 'bigint'],
      ['Avg_row_length', 'bigint'],
      ['Data_length', 'bigint'],
      ['Max_data_length', 'bigint'],
      ['Index_length', 'bigint'],
      ['Data_free', 'bigint'],
      ['Auto_increment', 'bigint'],
      ['Create_time', 'datetime'],
      ['Update_time', 'datetime'],
      ['Check_time', 'datetime'],
      ['Collation', 'string'],
      ['Checksum', 'bigint'],
      ['Create_options', 'string'],
      ['Comment', 'string'],
    ],
    rows,
  );
}
