/**
 * `paimon-procedure-proxy call "<CALL ...>" [--config FILE] [--warehouse DIR] [--json]`:
 * runs one procedure against the configured catalogs without a server, with the same parser,
 * binding, executor and error codes as a CALL through the proxy. Prints the result as a
 * table (like the mysql CLI) or as JSON; on failure prints `ERROR <errno> (<SQLSTATE>) [<code>]:
 * <message>` (or a JSON error object) on stderr and exits non-zero. Ctrl-C stops the
 * procedure cleanly (QUERY_INTERRUPTED, saying whether anything was committed).
 */
import { maskText } from './security/masking.js';
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { ProcedureExecutor, type CallOutcome } from '../procedures/framework/executor.js';
import { createDefaultRegistry } from '../procedures/index.js';
import type { ProcedureRegistry } from '../procedures/framework/registry.js';
import type { CallerInfo } from '../procedures/framework/context.js';
import { parseCall, ParseError } from './router/call-parser.js';
import { buildCatalogs } from './catalogs.js';
import { ER_PARSE_ERROR, ER_SP_DOES_NOT_EXIST, ER_UNKNOWN_ERROR } from '../protocol/constants.js';
import type { ProxyConfig } from './config-schema.js';
import type { ColumnSpec, LocalReply, TextRow, Warning } from './router/route.js';

export interface CallCommandIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Aborts the call (the CLI wires SIGINT to it). */
  signal?: AbortSignal;
  registry?: ProcedureRegistry;
}

/** Exit codes: 0 success, 1 the call failed, 2 usage error. */
export async function runCallCommand(argv: string[], config: ProxyConfig, io?: CallCommandIO): Promise<number> {
  const out = io?.stdout ?? ((s: string) => void process.stdout.write(s));
  const err = io?.stderr ?? ((s: string) => void process.stderr.write(s));
  let values: { json?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: { config: { type: 'string' }, warehouse: { type: 'string' }, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: true,
    }));
  } catch (e) {
    err(`paimon-procedure-proxy call: ${e instanceof Error ? e.message : String(e)}\n`);
    return 2;
  }
  if (positionals.length !== 1) {
    err(`paimon-procedure-proxy call: expected exactly one statement, e.g. call "CALL paimon.sys.expire_snapshots(table => 'db.t')"\n`);
    return 2;
  }
  const json = values.json === true;
  const sql = positionals[0]!;
  const fail = (error: { errno: number; sqlState: string; message: string; code?: string }): number => {
    const e = { ...error, message: maskText(error.message) };
    if (json) err(JSON.stringify({ error: { code: e.code ?? null, errno: e.errno, sqlState: e.sqlState, message: e.message } }) + '\n');
    else err(`ERROR ${e.errno} (${e.sqlState})${e.code ? ` [${e.code}]` : ''}: ${e.message}\n`);
    return 1;
  };

  let parsed;
  try {
    parsed = parseCall(sql);
  } catch (e) {
    if (e instanceof ParseError) return fail({ errno: e.errno, sqlState: e.sqlState, message: e.message, code: e.errno === ER_PARSE_ERROR ? 'PARSE_ERROR' : 'MULTI_STATEMENT' });
    throw e;
  }

  let catalogs;
  try {
    catalogs = buildCatalogs(config);
  } catch (e) {
    return fail({ errno: ER_UNKNOWN_ERROR, sqlState: 'HY000', code: 'INTERNAL_ERROR', message: e instanceof Error ? e.message : String(e) });
  }
  const names = catalogs.names();
  let catalog: string | null = null;
  if (parsed.namespace !== null && parsed.namespace.toLowerCase() === 'sys') {
    catalog = parsed.catalog ?? catalogs.defaultName();
  }
  if (catalog === null || catalogs.get(catalog) === undefined) {
    const what = catalog === null ? 'it is not a Paimon procedure call' : `catalog '${catalog}' is not configured`;
    return fail({
      errno: ER_SP_DOES_NOT_EXIST,
      sqlState: '42000',
      code: catalog === null ? 'PROCEDURE_NOT_FOUND' : 'CATALOG_NOT_FOUND',
      message: `Cannot run '${sql.trim()}': ${what}. Use CALL [catalog.]sys.<procedure>(...) with catalog ${names.map((n) => `'${n}'`).join(', ') || '(none configured)'}`,
    });
  }

  const executor = new ProcedureExecutor({ registry: io?.registry ?? createDefaultRegistry(), catalogs, limits: config.procedures, maskMessage: maskText });
  const caller: CallerInfo = { user: safeUser(), connectionId: 0, clientAddress: 'local:cli', currentDatabase: null };
  const controller = new AbortController();
  const onSigint = (): void => controller.abort(new Error('interrupted by Ctrl-C'));
  if (io?.signal) {
    const s = io.signal;
    if (s.aborted) controller.abort(s.reason);
    else s.addEventListener('abort', () => controller.abort(s.reason), { once: true });
  } else {
    process.once('SIGINT', onSigint);
  }
  let outcome: CallOutcome;
  try {
    outcome = await executor.run({ catalog, procedure: parsed.procedure, args: parsed.args, statement: sql }, caller, controller.signal);
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
  if (!outcome.ok) {
    return fail({ errno: outcome.error.errno, sqlState: outcome.error.sqlState, code: outcome.error.code, message: outcome.error.message });
  }
  out(json ? renderJson(outcome.replies) + '\n' : renderText(outcome.replies, outcome.durationMs));
  return 0;
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'cli';
  }
}

