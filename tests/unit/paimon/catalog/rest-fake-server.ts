/**
 * A scripted REST catalog server for unit tests (node:http on a free loopback port): each
 * request is recorded (method, path, query, headers, JSON body) and answered by the first
 * route whose method and path match, with a status and a JSON body (or raw text).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: unknown;
  rawBody: string;
}

export interface Answer {
  /** Never answer (a hung server). */
  hang?: boolean;
  status?: number;
  json?: unknown;
  text?: string;
}

export type Route = (req: RecordedRequest) => Answer | null;

export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  /** Routes are tried in order; the first non-null answer wins; none: 404 without a body. */
  routes: Route[];
  close(): Promise<void>;
}

/** A route for one method and exact path. */
export function on(method: string, path: string, answer: (req: RecordedRequest) => Answer): Route {
  return (req) => (req.method === method && req.path === path ? answer(req) : null);
}

export const CONFIG_OK: Route = on('GET', '/v1/config', () => ({ json: { defaults: { prefix: 'paimon' }, overrides: {} } }));

export async function startFakeServer(routes: Route[] = []): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const state = { routes };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown = null;
      try {
        body = rawBody === '' ? null : JSON.parse(rawBody);
      } catch {
        body = rawBody;
      }
      const rec: RecordedRequest = { method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body, rawBody };
      requests.push(rec);
      let answer: Answer | null = null;
      for (const r of state.routes) {
        answer = r(rec);
        if (answer !== null) break;
      }
      const a = answer ?? { status: 404 };
      if (a.hang === true) return;
      res.statusCode = a.status ?? 200;
      if (a.json !== undefined) {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify(a.json));
      } else res.end(a.text ?? '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  const fake: FakeServer = {
    url: `http://127.0.0.1:${port}/`,
    requests,
    get routes() {
      return state.routes;
    },
    set routes(r: Route[]) {
      state.routes = r;
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
  return fake;
}
