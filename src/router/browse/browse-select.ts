/**
 * A standalone SELECT that reads a table: over information_schema (`[catalog.]information_schema.X`)
 * or a Paimon system table (`[catalog.][db.]tbl$snapshots`, `tbl$branch_b$tags`, ...). A data
 * table's rows need a Doris FE: that is STANDALONE_UNSUPPORTED, saying what can be read instead.
 */
import { ProcedureError } from '../../../procedures/framework/errors.js';
import { parseObjectName } from '../../paimon/catalog/identifier.js';
import type { LocalReply } from '../route.js';
import { INFORMATION_SCHEMA, INFORMATION_SCHEMA_TABLES, informationSchemaTable } from './information-schema.js';
import { evaluateSelect, parseSelectQuery, type Condition, type TableName } from './select-query.js';
import { SYSTEM_TABLE_NAMES, systemTable } from './system-tables.js';
import { requireDatabase, resolveCatalog, resolveDatabase, type BrowseContext } from './table-resolution.js';
import type { VirtualTable } from './virtual-table.js';

export async function answerSelect(sql: string, ctx: BrowseContext): Promise<LocalReply> {
  const q = parseSelectQuery(sql);
  const table = await readTable(q.from, q.where, ctx);
  const { columns, rows } = evaluateSelect(q, table);
  return { kind: 'resultset', columns, rows };
}

async function readTable(from: TableName, where: Condition | null, ctx: BrowseContext): Promise<VirtualTable> {
  const isInformationSchema = (from.db ?? (from.catalog === null ? ctx.currentDatabase : null))?.toLowerCase() === INFORMATION_SCHEMA;
  if (!isInformationSchema && !from.table.includes('$')) {
    // A data table's rows are the FE's to read, whichever catalog or database it is in.
    const written = [from.catalog, from.db, from.table].filter((p) => p !== null).join('.');
    throw new ProcedureError(
      'STANDALONE_UNSUPPORTED',
      `No Doris FE is configured, so the rows of ${written} cannot be read here. This proxy runs CALL <catalog>.sys.<procedure>(...) ` +
        `and answers information_schema (${INFORMATION_SCHEMA_TABLES.join(', ')}), SHOW COLUMNS / KEYS / CREATE TABLE / TABLE STATUS, ` +
        `and the system tables ${SYSTEM_TABLE_NAMES.map((s) => `${from.table}$${s}`).join(', ')}.`,
    );
  }
  const catalog = resolveCatalog(ctx, from.catalog);
  const db = resolveDatabase(ctx, catalog, from.db);
  if (isInformationSchema) {
    if (from.at !== undefined) throw new ProcedureError('NOT_SUPPORTED', `FOR VERSION AS OF does not apply to information_schema.${from.table}; it applies to a $files system table`);
    return informationSchemaTable(from.table, catalog, where);
  }
  await requireDatabase(catalog, db);
  const id = parseObjectName(db, from.table);
  if (id.systemTable === undefined) throw new ProcedureError('INVALID_ARGUMENT', `${db}.${from.table} names a branch, not a system table: add $snapshots, $tags, ... to it`);
  const t = await catalog.getTable({ database: id.database, table: id.table, ...(id.branch !== undefined ? { branch: id.branch } : {}) });
  return systemTable(t, id.systemTable, from.at ?? null);
}
