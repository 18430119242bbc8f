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
 * Without an FE (standalone), the router answers everything itself (standalone-responder.ts);
 * a `[catalog.]sys.<procedure>` CALL for a catalog that is not configured is CATALOG_NOT_FOUND.
 *
 * The hot path (a forwarded statement) is the prefilter plus returning a shared route object.
 * The session statements are read by session-statement.ts, the one reader of both modes.
 */
import { randomUUID } from 'node:crypto';
import { ER_KILL_DENIED_ERROR, ER_NOT_SUPPORTED_YET } from '../../protocol/constants.js';
import type { CallOutcome, CallRequest, ProcedureExecutor } from '../../procedures/framework/executor.js';
import { CancellationRegistry, type NewRunningCall } from '../../procedures/framework/cancellation.js';
import { ProcedureError } from '../../procedures/framework/errors.js';
import type { CallerInfo } from '../../procedures/framework/context.js';
import { parseCallArguments, parseCallName, ParseError, resolveCatalogName, type CallName, type CatalogResolution } from './call-parser.js';
import type { LocalReply, Route, SessionView, StatementRouter } from './route.js';
import { isShowDiagnostics, literalValue, parseKill, parseSet, parseSwitch, parseUse, type KillStatement } from './session-statement.js';
import { classifyStatement } from './statement-prefilter.js';
import { isRefreshCatalog } from '../fe-catalogs.js';
import { parseTagBranchDdl } from './ddl/tag-branch-ddl.js';
import { planTagBranchDdl, procedureOfDdl, runDdlPlan, tableArgument } from './ddl/ddl-invocation.js';
import { newStandaloneState, rememberWarnings, respondStandalone, unknownCatalog, type StandaloneEnv, type StandaloneSessionState } from './standalone-responder.js';

const FORWARD: Route = { kind: 'forward' };
/** Connection ids are 32-bit (the greeting's thread id): a larger KILL id is not one of ours. */
const MAX_CONNECTION_ID = 0xffffffff;
/**
 * The running-calls entry of a CALL that only submits an `async => true` job: the submission
 * is not interrupted (the job, once it exists, is cancelled with cancel_job).
 */
const SUBMISSION: { abort(reason: Error): void } = { abort: () => undefined };

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
  /**
   * Optional decision for KILL before the router's own (async jobs, replicas).
   * Return a Route to take over, or null to let the router decide.
   */
  onKill?: (target: number, mode: 'query' | 'connection', session: SessionView) => Route | null;
  /** `async => true` calls are submitted as jobs (src/observability/ops-runtime.ts). */
  asyncCalls?: {
    isAsync(req: CallRequest): boolean;
    submit(req: CallRequest, caller: CallerInfo): Promise<LocalReply[]>;
  };
  /**
   * The running-calls registry (procedures/framework/cancellation.ts): the one record of which
   * connection runs which CALL, shared with the ops runtime. Default: the router's own.
   */
  calls?: CancellationRegistry;
  /** Called when the FE answers OK to a forwarded `REFRESH CATALOG` (catalogs read from the FE rediscover). */
  onCatalogRefresh?: () => void;
}

/** The abort reason of a call that a KILL stopped. */
export class KilledReason extends Error {
  constructor(by: number, mode: 'query' | 'connection') {
    super(`stopped by KILL ${mode === 'query' ? 'QUERY' : 'CONNECTION'} from connection ${by}`);
    this.name = 'KilledReason';
  }
}

function errorReply(e: { errno: number; sqlState: string; message: string }): LocalReply {
  return { kind: 'error', errno: e.errno, sqlState: e.sqlState, message: e.message };
}

/** ER_KILL_DENIED_ERROR: the KILL names another user's connection. */
function notOwner(target: number): LocalReply {
  return errorReply({ errno: ER_KILL_DENIED_ERROR, sqlState: 'HY000', message: `You are not owner of thread ${target}` });
}

/** ER_NO_SUCH_THREAD, naming the id as written. */
function unknownThread(target: number | bigint): LocalReply {
  return errorReply(new ProcedureError('NO_SUCH_THREAD', `Unknown thread id: ${target}`));
}

/** The connection id a KILL names, when this proxy could have it: within the 32-bit range. */
function connectionIdOf(target: bigint): number | null {
  return target >= 0n && target <= BigInt(MAX_CONNECTION_ID) ? Number(target) : null;
}

/** A KILL of a connection this proxy could have. */
function parseConnectionKill(sql: string): { target: number; mode: KillStatement['mode'] } | null {
  const k = parseKill(sql);
  const target = k === null ? null : connectionIdOf(k.target);
  return k === null || target === null ? null : { target, mode: k.mode };
}

