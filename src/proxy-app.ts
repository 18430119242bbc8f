/**
 * Assembles a running proxy from a validated configuration: logger, Paimon catalogs, procedure
 * registry and executor, router, listener. `serve` and the integration tests use this, so what
 * the tests start is what users start.
 */
import type { AddressInfo } from 'node:net';
import { ProcedureExecutor } from '../procedures/executor.js';
import { createDefaultRegistry } from '../procedures/index.js';
import { buildCatalogs } from './catalogs.js';
import type { ProxyConfig } from './config-schema.js';
import { createLogger, type Logger } from './observability/logger.js';
import { Router, type ConnectionDirectory } from './router.js';
import type { StatementRouter } from './route.js';
import { ProxyServer } from './server.js';

export interface RunningProxy {
  server: ProxyServer;
  address: AddressInfo;
  logger: Logger;
  close(): Promise<void>;
}

export interface StartProxyOptions {
  logger?: Logger;
  /** Replace the router (tests of the transport alone). */
  router?: StatementRouter;
  /** Set in the worker processes of `listen.workers` > 1. */
  worker?: { index: number; count: number };
}

export function createRouter(config: ProxyConfig, logger: Logger, connections: ConnectionDirectory): Router {
  const executor = new ProcedureExecutor({
    registry: createDefaultRegistry(),
    catalogs: buildCatalogs(config),
    limits: config.procedures,
    logger,
  });
  return new Router({
    executor,
    // Standalone sessions start in the first configured catalog; with an FE, Doris's default applies.
    defaultCatalog: config.upstream ? null : (config.catalogs[0]?.name ?? null),
    connections,
    logger,
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
  const router = opts.router ?? createRouter(config, logger, connections);
  server = await ProxyServer.create({ config, router, logger, worker: opts.worker });
  const address = await server.listen();
  const s = server;
  return { server: s, address, logger, close: () => s.close() };
}
