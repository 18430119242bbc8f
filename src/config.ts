/**
 * Loads the configuration: the embedded default, then a YAML or JSON file, then environment
 * variables, then command-line flags (each later source wins). The result is validated once
 * with the zod schema of config-schema.ts; every mistake is reported with its path, and values
 * are never echoed back (a mistyped key may hold a secret).
 *
 * Embedded default: no upstream FE (standalone), one filesystem catalog `paimon` with its
 * warehouse in ./warehouse under the working directory, listening on 127.0.0.1:9031.
 *
 * Environment: PPP_CONFIG (file), PPP_LISTEN_HOST, PPP_LISTEN_PORT, PPP_UPSTREAM (host:port;
 * empty or `none` for standalone), PPP_UPSTREAM_PROXY_PROTOCOL (true/false), PPP_UPSTREAM_TLS
 * (true/false), PPP_UPSTREAM_TLS_CA (PEM file), PPP_NATIVE_RELAY (auto/on/off), PPP_WORKERS, PPP_WAREHOUSE,
 * PPP_USERS_FILE, PPP_TLS_CERT, PPP_TLS_KEY, PPP_LOG_LEVEL.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { configWithFromFeSchema, type ProxyConfig } from './config-schema.js';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export const DEFAULT_CATALOG = 'paimon';

export interface ConfigOverrides {
  host?: string;
  port?: number | string;
  warehouse?: string;
  /** HOST:PORT, or 'none' for standalone. */
  upstream?: string;
  workers?: number | string;
}

export interface LoadConfigOptions {
  file?: string;
  env?: NodeJS.ProcessEnv;
  overrides?: ConfigOverrides;
  cwd?: string;
}

export interface LoadedConfig {
  config: ProxyConfig;
  /** The file that was read, if any (absolute). */
  file: string | null;
  /**
   * True when the catalogs are the embedded default (no catalog configured by file or
   * environment; `--warehouse`/PPP_WAREHOUSE may have moved its directory).
   */
  embeddedCatalog: boolean;
}

type Raw = Record<string, unknown>;

function isObject(v: unknown): v is Raw {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function section(raw: Raw, key: string): Raw {
  const v = raw[key];
  if (v === undefined || v === null) {
    const created: Raw = {};
    raw[key] = created;
    return created;
  }
  if (!isObject(v)) throw new ConfigError(`${key}: expected an object`);
  return v;
}

/** Parses `host:port`, `[v6]:port` or `host` (port 9030, Doris's query port). */
export function parseHostPort(s: string, what: string): { host: string; port: number } {
  const t = s.trim();
  let host: string;
  let portText: string | undefined;
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(t);
  if (v6) {
    host = v6[1];
    portText = v6[2];
  } else {
    const i = t.lastIndexOf(':');
    if (i >= 0 && t.indexOf(':') === i) {
      host = t.slice(0, i);
      portText = t.slice(i + 1);
    } else {
      host = t;
    }
  }
  if (!host) throw new ConfigError(`${what}: expected HOST:PORT, got an empty host`);
  const port = portText === undefined || portText === '' ? 9030 : parsePort(portText, what);
  return { host, port };
}

function parsePort(s: string | number, what: string): number {
  const n = typeof s === 'number' ? s : /^\d+$/.test(s.trim()) ? Number(s.trim()) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`${what}: port must be an integer from 0 to 65535`);
  return n;
}

function parseCount(s: string | number, what: string): number {
  const n = typeof s === 'number' ? s : /^\d+$/.test(s.trim()) ? Number(s.trim()) : NaN;
  if (!Number.isInteger(n) || n < 1) throw new ConfigError(`${what}: expected a whole number of at least 1`);
  return n;
}

function parseBool(s: string, what: string): boolean {
  const t = s.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(t)) return true;
  if (['0', 'false', 'no', 'off'].includes(t)) return false;
  throw new ConfigError(`${what}: expected true or false`);
}

function setWarehouse(raw: Raw, warehouse: string, cwd: string): void {
  const dir = /^[a-z][a-z0-9+.-]*:\/\//i.test(warehouse) || isAbsolute(warehouse) ? warehouse : resolve(cwd, warehouse);
  const catalogs = Array.isArray(raw.catalogs) ? (raw.catalogs as unknown[]) : [];
  const existing = catalogs.find((c) => isObject(c) && c.name === DEFAULT_CATALOG);
  if (isObject(existing)) existing.warehouse = dir;
  else catalogs.push({ name: DEFAULT_CATALOG, type: 'filesystem', warehouse: dir });
  raw.catalogs = catalogs;
}

function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const path = i.path.length ? i.path.map(String).join('.') : '(top level)';
      return `  ${path}: ${i.message}`;
    })
    .join('\n');
}

