/**
 * Assembles a running proxy from a validated configuration: logger, Paimon catalogs, procedure
 * registry and executor, router, listener. `serve` and the integration tests use this, so what
 * the tests start is what users start.
 */
import type { AddressInfo } from 'node:net';
import { ProcedureExecutor } from '../procedures/framework/executor.js';
import { createDefaultRegistry } from '../procedures/index.js';
import { buildCatalog, buildCatalogs } from './catalogs.js';
import { FeCatalogDiscovery } from './fe-catalogs.js';
import type { CatalogProvider } from '../procedures/framework/catalog.js';
import type { ProxyConfig } from './config-schema.js';
import { createLogger, type Logger } from './observability/logger.js';
import { Router, type ConnectionDirectory } from './router/router.js';
import type { StatementRouter } from './router/route.js';
import { ProxyServer } from './server.js';
import { startOps, type OpsRuntime } from './observability/ops-runtime.js';
import { serverStatsSnapshot } from './observability/metrics.js';
import { resolveLocalUsers } from './users-file.js';
import { maskText } from './security/masking.js';

export interface RunningProxy {
  server: ProxyServer;
  address: AddressInfo;
  logger: Logger;
  /** The ops runtime (jobs, metrics, audit, privileges); absent when a test replaced the router. */
  ops?: OpsRuntime;
  close(): Promise<void>;
}

export interface StartProxyOptions {
  logger?: Logger;
  /** Replace the router (tests of the transport alone). */
  router?: StatementRouter;
  /** Set in the worker processes of `listen.workers` > 1. */
  worker?: { index: number; count: number };
  /**
   * In-process only (tests): serve these catalogs instead of the ones built from
   * `config.catalogs` (e.g. over a FileIO that lets a test hold a procedure between two file
   * operations). The configuration cannot set it.
   */
  catalogs?: CatalogProvider;
}

/**
 * The file's catalogs, plus the FE's own Paimon catalogs with `catalogs_from_fe` (discovered at
 * start and on a timer; the schema has checked the upstream and its service account).
 */
function servedCatalogs(config: ProxyConfig, logger: Logger): CatalogProvider {
  const base = buildCatalogs(config);
  const fromFe = config.catalogs_from_fe;
  const up = config.upstream;
  if (fromFe === undefined || up?.refresh_user === undefined) return base;
  const discovery = new FeCatalogDiscovery(base, {
    host: up.host,
    port: up.port,
    user: up.refresh_user,
    password: up.refresh_password,
    tls: up.tls,
    connectTimeoutMs: up.connect_timeout_ms,
    include: fromFe.include,
    overrides: fromFe.overrides,
    staticNames: new Set(base.names()),
    build: buildCatalog,
    warn: (m) => logger.warn(m),
  });
  discovery.start(fromFe.refresh_interval_ms);
  return discovery;
}

export function createRouter(config: ProxyConfig, logger: Logger, connections: ConnectionDirectory, ops?: OpsRuntime, catalogs?: CatalogProvider): Router {
  const registry = createDefaultRegistry();
  // Jobs through SQL, and the executor hooks (privileges, locks, timeouts, audit, metrics, FE refresh).
  for (const p of ops?.jobProcedures ?? []) registry.register(p);
  const served = catalogs ?? servedCatalogs(config, logger);
  const executor = new ProcedureExecutor({
    registry,
    catalogs: served,
    limits: config.procedures,
    logger,
    // Secrets echoed in a procedure's error message are masked in the ERR packet, log and audit.
    maskMessage: maskText,
    ...(ops ? { hooks: ops.hooks, frameworkParams: ops.frameworkParams } : {}),
  });
  return new Router({
    executor,
    ...(ops ? { asyncCalls: { isAsync: (req) => ops.isAsync(req), submit: (req, caller) => ops.submitAsync(executor, req, caller) }, calls: ops.calls } : {}),
    // Standalone sessions start in the first configured catalog; with an FE, Doris's default applies.
    defaultCatalog: config.upstream ? null : (config.catalogs[0]?.name ?? null),
    connections,
    // A REFRESH CATALOG the FE accepted makes the catalogs read from it rediscover at once.
    ...(served instanceof FeCatalogDiscovery ? { onCatalogRefresh: () => void served.refresh() } : {}),
  });
}

export async function startProxy(config: ProxyConfig, opts: StartProxyOptions = {}): Promise<RunningProxy> {
  const logger = opts.logger ?? createLogger({ level: config.logging.level, file: config.logging.file });
  let server: ProxyServer | null = null;
  const connections: ConnectionDirectory = {
    has: (id) => server?.registry.get(id) !== undefined,
    close: (id) => server?.registry.get(id)?.close('killed by KILL CONNECTION'),
    userOf: (id) => server?.registry.get(id)?.user,
  };
  const localUsers = config.upstream ? [] : [...(await resolveLocalUsers(config.users_file, config.listen.host)).users.values()];
  let routerRef: Router | null = null;
  const ops = opts.router
    ? undefined
    : await startOps(config, {
        logger,
        localUsers,
        ...(opts.worker ? { worker: opts.worker } : {}),
        // SHOW GRANTS on the caller's own upstream session, while it runs the CALL (upstream idle).
        ...(config.upstream
          ? {
              upstreamQuery: (id: number, sql: string) => {
                const session = server?.registry.get(id);
                return session ? session.queryUpstream(sql) : Promise.reject(new Error(`no connection with id ${id}`));
              },
            }
          : {}),
        // @paimon_call_timeout as the router mirrors it for the session.
        sessionVariable: (id, name) => {
          const session = server?.registry.get(id);
          return session && routerRef ? routerRef.userVariable(session, name) : undefined;
        },
      });
  // Built here rather than by createRouter, so that closing the proxy stops the FE discovery.
  const catalogs = opts.router ? undefined : (opts.catalogs ?? servedCatalogs(config, logger));
  const router = opts.router ?? (routerRef = createRouter(config, logger, connections, ops, catalogs));
  server = await ProxyServer.create({ config, router, logger, worker: opts.worker });
  const address = await server.listen();
  const s = server;
  // Connections, commands, and forwarded statements and bytes (when the session counts them), read at scrape time.
  const stopObserving = ops?.metrics.observeServer(() => serverStatsSnapshot(s.connectionCount, s.stats));
  return {
    server: s,
    address,
    logger,
    ...(ops ? { ops } : {}),
    close: async () => {
      await s.close();
      stopObserving?.();
      await ops?.close();
      if (catalogs instanceof FeCatalogDiscovery) await catalogs.close();
    },
  };
}
