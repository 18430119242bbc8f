/**
 * A table the proxy answers from metadata (information_schema, Paimon system tables): typed
 * columns and rows already rendered as MySQL text values, the shape a SELECT over it is
 * evaluated on (select-query.ts) and a result set is sent as.
 */
import type { ColumnSpec, TextRow } from '../route.js';

export interface VirtualTable {
  /** The name it is known by in messages (`information_schema.COLUMNS`, `demo.orders$snapshots`). */
  name: string;
  columns: ColumnSpec[];
  rows: TextRow[];
}

/** Columns whose values compare as numbers (the rest compare as text). */
export function isNumericColumn(c: ColumnSpec): boolean {
  return c.type === 'bigint' || c.type === 'int' || c.type === 'double' || c.type === 'decimal' || c.type === 'boolean';
}