// ---------------------------------------------------------------------------------------------
// Output

function typedValue(col: ColumnSpec, v: string | null): string | number | boolean | null {
  if (v === null) return null;
  switch (col.type) {
    case 'boolean':
      return v === '1';
    case 'int':
    case 'bigint': {
      const n = Number(v);
      return Number.isSafeInteger(n) ? n : v;
    }
    case 'double':
      return Number(v);
    default:
      return v;
  }
}

export function renderJson(replies: readonly LocalReply[]): string {
  const rs = replies.find((r): r is Extract<LocalReply, { kind: 'resultset' }> => r.kind === 'resultset');
  const ok = replies.find((r): r is Extract<LocalReply, { kind: 'ok' }> => r.kind === 'ok');
  return JSON.stringify({
    columns: rs ? rs.columns : [],
    rows: rs ? rs.rows.map((row) => Object.fromEntries(rs.columns.map((c, i) => [c.name, typedValue(c, row[i] ?? null)]))) : [],
    info: ok?.info ?? null,
    warnings: ok?.warnings ?? [],
  });
}

/** Display width: wide (East Asian, emoji) characters take two columns. */
function width(s: string): number {
  let w = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    w += cp >= 0x1100 && (cp <= 0x115f || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0xffe0 && cp <= 0xffe6) || cp >= 0x1f300) ? 2 : 1;
  }
  return w;
}

function padCell(s: string, w: number, right: boolean): string {
  const fill = ' '.repeat(Math.max(0, w - width(s)));
  return right ? fill + s : s + fill;
}

export function renderTable(columns: readonly ColumnSpec[], rows: readonly TextRow[]): string {
  const cells = rows.map((r) => r.map((v) => (v === null ? 'NULL' : v.replace(/\n/g, '\\n'))));
  const widths = columns.map((c, i) => Math.max(width(c.name), ...cells.map((r) => width(r[i] ?? ''))));
  const numeric = columns.map((c) => c.type === 'int' || c.type === 'bigint' || c.type === 'double' || c.type === 'decimal' || c.type === 'boolean');
  const line = '+' + widths.map((w) => '-'.repeat(w + 2)).join('+') + '+\n';
  let s = line + '| ' + columns.map((c, i) => padCell(c.name, widths[i]!, false)).join(' | ') + ' |\n' + line;
  for (const r of cells) s += '| ' + r.map((v, i) => padCell(v, widths[i]!, numeric[i]!)).join(' | ') + ' |\n';
  return s + line;
}

function renderWarnings(ws: readonly Warning[]): string {
  return ws.map((w) => `${w.level} (Code ${w.code}): ${w.message}\n`).join('');
}

export function renderText(replies: readonly LocalReply[], durationMs: number): string {
  let s = '';
  const secs = (durationMs / 1000).toFixed(2);
  for (const r of replies) {
    if (r.kind === 'resultset') {
      s += r.rows.length === 0 ? `Empty set (${secs} sec)\n` : renderTable(r.columns, r.rows) + `${r.rows.length} row${r.rows.length === 1 ? '' : 's'} in set (${secs} sec)\n`;
    } else if (r.kind === 'ok') {
      if (r.info) s += `${r.info}\n`;
      if (r.warnings && r.warnings.length > 0) s += renderWarnings(r.warnings);
      if (replies.length === 1) s += `Query OK (${secs} sec)\n`;
    }
  }
  return s;
}
