/**
 * The replies a CALL produces, independent of the wire: result sets of typed columns with
 * rows already rendered as MySQL text values, the final OK (info text, warnings) or an error
 * with its errno and SQLSTATE. The proxy's session encodes them for the client's
 * capabilities (src/session/local-reply.ts).
 */

/** Column types of locally produced result sets; the session maps them to MySQL column types. */
export type ColumnType = 'string' | 'bigint' | 'int' | 'boolean' | 'double' | 'decimal' | 'datetime' | 'json';

export interface ColumnSpec {
  name: string;
  type: ColumnType;
}

/** Values are already rendered as MySQL text-protocol strings; null is SQL NULL. */
export type TextRow = (string | null)[];

export type LocalReply =
  | { kind: 'ok'; affectedRows?: number; info?: string; warnings?: Warning[] }
  | { kind: 'error'; errno: number; sqlState: string; message: string }
  | { kind: 'resultset'; columns: ColumnSpec[]; rows: TextRow[] };

export interface Warning {
  level: 'Note' | 'Warning' | 'Error';
  code: number;
  message: string;
}

