/**
 * The router: decides for each COM_QUERY whether the proxy answers it or the FE does.
 *
 * With an upstream FE, a statement is intercepted only when it is
 * `CALL <catalog>.sys.<procedure>(...)` for a configured Paimon catalog, or
 * `CALL sys.<procedure>(...)` while the session's current catalog is one. Every other
 * statement, other CALLs included (Doris's own, MariaDB's `sys` schema procedures), is
 * forwarded unchanged. `USE` and `SWITCH` are forwarded and mirrored once the FE says OK, so
 * the proxy knows the current catalog and database as the FE does. `KILL` of a connection
 * whose procedure the proxy is running stops that procedure (mysql-protocol.md §5.2).
 *
 * Without an FE (standalone), the router answers everything itself (standalone-responder.ts).
 *
 * The hot path (a forwarded statement) is the prefilter plus returning a shared route object.
 */
import { randomUUID } from 'node:crypto';
import type { CallRequest, ProcedureExecutor } from '../../procedures/framework/executor.js';
import { CancellationRegistry } from '../../procedures/framework/cancellation.js';
import { ProcedureError, toProcedureError } from '../../procedures/framework/errors.js';
import type { CallerInfo, ProcedureLogger } from '../../procedures/framework/context.js';
import { parseCallArguments, parseCallName, ParseError, type CallName } from './call-parser.js';
import type { LocalReply, Route, SessionView, StatementRouter } from './route.js';
import { Lexer, isKeyword } from './sql-lexer.js';
import { classifyStatement } from './statement-prefilter.js';
import { maskText } from '../security/masking.js';
import { newStandaloneState, rememberWarnings, respondStandalone, type StandaloneEnv, type StandaloneSessionState } from './standalone-responder.js';

const FORWARD: Route = { kind: 'forward' };

/** Sessions the router can reach by id (WIRE's connection table), for KILL in standalone mode. */
export interface ConnectionDirectory {
  /** True when a connection with this id exists in this proxy. */
  has(connectionId: number): boolean;
  /** Close the connection (KILL CONNECTION); its running call, if any, is aborted first by the router. */
  close(connectionId: number): void;
  /** The user of a connection, for the KILL ownership check (undefined if unknown). */
  userOf?(connectionId: number): string | undefined;
}

export interface RouterOptions {
  executor: ProcedureExecutor;
  /** Current catalog of a session whose catalog is unset (standalone sessions start here). */
  defaultCatalog: string | null;
  connections?: ConnectionDirectory;
  logger?: ProcedureLogger;
  /**
   * Optional decision for KILL before the router's own (issue 6: async jobs, replicas).
   * Return a Route to take over, or null to let the router decide.
   */
  onKill?: (target: number, mode: 'query' | 'connection', session: SessionView) => Route | null;
  /** Issue 6: `async => true` calls are submitted as jobs (src/observability/ops-runtime.ts). */
  asyncCalls?: {
    isAsync(req: CallRequest): boolean;
    submit(req: CallRequest, caller: CallerInfo): Promise<LocalReply[]>;
  };
  /**
   * The running-calls registry (procedures/framework/cancellation.ts): the one record of which
   * connection runs which CALL, shared with the ops runtime. Default: the router's own.
   */
  calls?: CancellationRegistry;
}

/** Reason given to the AbortController when a KILL stops a call. */
export class KilledReason extends Error {
  constructor(by: number, mode: 'query' | 'connection') {
    super(`stopped by KILL ${mode === 'query' ? 'QUERY' : 'CONNECTION'} from connection ${by}`);
    this.name = 'KilledReason';
  }
}

function errorReply(e: { errno: number; sqlState: string; message: string }): LocalReply {
  return { kind: 'error', errno: e.errno, sqlState: e.sqlState, message: e.message };
}