export class Router implements StatementRouter {
  private readonly executor: ProcedureExecutor;
  private readonly opts: RouterOptions;
  /** What runs now, by connection: the single source of truth for KILL and `isRunning`. */
  readonly calls: CancellationRegistry;
  private readonly standaloneStates = new WeakMap<SessionView, StandaloneSessionState>();
  /**
   * Relay mode: sessions whose last statement was a CALL the proxy answered. The FE never saw
   * it, so the SHOW WARNINGS / SHOW ERRORS (and COUNT(*) forms) that follow are answered here
   * from that CALL's reply; any other statement goes to the FE and ends this.
   */
  private readonly afterLocalCall = new WeakSet<SessionView>();
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
      kill: (target, mode, session) => {
        const id = connectionIdOf(target);
        if (id === null) return unknownThread(target);
        return this.killLocal(id, mode, session) ?? this.killUnknown(id, mode, session);
      },
    };
  }

  /** With an FE, 'other' is forwarded, except right after a local CALL (SHOW WARNINGS is ours then). */
  forwardsOther(session: SessionView): boolean {
    return !session.standalone && !this.afterLocalCall.has(session);
  }

  route(sql: string, session: SessionView): Route {
    const kind = classifyStatement(sql);
    if (!session.standalone && this.afterLocalCall.has(session)) {
      if (kind === 'other' && isShowDiagnostics(sql)) return { kind: 'local', run: () => respondStandalone(sql, session, this.standaloneEnv) };
      this.afterLocalCall.delete(session);
    }
    if (kind === 'other' && !session.standalone) return FORWARD;
    if (kind === 'refresh' && !session.standalone) {
      const refresh = this.opts.onCatalogRefresh;
      return refresh !== undefined && isRefreshCatalog(sql) ? { kind: 'forward', afterOk: () => refresh() } : FORWARD;
    }
    if (kind === 'alter') {
      const r = this.routeTagBranchDdl(sql, session);
      if (r !== null) return r;
    }
    if (kind === 'call') {
      const r = this.routeCall(sql, session);
      if (r === null || session.standalone || r.kind !== 'local') return r ?? (session.standalone ? this.standaloneRoute(sql, session) : FORWARD);
      return {
        kind: 'local',
        run: async (signal) => {
          const replies = await r.run(signal);
          rememberWarnings(this.standaloneState(session), replies);
          this.afterLocalCall.add(session);
          return replies;
        },
      };
    } else if (!session.standalone) {
      if (kind === 'use') return this.routeUse(sql);
      if (kind === 'switch') return this.routeSwitch(sql);
      if (kind === 'kill') return this.routeKill(sql, session) ?? FORWARD;
      if (kind === 'set') return this.routeSet(sql);
    } else if (kind === 'kill' && this.opts.onKill) {
      const k = parseConnectionKill(sql);
      const r = k === null ? null : this.opts.onKill(k.target, k.mode, session);
      if (r !== null) return r;
    }
    if (!session.standalone) return FORWARD;
    return this.standaloneRoute(sql, session);
  }

  private standaloneRoute(sql: string, session: SessionView): Route {
    return { kind: 'local', run: () => respondStandalone(sql, session, this.standaloneEnv) };
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

  /**
   * The catalog an intercepted CALL runs in, or null when the CALL is not ours. The catalog
   * name is resolved by resolveCatalogName (call-parser.ts): exactly first, else
   * case-insensitively when that names one configured catalog; an ambiguous name is
   * intercepted and answered with CATALOG_NOT_FOUND listing the candidates (the FE could
   * not pick one either). `sys` is Paimon's system database and is read in any case, as the
   * procedure name is by the registry.
   */
  interceptCatalog(name: CallName, session: SessionView): string | null {
    const r = this.resolveIntercept(name, session);
    return r?.kind === 'found' ? r.name : null;
  }

  private resolveIntercept(name: CallName, session: SessionView): Exclude<CatalogResolution, { kind: 'none' }> | null {
    const p = name.parts;
    let written: string | null = null;
    if (p.length === 3 && p[1]!.toLowerCase() === 'sys') written = p[0]!;
    else if (p.length === 2 && p[0]!.toLowerCase() === 'sys') written = this.currentCatalog(session);
    if (written === null) return null;
    const r = resolveCatalogName(written, this.executor.catalogs.names());
    return r.kind === 'none' ? null : r;
  }

  private routeCall(sql: string, session: SessionView): Route | null {
    const name = parseCallName(sql);
    if (name === null) return null;
    const resolved = this.resolveIntercept(name, session);
    if (resolved === null) return session.standalone ? this.routeForeignCatalogCall(name, session) : null;
    if (resolved.kind === 'ambiguous') {
      const e = new ProcedureError(
        'CATALOG_NOT_FOUND',
        `Catalog name '${name.parts.length === 3 ? name.parts[0]! : this.currentCatalog(session)}' matches the configured catalogs ${resolved.candidates.map((c) => `'${c}'`).join(', ')} when case is ignored; write the exact name`,
      );
      return { kind: 'local', run: async () => (await this.executor.reject({ catalog: resolved.candidates[0]!, procedure: name.parts[name.parts.length - 1]!, args: [], statement: sql }, this.callerOf(session, null), e)).replies };
    }
    const catalog = resolved.name;
    return {
      kind: 'local',
      run: async (signal) => {
        const replies = await this.runCall(sql, name, catalog, session, signal);
        rememberWarnings(this.standaloneState(session), replies);
        if (!session.standalone) this.afterLocalCall.add(session);
        return replies;
      },
    };
  }

  /**
   * Standalone: a `[catalog.]sys.<procedure>` CALL whose catalog is not a configured Paimon
   * catalog. With an FE it would be the FE's to answer; alone, the proxy says which catalogs
   * it has (CATALOG_NOT_FOUND). Other CALLs (MySQL procedures, Doris's own) are left to the
   * standalone responder.
   */
  private routeForeignCatalogCall(name: CallName, session: SessionView): Route | null {
    const p = name.parts;
    let catalog: string | null;
    if (p.length === 3 && p[1]!.toLowerCase() === 'sys') catalog = p[0]!;
    else if (p.length === 2 && p[0]!.toLowerCase() === 'sys') catalog = this.currentCatalog(session);
    else return null;
    const replies = [errorReply(unknownCatalog(catalog, this.executor.catalogs))];
    return {
      kind: 'local',
      run: async () => {
        rememberWarnings(this.standaloneState(session), replies);
        return replies;
      },
    };
  }

  private callerOf(session: SessionView, catalog: string | null): CallerInfo {
    const current = this.currentCatalog(session);
    const cur = current === null ? null : resolveCatalogName(current, this.executor.catalogs.names());
    return {
      user: session.user,
      connectionId: session.connectionId,
      clientAddress: session.clientAddress,
      // The session's database belongs to its current catalog; in another catalog it means nothing.
      currentDatabase: catalog !== null && cur?.kind === 'found' && cur.name === catalog ? session.currentDatabase : null,
    };
  }

  private async runCall(sql: string, name: CallName, catalog: string, session: SessionView, signal: AbortSignal): Promise<LocalReply[]> {
    const procedure = name.parts[name.parts.length - 1]!;
    const caller = this.callerOf(session, catalog);
    let args;
    try {
      args = parseCallArguments(sql, name);
    } catch (e) {
      // An intercepted CALL whose arguments do not parse is answered with the parse error and
      // audited like every other intercepted CALL (the executor's reject path).
      if (e instanceof ParseError) return (await this.executor.reject({ catalog, procedure, args: [], statement: sql }, caller, new ProcedureError(e.errno === ER_NOT_SUPPORTED_YET ? 'MULTI_STATEMENT' : 'PARSE_ERROR', e.message))).replies;
      throw e;
    }
    const queryId = randomUUID();
    const req: CallRequest = { catalog, procedure, args, statement: sql, queryId };
    const asyncCalls = this.opts.asyncCalls;
    const submitsJob = asyncCalls?.isAsync(req) === true;
    const call = this.runningCall(req, session, submitsJob);
    if (submitsJob && asyncCalls) {
      const untrack = this.calls.track(call, SUBMISSION);
      try {
        return await asyncCalls.submit(req, caller);
      } catch (e) {
        // The job could not be submitted (shutting down, grants unreadable): answered and audited here.
        return (await this.executor.reject(req, caller, e)).replies;
      } finally {
        untrack();
      }
    }
    return (await this.runTracked(req, caller, call, signal)).replies;
  }

  private runningCall(req: CallRequest, session: SessionView, submitsJob: boolean): NewRunningCall {
    return {
      connectionId: session.connectionId,
      queryId: req.queryId!,
      procedure: req.procedure.toLowerCase(),
      user: session.user,
      catalog: req.catalog,
      clientAddress: session.clientAddress,
      ...(submitsJob ? { submitsJob } : {}),
    };
  }

  private runTracked(req: CallRequest, caller: CallerInfo, call: NewRunningCall, signal: AbortSignal): Promise<CallOutcome> {
    // The procedure's progress goes on the call's entry, where list_jobs / job_status of other sessions read it.
    req.onProgress = (u) => this.calls.progress(call.queryId, u);
    // The executor owns the call's abort: the session's signal, KILL through the registry, the deadline.
    return this.executor.run(req, caller, signal, { calls: this.calls, call });
  }

  /**
   * `ALTER TABLE [catalog.][db.]table CREATE|REPLACE|DROP TAG|BRANCH ...` on a table of a
   * configured Paimon catalog (the session's current one when the name has no catalog, as for
   * `CALL sys.x`): answered as the procedure calls it stands for (src/router/ddl/), each one
   * through the same path as a CALL. Null (forwarded) for any other table or statement.
   */
  private routeTagBranchDdl(sql: string, session: SessionView): Route | null {
    const ddl = parseTagBranchDdl(sql);
    if (ddl === null) return null;
    const p = ddl.table;
    const written = p.length === 3 ? p[0]! : this.currentCatalog(session);
    const resolved = written === null ? null : resolveCatalogName(written, this.executor.catalogs.names());
    if (resolved?.kind !== 'found') return null;
    const catalog = resolved.name;
    const table = tableArgument(p.length === 3 ? p.slice(1) : p);
    return {
      kind: 'local',
      run: async (signal) => {
        const caller = this.callerOf(session, catalog);
        let replies: LocalReply[];
        try {
          if (ddl.clause instanceof ProcedureError) throw ddl.clause;
          const steps = planTagBranchDdl(ddl.clause, table);
          replies = await runDdlPlan(steps, (inv) => {
            const req: CallRequest = { catalog, procedure: inv.procedure, args: inv.args, statement: sql, queryId: randomUUID() };
            return this.runTracked(req, caller, this.runningCall(req, session, false), signal);
          });
        } catch (e) {
          // Refused before any call (syntax, NOT_SUPPORTED): audited like a CALL that did not bind.
          if (!(e instanceof ProcedureError)) throw e;
          replies = (await this.executor.reject({ catalog, procedure: procedureOfDdl(ddl), args: [], statement: sql }, caller, e)).replies;
        }
        if (session.standalone) rememberWarnings(this.standaloneState(session), replies);
        return replies;
      },
    };
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
    const assignments = paimonUserVariables(sql);
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
    const k = parseConnectionKill(sql);
    if (k === null) return null;
    if (this.opts.onKill) {
      const r = this.opts.onKill(k.target, k.mode, session);
      if (r !== null) return r;
    }
    const running = this.calls.of(k.target);
    if (running.length === 0) return null;
    if (running.some((r) => r.user !== session.user)) return { kind: 'local', run: async () => [notOwner(k.target)] };
    this.calls.kill(k.target, k.mode, session.connectionId, new KilledReason(session.connectionId, k.mode));
    // KILL QUERY is answered here (the FE has nothing running for that connection); KILL
    // CONNECTION also goes to the FE so that it closes the victim's upstream connection.
    return k.mode === 'query' ? { kind: 'local', run: async () => [{ kind: 'ok' }] } : FORWARD;
  }

  private killLocal(target: number, mode: 'query' | 'connection', session: SessionView): LocalReply | null {
    const running = this.calls.of(target);
    if (running.length === 0) return null;
    if (running.some((r) => r.user !== session.user)) return notOwner(target);
    this.calls.kill(target, mode, session.connectionId, new KilledReason(session.connectionId, mode));
    if (mode === 'connection') this.opts.connections?.close(target);
    return { kind: 'ok' };
  }

  /** Standalone KILL of a connection that runs no procedure. */
  private killUnknown(target: number, mode: 'query' | 'connection', session: SessionView): LocalReply {
    const dir = this.opts.connections;
    if (dir?.has(target) || target === session.connectionId) {
      const owner = dir?.userOf?.(target) ?? (target === session.connectionId ? session.user : undefined);
      if (owner !== undefined && owner !== session.user) return notOwner(target);
      if (mode === 'connection') dir?.close(target);
      return { kind: 'ok' };
    }
    return unknownThread(target);
  }
}

/**
 * `SET @a = <literal> [, @b = <literal>]`: the user-variable assignments whose names start with
 * `paimon_`, or null when the statement is anything else (then nothing is mirrored: only the
 * FE knows what a SET of other forms leaves in a variable).
 */
function paimonUserVariables(sql: string): [string, string | null][] | null {
  const set = parseSet(sql);
  if (set === null || set.kind !== 'assignments') return null;
  const out: [string, string | null][] = [];
  for (const item of set.items) {
    if (item.kind !== 'variable' || !item.user || item.scopeKeyword) return null;
    const value = literalValue(item.value);
    if (value === undefined) return null;
    if (item.name.toLowerCase().startsWith('paimon_')) out.push([item.name, value]);
  }
  return out;
}
