/**
 * information_schema in standalone mode, over the Paimon tables of one configured catalog (the
 * session's current one, or the one named in `catalog.information_schema.X`): SCHEMATA, TABLES,
 * COLUMNS, STATISTICS, KEY_COLUMN_USAGE, TABLE_CONSTRAINTS (the primary key) and VIEWS (none).
 * These are what MySQL clients read to browse (Connector/J with useInformationSchema=true,
 * DBeaver's MySQL driver, SQL editors' completion). Column names and their order are MySQL 8.0's
 * (the MySQL manual's "INFORMATION_SCHEMA Tables"); TABLE_CATALOG is the catalog's name, as
 * Doris reports it. Column types follow Doris's mapping of Paimon types (type-mapping.ts), and
 * a primary-key column has COLUMN_KEY `PRI`, as a key column of a Doris external table does.
 */
import { ProcedureError } from '../../../procedures/framework/errors.js';
import type { ProcedureCatalog } from '../../../procedures/framework/catalog.js';
import type { ColumnSpec, ColumnType, TextRow } from '../route.js';
import { epochMillisText } from './datetime-text.js';
import { requiredValues, type Condition } from './select-query.js';
import { loadTables, selectedDatabases, type TableMetadata } from './table-metadata.js';
import { mysqlColumnType } from './type-mapping.js';
import type { VirtualTable } from './virtual-table.js';

export const INFORMATION_SCHEMA = 'information_schema';

const CHARSET = 'utf8mb4';
const COLLATION = 'utf8mb4_0900_bin';

type Columns = [string, ColumnType][];

const SCHEMATA: Columns = [
  ['CATALOG_NAME', 'string'],
  ['SCHEMA_NAME', 'string'],
  ['DEFAULT_CHARACTER_SET_NAME', 'string'],
  ['DEFAULT_COLLATION_NAME', 'string'],
  ['SQL_PATH', 'string'],
  ['DEFAULT_ENCRYPTION', 'string'],
];

const TABLES: Columns = [
  ['TABLE_CATALOG', 'string'],
  ['TABLE_SCHEMA', 'string'],
  ['TABLE_NAME', 'string'],
  ['TABLE_TYPE', 'string'],
  ['ENGINE', 'string'],
  ['VERSION', 'bigint'],
  ['ROW_FORMAT', 'string'],
  ['TABLE_ROWS', 'bigint'],
  ['AVG_ROW_LENGTH', 'bigint'],
  ['DATA_LENGTH', 'bigint'],
  ['MAX_DATA_LENGTH', 'bigint'],
  ['INDEX_LENGTH', 'bigint'],
  ['DATA_FREE', 'bigint'],
  ['AUTO_INCREMENT', 'bigint'],
  ['CREATE_TIME', 'datetime'],
  ['UPDATE_TIME', 'datetime'],
  ['CHECK_TIME', 'datetime'],
  ['TABLE_COLLATION', 'string'],
  ['CHECKSUM', 'bigint'],
  ['CREATE_OPTIONS', 'string'],
  ['TABLE_COMMENT', 'string'],
];

const COLUMNS: Columns = [
  ['TABLE_CATALOG', 'string'],
  ['TABLE_SCHEMA', 'string'],
  ['TABLE_NAME', 'string'],
  ['COLUMN_NAME', 'string'],
  ['ORDINAL_POSITION', 'bigint'],
  ['COLUMN_DEFAULT', 'string'],
  ['IS_NULLABLE', 'string'],
  ['DATA_TYPE', 'string'],
  ['CHARACTER_MAXIMUM_LENGTH', 'bigint'],
  ['CHARACTER_OCTET_LENGTH', 'bigint'],
  ['NUMERIC_PRECISION', 'bigint'],
  ['NUMERIC_SCALE', 'bigint'],
  ['DATETIME_PRECISION', 'bigint'],
  ['CHARACTER_SET_NAME', 'string'],
  ['COLLATION_NAME', 'string'],
  ['COLUMN_TYPE', 'string'],
  ['COLUMN_KEY', 'string'],
  ['EXTRA', 'string'],
  ['PRIVILEGES', 'string'],
  ['COLUMN_COMMENT', 'string'],
  ['GENERATION_EXPRESSION', 'string'],
  ['SRS_ID', 'bigint'],
];