export class Router implements StatementRouter {
  private readonly executor: ProcedureExecutor;
  private readonly opts: RouterOptions;
  /** What runs now, by connection: the single source of truth for KILL and `isRunning`. */
  readonly calls: CancellationRegistry;
  private readonly standaloneStates = new WeakMap<SessionView, StandaloneSessionState>();
  private readonly standaloneEnv: StandaloneEnv;

  constructor(opts: RouterOptions) {
    this.opts = opts;
    this.executor = opts.executor;
    this.calls = opts.calls ?? new CancellationRegistry();
    this.standaloneEnv = {
      catalogs: this.executor.catalogs,
      registry: this.executor.registry,
      currentCatalog: (s) => this.currentCatalog(s),
      state: (s) => this.standaloneState(s),
      kill: (target, mode, session) => this.killLocal(target, mode, session) ?? this.killUnknown(target, mode, session),
    };
  }

  route(sql: string, session: SessionView): Route {
    const kind = classifyStatement(sql);
    if (kind === 'other' && !session.standalone) return FORWARD;
    try {
      if (kind === 'call') {
        const r = this.routeCall(sql, session);
        if (r !== null) return r;
      } else if (!session.standalone) {
        if (kind === 'use') return this.routeUse(sql);
        if (kind === 'switch') return this.routeSwitch(sql);
        if (kind === 'kill') return this.routeKill(sql, session) ?? FORWARD;
        if (kind === 'set') return this.routeSet(sql);
      } else if (kind === 'kill' && this.opts.onKill) {
        const k = parseKill(sql);
        const r = k === null ? null : this.opts.onKill(k.target, k.mode, session);
        if (r !== null) return r;
      }
      if (!session.standalone) return FORWARD;
      return { kind: 'local', run: () => respondStandalone(sql, session, this.standaloneEnv) };
    } catch (e) {
      // The router must never throw into the session; a bug here answers one statement with
      // an error and leaves the connection usable.
      const err = toProcedureError(e);
      this.opts.logger?.error({ err: e }, 'router failed');
      return { kind: 'local', run: async () => [errorReply({ errno: err.errno, sqlState: err.sqlState, message: maskText(err.message) })] };
    }
  }

