/**
 * A standalone proxy (no FE) in the test's own process, on a free loopback port, serving the
 * catalog `paimon` over the router fixtures' warehouse (tables sales.orders, sales.items,
 * ops.events), optionally with the fixtures' router and its test-only procedures.
 */
import { rm } from 'node:fs/promises';
import { configSchema } from '../../src/config-schema.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { makeRouter, makeWarehouse } from '../unit/router/router-fixtures.js';
import { tempDir } from './temp-dir.js';

export interface StandaloneProxy {
  proxy: RunningProxy;
  port: number;
  warehouse: string;
  /** Stops the proxy and removes the warehouse. */
  close(): Promise<void>;
}

export async function startStandaloneProxy(opts: { testRouter?: boolean } = {}): Promise<StandaloneProxy> {
  const warehouse = await makeWarehouse();
  const config = configSchema.parse({
    listen: { host: '127.0.0.1', port: 0 },
    catalogs: [{ name: 'paimon', type: 'filesystem', warehouse }],
    logging: { level: 'silent' },
    jobs: { dir: tempDir('standalone-jobs') },
  });
  const proxy = await startProxy(config, { logger: silentLogger(), ...(opts.testRouter ? { router: makeRouter(warehouse) } : {}) });
  return {
    proxy,
    port: proxy.address.port,
    warehouse,
    close: async () => {
      await proxy.close();
      await rm(warehouse, { recursive: true, force: true });
    },
  };
}
