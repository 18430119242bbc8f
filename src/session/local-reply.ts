/**
 * Encodes the router's LocalReply list (src/router/route.ts) as the packets of one command response,
 * following the session's negotiated flags: EOF or 0xFE-OK terminators (CLIENT_DEPRECATE_EOF),
 * SERVER_MORE_RESULTS_EXISTS on every reply but the last (as MySQL answers a CALL), status flags
 * copied from what the upstream last reported, sequence ids from 1 (the command was 0).
 */
import {
  BINARY_FLAG,
  BLOB_FLAG,
  CHARSET_BINARY,
  CHARSET_UTF8MB4_GENERAL_CI,
  CLIENT_MULTI_RESULTS,
  MYSQL_TYPE_BLOB,
  MYSQL_TYPE_DATETIME,
  MYSQL_TYPE_DOUBLE,
  MYSQL_TYPE_LONG,
  MYSQL_TYPE_LONGLONG,
  MYSQL_TYPE_NEWDECIMAL,
  MYSQL_TYPE_TINY,
  MYSQL_TYPE_VAR_STRING,
  SERVER_MORE_RESULTS_EXISTS,
} from '../../protocol/constants.js';
import { buildErr, buildOk } from '../../protocol/generic-response.js';
import { binaryResultSetPayloads } from '../../protocol/prepared-statement.js';
import { framePayloads, textResultSetPayloads, type ColumnDefinition } from '../../protocol/result-set.js';
import type { ColumnSpec, ColumnType, LocalReply } from '../router/route.js';

interface TypeInfo {
  type: number;
  characterSet: number;
  flags: number;
  columnLength: number;
  decimals: number;
}

/**
 * ColumnType -> MySQL column type. JSON goes out as TEXT: MariaDB clients have no JSON type.
 * Text columns say utf8mb4: the values are UTF-8 of any code point, and clients decode a
 * 3-byte utf8 charset (33) as CESU-8, which garbles characters outside the BMP (mysql2 does).
 */
const TYPES: Record<ColumnType, TypeInfo> = {
  string: { type: MYSQL_TYPE_VAR_STRING, characterSet: CHARSET_UTF8MB4_GENERAL_CI, flags: 0, columnLength: 65535 * 3, decimals: 0x1f },
  bigint: { type: MYSQL_TYPE_LONGLONG, characterSet: CHARSET_BINARY, flags: BINARY_FLAG, columnLength: 20, decimals: 0 },
  int: { type: MYSQL_TYPE_LONG, characterSet: CHARSET_BINARY, flags: BINARY_FLAG, columnLength: 11, decimals: 0 },
  boolean: { type: MYSQL_TYPE_TINY, characterSet: CHARSET_BINARY, flags: BINARY_FLAG, columnLength: 1, decimals: 0 },
  double: { type: MYSQL_TYPE_DOUBLE, characterSet: CHARSET_BINARY, flags: BINARY_FLAG, columnLength: 22, decimals: 0x1f },
  decimal: { type: MYSQL_TYPE_NEWDECIMAL, characterSet: CHARSET_BINARY, flags: BINARY_FLAG, columnLength: 66, decimals: 0x1f },
  datetime: { type: MYSQL_TYPE_DATETIME, characterSet: CHARSET_BINARY, flags: BINARY_FLAG, columnLength: 26, decimals: 6 },
  json: { type: MYSQL_TYPE_BLOB, characterSet: CHARSET_UTF8MB4_GENERAL_CI, flags: BLOB_FLAG, columnLength: 0xffffffff, decimals: 0 },
};

export function columnDefinition(c: ColumnSpec): ColumnDefinition {
  const t = TYPES[c.type];
  if (!t) throw new RangeError(`unknown column type ${String(c.type)}`);
  return { schema: '', table: '', orgTable: '', name: c.name, orgName: c.name, ...t };
}

export interface ReplyContext {
  capabilities: number;
  /** Status flags the upstream last reported (or the standalone session's own). */
  statusFlags: number;
  /** Binary protocol rows (the answer to COM_STMT_EXECUTE). */
  binary?: boolean;
}

/**
 * The payloads of a whole response. An ERR ends the response (nothing after it is sent).
 * A client without CLIENT_MULTI_RESULTS cannot take several results: it gets the last result
 * set (or the last reply when there is none).
 */
export function localReplyPayloads(replies: readonly LocalReply[], ctx: ReplyContext): Buffer[] {
  let list = replies.length > 0 ? [...replies] : [{ kind: 'ok' } as LocalReply];
  const errAt = list.findIndex((r) => r.kind === 'error');
  if (errAt >= 0) list = list.slice(0, errAt + 1);
  if (list.length > 1 && !(ctx.capabilities & CLIENT_MULTI_RESULTS)) {
    const lastRs = [...list].reverse().find((r) => r.kind === 'resultset');
    list = [errAt >= 0 ? list[list.length - 1] : (lastRs ?? list[list.length - 1])];
  }
  const base = ctx.statusFlags & ~SERVER_MORE_RESULTS_EXISTS;
  const out: Buffer[] = [];
  list.forEach((r, i) => {
    const more = i < list.length - 1;
    const status = more ? base | SERVER_MORE_RESULTS_EXISTS : base;
    switch (r.kind) {
      case 'ok':
        out.push(buildOk(ctx.capabilities, { affectedRows: r.affectedRows ?? 0, statusFlags: status, warnings: r.warnings?.length ?? 0, info: r.info ?? '' }));
        break;
      case 'error':
        out.push(buildErr({ errno: r.errno, sqlState: r.sqlState, message: r.message }));
        break;
      case 'resultset':
        out.push(
          ...(ctx.binary ? binaryResultSetPayloads : textResultSetPayloads)(r.columns.map(columnDefinition), r.rows, {
            capabilities: ctx.capabilities,
            statusFlags: base,
            moreResults: more,
          }),
        );
        break;
    }
  });
  return out;
}

/**
 * The framed bytes of a whole local response: sequence ids from 1 (the command was 0), or from
 * `firstSeq` when progress reports went first.
 */
export function encodeLocalReplies(replies: readonly LocalReply[], ctx: ReplyContext, firstSeq = 1): Buffer {
  return framePayloads(localReplyPayloads(replies, ctx), firstSeq).bytes;
}