  /**
   * COM_INIT_DB (not a COM_QUERY): the session calls this with the schema name. Doris
   * accepts `catalog.db` there too. Forwarded with an upstream; answered locally alone.
   */
  initDb(schema: string, session: SessionView): Route {
    const dot = schema.indexOf('.');
    const catalog = dot > 0 ? schema.slice(0, dot) : null;
    const db = dot > 0 ? schema.slice(dot + 1) : schema;
    if (!session.standalone) {
      return { kind: 'forward', afterOk: (s) => this.applyUse(s, catalog, db) };
    }
    const quoted = (n: string): string => '`' + n.replace(/`/g, '``') + '`';
    const sql = `USE ${catalog !== null ? `${quoted(catalog)}.` : ''}${quoted(db)}`;
    return { kind: 'local', run: () => respondStandalone(sql, session, this.standaloneEnv) };
  }

  /**
   * Forget what the router keeps for a session (standalone variables, warnings, last database
   * per catalog). The session calls this after COM_RESET_CONNECTION and COM_CHANGE_USER.
   */
  resetSession(session: SessionView): void {
    this.standaloneStates.delete(session);
  }

  /**
   * A user variable of the session as the proxy knows it: every one in standalone mode, and
   * those named `@paimon_*` (e.g. `@paimon_call_timeout`) that the FE accepted with an upstream.
   * undefined when never set.
   */
  userVariable(session: SessionView, name: string): string | null | undefined {
    return this.standaloneStates.get(session)?.userVars.get(name.toLowerCase());
  }

  /** Whether the proxy is running a procedure for this connection (for KILL and tests). */
  isRunning(connectionId: number): boolean {
    return this.calls.isRunning(connectionId);
  }

  /** Stop the procedure running for a connection (client disconnect, KILL). True if there was one. */
  abortCall(connectionId: number, reason: Error): boolean {
    return this.calls.abort(connectionId, reason);
  }

  // ------------------------------------------------------------------------------------------

  /** The session's current catalog; an unset catalog is the default one in standalone mode. */
  currentCatalog(session: SessionView): string | null {
    if (session.currentCatalog !== null) return session.currentCatalog;
    return session.standalone ? this.opts.defaultCatalog : null;
  }

  private standaloneState(session: SessionView): StandaloneSessionState {
    let s = this.standaloneStates.get(session);
    if (s === undefined) {
      s = newStandaloneState();
      this.standaloneStates.set(session, s);
    }
    return s;
  }

  /** The catalog an intercepted CALL runs in, or null when the CALL is not ours. */
  interceptCatalog(name: CallName, session: SessionView): string | null {
    const p = name.parts;
    const catalogs = this.executor.catalogs;
    if (p.length === 3) {
      return p[1]!.toLowerCase() === 'sys' && catalogs.get(p[0]!) !== undefined ? p[0]! : null;
    }
    if (p.length === 2 && p[0]!.toLowerCase() === 'sys') {
      const cur = this.currentCatalog(session);
      return cur !== null && catalogs.get(cur) !== undefined ? cur : null;
    }
    return null;
  }

  private routeCall(sql: string, session: SessionView): Route | null {
    const name = parseCallName(sql);
    if (name === null) return null;
    const catalog = this.interceptCatalog(name, session);
    if (catalog === null) return null;
    return {
      kind: 'local',
      run: async (signal) => {
        const replies = await this.runCall(sql, name, catalog, session, signal);
        if (session.standalone) rememberWarnings(this.standaloneState(session), replies);
        return replies;
      },
    };
  }

  private async runCall(sql: string, name: CallName, catalog: string, session: SessionView, signal: AbortSignal): Promise<LocalReply[]> {
    const procedure = name.parts[name.parts.length - 1]!;
    const caller: CallerInfo = {
      user: session.user,
      connectionId: session.connectionId,
      clientAddress: session.clientAddress,
      // The session's database belongs to its current catalog; in another catalog it means nothing.
      currentDatabase: this.currentCatalog(session) === catalog ? session.currentDatabase : null,
    };
    let args;
    try {
      args = parseCallArguments(sql, name);
    } catch (e) {
      // An intercepted CALL whose arguments do not parse is answered with the parse error and
      // audited like every other intercepted CALL (the executor's reject path).
      if (e instanceof ParseError) return (await this.executor.reject({ catalog, procedure, args: [], statement: sql }, caller, new ProcedureError(e.errno === 1235 ? 'MULTI_STATEMENT' : 'PARSE_ERROR', e.message))).replies;
      throw e;
    }
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const queryId = randomUUID();
    const req: CallRequest = { catalog, procedure, args, statement: sql, queryId };
    const submitsJob = this.opts.asyncCalls?.isAsync(req) === true;
    const untrack = this.calls.track(
      { connectionId: session.connectionId, queryId, procedure: procedure.toLowerCase(), user: session.user, catalog, clientAddress: session.clientAddress, ...(submitsJob ? { submitsJob } : {}) },
      controller,
    );
    // The procedure's progress goes on the call's entry, where list_jobs / job_status of other sessions read it.
    if (!submitsJob) req.onProgress = (u) => this.calls.progress(queryId, u);
    try {
      if (submitsJob && this.opts.asyncCalls) {
        try {
          return await this.opts.asyncCalls.submit(req, caller);
        } catch (e) {
          // The job could not be submitted (shutting down, grants unreadable): answered and audited here.
          return (await this.executor.reject(req, caller, e)).replies;
        }
      }
      return await this.executor.execute(req, caller, controller.signal);
    } finally {
      signal.removeEventListener('abort', onAbort);
      untrack();
    }
  }

  // ------------------------------------------------------------------------------------------
  // USE / SWITCH mirroring (upstream mode)

  private applyUse(session: SessionView, catalog: string | null, db: string): void {
    if (catalog !== null) session.currentCatalog = catalog;
    session.currentDatabase = db;
    const cat = catalog ?? session.currentCatalog;
    if (cat !== null) this.lastDbOfCatalog(session).set(cat, db);
  }

  private lastDbOfCatalog(session: SessionView): Map<string, string> {
    return this.standaloneState(session).lastDbOfCatalog;
  }

  private routeUse(sql: string): Route {
    const parsed = parseUse(sql);
    if (parsed === null) return FORWARD;
    return { kind: 'forward', afterOk: (s) => this.applyUse(s, parsed.catalog, parsed.db) };
  }

  private routeSwitch(sql: string): Route {
    const cat = parseSwitch(sql);
    if (cat === null) return FORWARD;
    return {
      kind: 'forward',
      afterOk: (s) => {
        // Doris restores the database last used in that catalog (ConnectContext.changeDefaultCatalog).
        s.currentCatalog = cat;
        s.currentDatabase = this.lastDbOfCatalog(s).get(cat) ?? null;
      },
    };
  }

  /** `SET @paimon_x = literal, ...`: forwarded, mirrored once the FE says OK. Other SETs cost one regex test. */
  private routeSet(sql: string): Route {
    if (!/@paimon_/i.test(sql)) return FORWARD;
    const assignments = parseUserVariableSet(sql);
    if (assignments === null) return FORWARD;
    return {
      kind: 'forward',
      afterOk: (s) => {
        const vars = this.standaloneState(s).userVars;
        for (const [name, value] of assignments) vars.set(name.toLowerCase(), value);
      },
    };
  }

  // ------------------------------------------------------------------------------------------
  // KILL

  private routeKill(sql: string, session: SessionView): Route | null {
    const k = parseKill(sql);
    if (k === null) return null;
    if (this.opts.onKill) {
      const r = this.opts.onKill(k.target, k.mode, session);
      if (r !== null) return r;
    }
    const running = this.calls.of(k.target);
    if (running.length === 0) return null;
    if (running.some((r) => r.user !== session.user)) {
      return { kind: 'local', run: async () => [errorReply({ errno: 1095, sqlState: 'HY000', message: `You are not owner of thread ${k.target}` })] };
    }
    this.calls.kill(k.target, k.mode, session.connectionId, new KilledReason(session.connectionId, k.mode));
    // KILL QUERY is answered here (the FE has nothing running for that connection); KILL
    // CONNECTION also goes to the FE so that it closes the victim's upstream connection.
    return k.mode === 'query' ? { kind: 'local', run: async () => [{ kind: 'ok' }] } : FORWARD;
  }

  private killLocal(target: number, mode: 'query' | 'connection', session: SessionView): LocalReply | null {
    const running = this.calls.of(target);
    if (running.length === 0) return null;
    if (running.some((r) => r.user !== session.user)) return errorReply({ errno: 1095, sqlState: 'HY000', message: `You are not owner of thread ${target}` });
    this.calls.kill(target, mode, session.connectionId, new KilledReason(session.connectionId, mode));
    if (mode === 'connection') this.opts.connections?.close(target);
    return { kind: 'ok' };
  }

  /** Standalone KILL of a connection that runs no procedure. */
  private killUnknown(target: number, mode: 'query' | 'connection', session: SessionView): LocalReply {
    const dir = this.opts.connections;
    if (dir?.has(target) || target === session.connectionId) {
      const owner = dir?.userOf?.(target) ?? (target === session.connectionId ? session.user : undefined);
      if (owner !== undefined && owner !== session.user) return errorReply({ errno: 1095, sqlState: 'HY000', message: `You are not owner of thread ${target}` });
      if (mode === 'connection') dir?.close(target);
      return { kind: 'ok' };
    }
    const e = new ProcedureError('NO_SUCH_THREAD', `Unknown thread id: ${target}`);
    return errorReply(e);
  }
}

// --------------------------------------------------------------------------------------------
// Small statement readers (null: not understood, so forward and do not mirror)

function tokens(sql: string): Lexer | null {
  try {
    const lx = new Lexer(sql);
    lx.peek();
    return lx;
  } catch {
    return null;
  }
}

function atEnd(lx: Lexer): boolean {
  let t = lx.next();
  if (t.kind === 'punct' && t.value === ';') t = lx.next();
  return t.kind === 'eof';
}

/** `USE db` or `USE catalog.db`. */
export function parseUse(sql: string): { catalog: string | null; db: string } | null {
  try {
    const lx = tokens(sql);
    if (lx === null || !isKeyword(lx.next(), 'USE')) return null;
    const a = lx.next();
    if (a.kind !== 'ident') return null;
    const dot = lx.peek();
    if (dot.kind === 'punct' && dot.value === '.') {
      lx.next();
      const b = lx.next();
      if (b.kind !== 'ident' || !atEnd(lx)) return null;
      return { catalog: a.value, db: b.value };
    }
    return atEnd(lx) ? { catalog: null, db: a.value } : null;
  } catch {
    return null;
  }
}

/** `SWITCH catalog` (Doris). */
export function parseSwitch(sql: string): string | null {
  try {
    const lx = tokens(sql);
    if (lx === null || !isKeyword(lx.next(), 'SWITCH')) return null;
    const a = lx.next();
    if (a.kind !== 'ident' || !atEnd(lx)) return null;
    return a.value;
  } catch {
    return null;
  }
}

/**
 * `SET @a = <literal> [, @b = <literal>]`: the user-variable assignments whose names start with
 * `paimon_`, or null when the statement is anything else (then nothing is mirrored).
 */
export function parseUserVariableSet(sql: string): [string, string | null][] | null {
  try {
    const lx = tokens(sql);
    if (lx === null || !isKeyword(lx.next(), 'SET')) return null;
    const out: [string, string | null][] = [];
    for (;;) {
      const at = lx.next();
      if (!(at.kind === 'punct' && at.value === '@')) return null;
      const name = lx.next();
      if (name.kind !== 'ident') return null;
      const eq = lx.next();
      if (!(eq.kind === 'punct' && (eq.value === '=' || eq.value === ':='))) return null;
      let v = lx.next();
      let sign = '';
      if (v.kind === 'punct' && v.value === '-') {
        sign = '-';
        v = lx.next();
      }
      let value: string | null;
      if (v.kind === 'string' && sign === '') value = v.value;
      else if (v.kind === 'number') value = sign + v.text;
      else if (isKeyword(v, 'NULL') && sign === '') value = null;
      else return null;
      if (name.value.toLowerCase().startsWith('paimon_')) out.push([name.value, value]);
      const sep = lx.peek();
      if (sep.kind === 'punct' && sep.value === ',') {
        lx.next();
        continue;
      }
      return atEnd(lx) ? out : null;
    }
  } catch {
    return null;
  }
}

/** `KILL [QUERY | CONNECTION] <id>` with a numeric id (a quoted Doris query id is not ours). */
export function parseKill(sql: string): { target: number; mode: 'query' | 'connection' } | null {
  try {
    const lx = tokens(sql);
    if (lx === null || !isKeyword(lx.next(), 'KILL')) return null;
    let mode: 'query' | 'connection' = 'connection';
    let t = lx.next();
    if (isKeyword(t, 'QUERY')) {
      mode = 'query';
      t = lx.next();
    } else if (isKeyword(t, 'CONNECTION')) {
      t = lx.next();
    }
    if (t.kind !== 'number' || !t.integer || !atEnd(lx)) return null;
    const id = BigInt(t.text);
    if (id < 0n || id > 0xffffffffn) return null;
    return { target: Number(id), mode };
  } catch {
    return null;
  }
}
