/**
 * The contract between the connection layer (src/session/: the command phase owns the wire
 * encoding) and the router (router.ts, which decides what a statement is). The router never
 * touches bytes; the session never interprets SQL.
 */

/** What the router may read and update about one client connection. */
export interface SessionView {
  /** The id the client sees in the greeting (the FE's own id when there is an upstream). */
  readonly connectionId: number;
  readonly user: string;
  /** "ip:port" of the client (the real one, also when PROXY protocol is sent upstream). */
  readonly clientAddress: string;
  /** True when no upstream FE is configured. */
  readonly standalone: boolean;
  /** Current catalog as the FE would have it (`SWITCH`); null means Doris's default `internal`. */
  currentCatalog: string | null;
  /** Current database (`USE`, COM_INIT_DB). */
  currentDatabase: string | null;
}

export type { ColumnSpec, ColumnType, LocalReply, TextRow, Warning } from '../../procedures/framework/reply.js';
import type { LocalReply } from '../../procedures/framework/reply.js';

/**
 * A statement's route. 'forward': send the client's packet upstream unchanged; when the
 * upstream answers OK, call afterOk (e.g. to mirror `USE db`). 'local': the proxy answers
 * with the replies in order. For a CALL the list is [resultset..., ok]: the session sets
 * SERVER_MORE_RESULTS_EXISTS on every reply but the last, as MySQL does for CALL.
 */
export type Route =
  | { kind: 'forward'; afterOk?: (session: SessionView) => void }
  | { kind: 'local'; run: (signal: AbortSignal) => Promise<LocalReply[]> };

export interface StatementRouter {
  /**
   * Decide the route of one COM_QUERY text. Must be cheap for statements that are not CALL.
   * A route() that throws, or a local run that rejects, is answered with ER_UNKNOWN_ERROR by
   * the session (src/session/command-phase.ts), and the connection stays usable.
   */
  route(sql: string, session: SessionView): Route;
  /**
   * Whether a statement that the prefilter classifies as 'other' (read from its bytes) would be
   * forwarded unchanged for this session, so the session may forward it without decoding it or
   * calling route(). Absent: always route.
   */
  forwardsOther?(session: SessionView): boolean;
}