const STATISTICS: Columns = [
  ['TABLE_CATALOG', 'string'],
  ['TABLE_SCHEMA', 'string'],
  ['TABLE_NAME', 'string'],
  ['NON_UNIQUE', 'bigint'],
  ['INDEX_SCHEMA', 'string'],
  ['INDEX_NAME', 'string'],
  ['SEQ_IN_INDEX', 'bigint'],
  ['COLUMN_NAME', 'string'],
  ['COLLATION', 'string'],
  ['CARDINALITY', 'bigint'],
  ['SUB_PART', 'bigint'],
  ['PACKED', 'string'],
  ['NULLABLE', 'string'],
  ['INDEX_TYPE', 'string'],
  ['COMMENT', 'string'],
  ['INDEX_COMMENT', 'string'],
  ['IS_VISIBLE', 'string'],
  ['EXPRESSION', 'string'],
];

const KEY_COLUMN_USAGE: Columns = [
  ['CONSTRAINT_CATALOG', 'string'],
  ['CONSTRAINT_SCHEMA', 'string'],
  ['CONSTRAINT_NAME', 'string'],
  ['TABLE_CATALOG', 'string'],
  ['TABLE_SCHEMA', 'string'],
  ['TABLE_NAME', 'string'],
  ['COLUMN_NAME', 'string'],
  ['ORDINAL_POSITION', 'bigint'],
  ['POSITION_IN_UNIQUE_CONSTRAINT', 'bigint'],
  ['REFERENCED_TABLE_SCHEMA', 'string'],
  ['REFERENCED_TABLE_NAME', 'string'],
  ['REFERENCED_COLUMN_NAME', 'string'],
];

const TABLE_CONSTRAINTS: Columns = [
  ['CONSTRAINT_CATALOG', 'string'],
  ['CONSTRAINT_SCHEMA', 'string'],
  ['CONSTRAINT_NAME', 'string'],
  ['TABLE_SCHEMA', 'string'],
  ['TABLE_NAME', 'string'],
  ['CONSTRAINT_TYPE', 'string'],
  ['ENFORCED', 'string'],
];

const VIEWS: Columns = [
  ['TABLE_CATALOG', 'string'],
  ['TABLE_SCHEMA', 'string'],
  ['TABLE_NAME', 'string'],
  ['VIEW_DEFINITION', 'string'],
  ['CHECK_OPTION', 'string'],
  ['IS_UPDATABLE', 'string'],
  ['DEFINER', 'string'],
  ['SECURITY_TYPE', 'string'],
  ['CHARACTER_SET_CLIENT', 'string'],
  ['COLLATION_CONNECTION', 'string'],
];

type Builder = (tables: TableMetadata[]) => TextRow[];

interface Definition {
  columns: Columns;
  /** The columns that name a database and a table (to read only the tables a WHERE asks for). */
  schemaColumn: string;
  tableColumn: string | null;
  snapshots?: boolean;
  rows: Builder;
}

function n(v: number | bigint | null | undefined): string | null {
  return v === null || v === undefined ? null : String(v);
}

function keyRows(t: TableMetadata): { column: string; seq: number; nullable: boolean }[] {
  if (t.schema === null) return [];
  const s = t.schema;
  return s.primaryKeys.map((k, i) => ({ column: k, seq: i + 1, nullable: s.fields.find((f) => f.name === k)?.type.nullable ?? false }));
}

/**
 * One table's information_schema.TABLES row. SHOW TABLE STATUS shows the same values from
 * ENGINE on (MySQL defines it so), under its own column names.
 */
export function tablesRow(t: TableMetadata): TextRow {
  return [
    t.catalog,
    t.database,
    t.table,
    'BASE TABLE',
    'paimon',
    null,
    null,
    // the latest snapshot's total record count (0 for a table without snapshots)
    t.schema !== null ? String(t.latestSnapshot?.totalRecordCount ?? 0) : null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    t.latestSnapshot ? epochMillisText(t.latestSnapshot.timeMillis) : null,
    null,
    COLLATION,
    null,
    '',
    t.error !== null ? `metadata could not be read: ${t.error}` : (t.schema?.comment ?? ''),
  ];
}

