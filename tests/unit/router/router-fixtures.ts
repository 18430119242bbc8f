/**
 * Shared fixtures for router and standalone tests: a real filesystem warehouse laid out as
 * Paimon's FileSystemCatalog does (`<wh>/<db>.db/<table>/schema/schema-0`), a registry with
 * small test procedures (they only read; real Paimon procedures live in procedures/*.ts),
 * and a plain SessionView.
 */
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CatalogSet, FileSystemProcedureCatalog } from '../../../src/catalogs.js';
import { LocalFileIO } from '../../../src/paimon/fs/local-file-io.js';
import { defineProcedure, ProcedureRegistry } from '../../../procedures/framework/registry.js';
import { ProcedureExecutor } from '../../../procedures/framework/executor.js';
import { configSchema } from '../../../src/config-schema.js';
import { Router } from '../../../src/router/router.js';
import type { LocalReply, Route, SessionView } from '../../../src/router/route.js';

export const echoProcedure = defineProcedure({
  name: 'test_echo',
  aliases: ['test_echo_alias'],
  description: 'test-only: resolves its table and echoes its arguments',
  params: [
    { name: 'table', type: 'string', required: true, description: 'db.table' },
    { name: 'n', type: 'bigint', description: 'a number' },
    { name: 'sleep_ms', type: 'int', default: 0, description: 'wait this long, watching the abort signal' },
    { name: 'info', type: 'string', description: "the final OK's info text" },
  ],
  resultColumns: [
    { name: 'identifier', type: 'string', description: 'resolved table' },
    { name: 'n', type: 'bigint', description: 'the number' },
    { name: 'caller_db', type: 'string', description: 'caller current database' },
  ],
  privilege: { privilege: 'SELECT', on: 'table' },
  destructive: false,
  async run(args, ctx) {
    const t = await ctx.resolveTable(args.table);
    const until = Date.now() + args.sleep_ms;
    while (Date.now() < until) {
      ctx.throwIfAborted();
      await new Promise((r) => setTimeout(r, 5));
    }
    ctx.warn('echo warning');
    return {
      rows: [{ identifier: t.identifier, n: args.n, caller_db: ctx.caller.currentDatabase }],
      ...(args.info !== null && args.info !== undefined ? { info: args.info } : {}),
    };
  },
});

export async function makeWarehouse(): Promise<string> {
  const wh = await mkdtemp(join(tmpdir(), 'router-test-'));
  for (const [db, tables] of [
    ['sales', ['orders', 'items']],
    ['ops', ['events']],
  ] as const) {
    for (const t of tables) {
      await mkdir(join(wh, `${db}.db`, t, 'schema'), { recursive: true });
      await writeFile(join(wh, `${db}.db`, t, 'schema', 'schema-0'), '{}');
    }
  }
  await mkdir(join(wh, 'empty.db'), { recursive: true });
  return wh;
}

export function makeRouter(wh: string, extra: { connections?: ConstructorParameters<typeof Router>[0]['connections'] } = {}): Router {
  const catalogs = new CatalogSet([new FileSystemProcedureCatalog('paimon', wh, new LocalFileIO()), new FileSystemProcedureCatalog('lake', wh, new LocalFileIO())]);
  const executor = new ProcedureExecutor({
    registry: new ProcedureRegistry([echoProcedure]),
    catalogs,
    limits: configSchema.parse({}).procedures,
  });
  return new Router({ executor, defaultCatalog: catalogs.defaultName(), ...extra });
}

export function makeSession(over: Partial<SessionView> = {}): SessionView {
  return {
    connectionId: 7,
    user: 'alice',
    clientAddress: '127.0.0.1:50000',
    standalone: false,
    currentCatalog: null,
    currentDatabase: null,
    ...over,
  };
}

export async function runLocal(route: Route, signal = new AbortController().signal): Promise<LocalReply[]> {
  if (route.kind !== 'local') throw new Error(`expected a local route, got ${route.kind}`);
  return route.run(signal);
}

/** Run a statement in standalone mode and return its single reply. */
export async function one(router: Router, sql: string, session: SessionView): Promise<LocalReply> {
  const replies = await runLocal(router.route(sql, session));
  if (replies.length !== 1) throw new Error(`expected one reply, got ${replies.length}`);
  return replies[0]!;
}