async function readConfigFile(file: string): Promise<Raw> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    throw new ConfigError(`cannot read config file ${file}: ${code}`);
  }
  let parsed: unknown;
  try {
    parsed = /\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    // YAML/JSON parser messages quote positions, not values beyond a short snippet.
    const msg = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new ConfigError(`config file ${file} is not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ${msg}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isObject(parsed)) throw new ConfigError(`config file ${file}: the top level must be a mapping`);
  return parsed;
}

export async function loadConfig(opts: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const o = opts.overrides ?? {};
  const fileArg = opts.file ?? (env.PPP_CONFIG ? env.PPP_CONFIG : undefined);
  const file = fileArg ? resolve(cwd, fileArg) : null;
  const raw: Raw = file ? await readConfigFile(file) : {};
  // `catalogs: from_fe` (the issue's spelling) is short for no file catalogs and `catalogs_from_fe: {}`.
  if (raw.catalogs === 'from_fe') {
    raw.catalogs = [];
    if (raw.catalogs_from_fe === undefined) raw.catalogs_from_fe = {};
  }
  const configuredCatalogs = Array.isArray(raw.catalogs) ? raw.catalogs.length : 0;
  const baseDir = file ? dirname(file) : cwd;

  // environment
  if (env.PPP_LISTEN_HOST) section(raw, 'listen').host = env.PPP_LISTEN_HOST;
  if (env.PPP_LISTEN_PORT) section(raw, 'listen').port = parsePort(env.PPP_LISTEN_PORT, 'PPP_LISTEN_PORT');
  if (env.PPP_WORKERS) section(raw, 'listen').workers = parseCount(env.PPP_WORKERS, 'PPP_WORKERS');
  if (env.PPP_TLS_CERT || env.PPP_TLS_KEY) {
    if (!env.PPP_TLS_CERT || !env.PPP_TLS_KEY) throw new ConfigError('PPP_TLS_CERT and PPP_TLS_KEY must be set together');
    const listen = section(raw, 'listen');
    const tls = isObject(listen.tls) ? listen.tls : {};
    listen.tls = { ...tls, cert: env.PPP_TLS_CERT, key: env.PPP_TLS_KEY };
  }
  if (env.PPP_UPSTREAM !== undefined) applyUpstream(raw, env.PPP_UPSTREAM, 'PPP_UPSTREAM');
  if (env.PPP_UPSTREAM_PROXY_PROTOCOL) {
    if (!isObject(raw.upstream)) throw new ConfigError('PPP_UPSTREAM_PROXY_PROTOCOL needs an upstream (PPP_UPSTREAM or upstream: in the file)');
    raw.upstream.proxy_protocol = parseBool(env.PPP_UPSTREAM_PROXY_PROTOCOL, 'PPP_UPSTREAM_PROXY_PROTOCOL');
  }
  if (env.PPP_UPSTREAM_TLS || env.PPP_UPSTREAM_TLS_CA) {
    if (!isObject(raw.upstream)) throw new ConfigError('PPP_UPSTREAM_TLS / PPP_UPSTREAM_TLS_CA need an upstream (PPP_UPSTREAM or upstream: in the file)');
    if (env.PPP_UPSTREAM_TLS) raw.upstream.tls = parseBool(env.PPP_UPSTREAM_TLS, 'PPP_UPSTREAM_TLS');
    if (env.PPP_UPSTREAM_TLS_CA) raw.upstream.tls_ca = env.PPP_UPSTREAM_TLS_CA;
  }
  if (env.PPP_USERS_FILE) raw.users_file = env.PPP_USERS_FILE;
  if (env.PPP_LOG_LEVEL) section(raw, 'logging').level = env.PPP_LOG_LEVEL;
  if (env.PPP_WAREHOUSE) setWarehouse(raw, env.PPP_WAREHOUSE, cwd);

  // command line
  if (o.host !== undefined) section(raw, 'listen').host = o.host;
  if (o.port !== undefined) section(raw, 'listen').port = parsePort(o.port, '--port');
  if (o.workers !== undefined) section(raw, 'listen').workers = parseCount(o.workers, '--workers');
  if (o.upstream !== undefined) applyUpstream(raw, o.upstream, '--upstream');
  if (o.warehouse !== undefined) setWarehouse(raw, o.warehouse, cwd);
  // after --upstream, which may be the upstream it applies to
  if (env.PPP_NATIVE_RELAY) {
    if (!isObject(raw.upstream)) throw new ConfigError('PPP_NATIVE_RELAY needs an upstream (PPP_UPSTREAM, --upstream or upstream: in the file)');
    raw.upstream.native_relay = env.PPP_NATIVE_RELAY;
  }

  // embedded default catalog
  if (raw.catalogs_from_fe === undefined && (raw.catalogs === undefined || (Array.isArray(raw.catalogs) && raw.catalogs.length === 0))) {
    setWarehouse(raw, 'warehouse', cwd);
  }
  const embeddedCatalog =
    configuredCatalogs === 0 && Array.isArray(raw.catalogs) && raw.catalogs.length === 1;

  const result = configWithFromFeSchema.safeParse(raw);
  if (!result.success) {
    throw new ConfigError(`invalid configuration${file ? ` in ${file}` : ''}:\n${formatIssues(result.error)}`);
  }
  const config = result.data;
  // Paths in the file are relative to the file.
  if (config.users_file && !isAbsolute(config.users_file)) config.users_file = resolve(baseDir, config.users_file);
  if (config.upstream?.tls_ca) config.upstream.tls_ca = resolve(baseDir, config.upstream.tls_ca);
  if (config.listen.tls) {
    config.listen.tls.cert = resolve(baseDir, config.listen.tls.cert);
    config.listen.tls.key = resolve(baseDir, config.listen.tls.key);
  }
  const names = new Set<string>();
  for (const c of config.catalogs) {
    const key = c.name.toLowerCase();
    if (names.has(key)) throw new ConfigError(`invalid configuration: catalogs: the name ${c.name} is used twice`);
    names.add(key);
  }
  return { config, file, embeddedCatalog };
}

function applyUpstream(raw: Raw, value: string, what: string): void {
  const v = value.trim();
  if (v === '' || v.toLowerCase() === 'none') {
    delete raw.upstream;
    return;
  }
  const { host, port } = parseHostPort(v, what);
  const prev = isObject(raw.upstream) ? raw.upstream : {};
  raw.upstream = { ...prev, host, port };
}

/** True for addresses that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase();
  return h === 'localhost' || h === '::1' || h === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(h) || /^::ffff:127\.\d+\.\d+\.\d+$/.test(h);
}