const DEFINITIONS: Record<string, Definition> = {
  SCHEMATA: { columns: SCHEMATA, schemaColumn: 'SCHEMA_NAME', tableColumn: null, rows: () => [] },
  TABLES: {
    columns: TABLES,
    schemaColumn: 'TABLE_SCHEMA',
    tableColumn: 'TABLE_NAME',
    snapshots: true,
    rows: (tables) => tables.map(tablesRow),
  },
  COLUMNS: {
    columns: COLUMNS,
    schemaColumn: 'TABLE_SCHEMA',
    tableColumn: 'TABLE_NAME',
    rows: (tables) =>
      tables.flatMap((t) =>
        (t.schema?.fields ?? []).map((f, i) => {
          const m = mysqlColumnType(f.type);
          const character = m.charMaxLength !== null;
          return [
            t.catalog,
            t.database,
            t.table,
            f.name,
            String(i + 1),
            f.defaultValue ?? null,
            f.type.nullable ? 'YES' : 'NO',
            m.dataType,
            n(m.charMaxLength),
            n(m.charOctetLength),
            n(m.numericPrecision),
            n(m.numericScale),
            n(m.datetimePrecision),
            character ? CHARSET : null,
            character ? COLLATION : null,
            m.columnType,
            t.schema!.primaryKeys.includes(f.name) ? 'PRI' : '',
            '',
            'select',
            f.description ?? '',
            '',
            null,
          ];
        }),
      ),
  },
  STATISTICS: {
    columns: STATISTICS,
    schemaColumn: 'TABLE_SCHEMA',
    tableColumn: 'TABLE_NAME',
    rows: (tables) =>
      tables.flatMap((t) =>
        keyRows(t).map((k) => [t.catalog, t.database, t.table, '0', t.database, 'PRIMARY', String(k.seq), k.column, 'A', null, null, null, k.nullable ? 'YES' : '', 'BTREE', '', '', 'YES', null]),
      ),
  },
  KEY_COLUMN_USAGE: {
    columns: KEY_COLUMN_USAGE,
    schemaColumn: 'TABLE_SCHEMA',
    tableColumn: 'TABLE_NAME',
    rows: (tables) => tables.flatMap((t) => keyRows(t).map((k) => [t.catalog, t.database, 'PRIMARY', t.catalog, t.database, t.table, k.column, String(k.seq), null, null, null, null])),
  },
  TABLE_CONSTRAINTS: {
    columns: TABLE_CONSTRAINTS,
    schemaColumn: 'TABLE_SCHEMA',
    tableColumn: 'TABLE_NAME',
    rows: (tables) => tables.filter((t) => keyRows(t).length > 0).map((t) => [t.catalog, t.database, 'PRIMARY', t.database, t.table, 'PRIMARY KEY', 'NO']),
  },
  VIEWS: { columns: VIEWS, schemaColumn: 'TABLE_SCHEMA', tableColumn: 'TABLE_NAME', rows: () => [] },
};

/** The information_schema tables standalone mode answers, for messages. */
export const INFORMATION_SCHEMA_TABLES = Object.keys(DEFINITIONS);

function columnSpecs(columns: Columns): ColumnSpec[] {
  return columns.map(([name, type]) => ({ name, type }));
}

/**
 * One information_schema table of a catalog, read for the databases and tables the WHERE
 * restricts it to (`TABLE_SCHEMA = 'x'`, `TABLE_NAME IN (...)`), the whole catalog otherwise.
 */
export async function informationSchemaTable(name: string, catalog: ProcedureCatalog, where: Condition | null): Promise<VirtualTable> {
  const upper = name.toUpperCase();
  const def = DEFINITIONS[upper];
  if (def === undefined) {
    throw new ProcedureError(
      'TABLE_NOT_FOUND',
      `Table '${INFORMATION_SCHEMA}.${name}' is not answered in standalone mode (no Doris FE is configured); it has ${INFORMATION_SCHEMA_TABLES.join(', ')}`,
    );
  }
  const table = `${INFORMATION_SCHEMA}.${upper}`;
  const databases = requiredValues(where, def.schemaColumn);
  if (upper === 'SCHEMATA') {
    const rows = (await selectedDatabases(catalog, databases)).map((d): TextRow => [catalog.name, d, CHARSET, COLLATION, null, 'NO']);
    return { name: table, columns: columnSpecs(def.columns), rows };
  }
  const tables = def.tableColumn === null ? null : requiredValues(where, def.tableColumn);
  const meta = await loadTables(catalog, { databases, tables, snapshots: def.snapshots === true });
  return { name: table, columns: columnSpecs(def.columns), rows: def.rows(meta) };
}
