/**
 * The configuration file's shape (YAML or JSON), validated once at start-up with zod so that
 * every mistake is reported with its path. Loading, environment overrides and defaults for
 * the embedded mode live in config.ts; this file is only the schema and its types.
 */
import { z } from 'zod';
import { procedureLimitsSchema } from '../procedures/framework/limits.js';
import { parseMetastoreUris } from './paimon/catalog/hms/hms-client.js';

const port = z.number().int().min(0).max(65535);

/** A MySQL-protocol database the proxy writes to itself (audit table, shared job store). */
export const mysqlTargetSchema = z.strictObject({
  host: z.string().min(1),
  port: port.default(3306),
  user: z.string().min(1),
  password: z.string().optional(),
  database: z.string().min(1),
});

const catalogShape = z.strictObject({
  /** Name used in `CALL <name>.sys.<procedure>(...)`; also the Doris catalog name. */
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a catalog name is letters, digits and _'),
  /** Paimon metastore kind; `hms` (Doris's name) is the same Hive Metastore catalog as `hive`. */
  type: z.enum(['filesystem', 'hive', 'hms', 'rest']).default('filesystem'),
  /** Warehouse root: a local directory, file:///..., s3://bucket/path, s3a://..., oss://..., hdfs://namenode:port/path, webhdfs://host:httpport/path; for type rest the warehouse's name on the server. */
  warehouse: z.string().min(1),
  /** Hive metastore thrift URI (type hive/hms; also accepted as `hive.metastore.uris` in properties) or REST catalog URI (type rest). */
  uri: z.string().optional(),
  /**
   * Storage and catalog properties with Paimon's keys (s3.endpoint, s3.access-key,
   * s3.secret-key, s3.region, s3.path.style.access, token, ...). Values whose key names a
   * secret are masked wherever they are shown.
   */
  properties: z.record(z.string(), z.string()).default({}),
  /** REST catalog: how it authenticates; only `bear` (a static bearer token). Also accepted in `properties`. */
  'token.provider': z.string().optional(),
  /** REST catalog: the bearer token (a secret: masked wherever shown). Also accepted in `properties`. */
  token: z.string().optional(),
});

export const catalogSchema = catalogShape.superRefine((c, ctx) => {
  for (const issue of catalogTypeIssues(c)) ctx.addIssue({ code: 'custom', path: [issue.key], message: issue.message });
});

/**
 * The metastore URI of a Hive catalog: `uri`, or Doris's `hive.metastore.uris` property (Paimon's
 * `uri` option and Hive's setting name the same list of thrift://host:port).
 */
export function hiveMetastoreUri(c: { uri?: string; properties: Record<string, string> }): string | undefined {
  return c.uri ?? c.properties['hive.metastore.uris'] ?? c.properties.uri;
}

/** A Hive catalog needs one metastore URI list of thrift://host:port, given once. */
function hiveCatalogIssues(c: z.infer<typeof catalogShape>): { key: string; message: string }[] {
  const given = [c.uri, c.properties['hive.metastore.uris'], c.properties.uri].filter((u): u is string => u !== undefined);
  if (given.length === 0) return [{ key: 'uri', message: 'a Hive catalog needs uri (or hive.metastore.uris in properties): thrift://host:port of the metastore' }];
  if (new Set(given).size > 1) return [{ key: 'uri', message: 'the metastore uri is given more than once (uri, hive.metastore.uris), with different values; give it once' }];
  try {
    parseMetastoreUris(given[0]);
    return [];
  } catch (e) {
    return [{ key: 'uri', message: e instanceof Error ? e.message : String(e) }];
  }
}

/**
 * A catalog property given either as a key of its own or in `properties`, also with Doris's
 * `paimon.rest.` prefix (`paimon.rest.token.provider`, as its CREATE CATALOG spells REST options).
 */
export function catalogProperty(c: { properties: Record<string, string>; 'token.provider'?: string; token?: string }, key: 'token.provider' | 'token'): string | undefined {
  return c[key] ?? c.properties[key] ?? c.properties[`${DORIS_REST_PREFIX}${key}`];
}

/** Doris's prefix of the Paimon REST options in CREATE CATALOG (`paimon.rest.dlf.access-key-id`). */
export const DORIS_REST_PREFIX = 'paimon.rest.';

/** A REST catalog's properties as Paimon names them: Doris's `paimon.rest.` prefix taken off. */
export function restProperties(properties: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(properties)) if (!k.startsWith(DORIS_REST_PREFIX)) out[k] = v;
  for (const [k, v] of Object.entries(properties)) if (k.startsWith(DORIS_REST_PREFIX)) out[k.slice(DORIS_REST_PREFIX.length)] ??= v;
  return out;
}

/**
 * What a catalog of its type needs beyond the shape: a REST catalog an http(s) `uri`, a
 * `warehouse` name, `token.provider: bear` and a `token`. Messages never contain the token.
 */
function catalogTypeIssues(c: z.infer<typeof catalogShape>): { key: string; message: string }[] {
  const issues: { key: string; message: string }[] = [];
  for (const key of ['token.provider', 'token'] as const) {
    const own = c[key];
    const prop = c.properties[key];
    if (own !== undefined && prop !== undefined && own !== prop) issues.push({ key, message: `${key} is given both as a key and in properties, with different values; give it once` });
  }
  const provider = catalogProperty(c, 'token.provider');
  const token = catalogProperty(c, 'token');
  if (c.type === 'hive' || c.type === 'hms') issues.push(...hiveCatalogIssues(c));
  if (c.type !== 'rest') {
    if (provider !== undefined || token !== undefined) issues.push({ key: 'token', message: `token and token.provider are REST catalog options; this catalog has type ${c.type}` });
    return issues;
  }
  if (c.uri === undefined) issues.push({ key: 'uri', message: 'a REST catalog needs uri: the REST server URL (http://host:port or https://...)' });
  else if (!/^https?:\/\/[^/\s]+/i.test(c.uri)) issues.push({ key: 'uri', message: `uri must be an http:// or https:// URL of the REST server, got '${c.uri.replace(/\/\/[^@/]*@/, '//****@')}'` });
  else if (/^https?:\/\/[^/]*@/i.test(c.uri)) issues.push({ key: 'uri', message: 'uri must not carry credentials; give the token as token' });
  if (provider === undefined) issues.push({ key: 'token.provider', message: "a REST catalog needs token.provider: bear (a bearer token given as token) or dlf (Aliyun DLF's access key in dlf.access-key-id and dlf.access-key-secret)" });
  else if (provider !== 'bear' && provider !== 'dlf') issues.push({ key: 'token.provider', message: `token.provider must be 'bear' or 'dlf', got '${provider}'` });
  if (provider === 'bear' && (token === undefined || token === '')) issues.push({ key: 'token', message: 'token.provider bear needs token: the bearer token' });
  if (provider === 'dlf') {
    const p = restProperties(c.properties);
    for (const key of ['dlf.access-key-id', 'dlf.access-key-secret']) {
      if ((p[key] ?? '') === '' && p['dlf.token-loader'] === undefined && p['dlf.token-path'] === undefined) issues.push({ key, message: `token.provider dlf needs ${key} (or ${DORIS_REST_PREFIX}${key}, as Doris spells it)` });
    }
  }
  return issues;
}

export const userSchema = z.strictObject({
  name: z.string().min(1),
  /** mysql_native_password stored hash: '*' + hex(SHA1(SHA1(password))), 41 chars. */
  native_hash: z.string().regex(/^\*[0-9A-Fa-f]{40}$/).optional(),
  /** caching_sha2_password stored hash as MySQL writes it ($A$005$...), or our own salted SHA-256 form. */
  sha2_hash: z.string().optional(),
  /** Grants in standalone mode, e.g. ["ALTER ON paimon.*.*", "SELECT ON *.*.*"]. */
  grants: z.array(z.string()).default([]),
});

export const configSchema = z.strictObject({
  listen: z
    .strictObject({
      host: z.string().default('127.0.0.1'),
      /** 9031: beside a Doris FE's own query port 9030 on the same host. */
      port: port.default(9031),
      tls: z
        .strictObject({ cert: z.string(), key: z.string(), required: z.boolean().default(false) })
        .optional(),
      /**
       * Processes sharing the listen socket (node:cluster). Every connection lives in one
       * process; more than one spreads the forwarding work over CPU cores.
       */
      workers: z.number().int().min(1).max(256).default(1),
      /**
       * Largest command packet (bytes) an authenticated client may send, as MySQL's and
       * MariaDB's max_allowed_packet (same range, MySQL's default 64 MiB): a larger one gets
       * ER_NET_PACKET_TOO_LARGE and the connection is closed. Before authentication the limit
       * is a fixed 128 KiB (src/session/session.ts).
       */
      max_allowed_packet: z.number().int().min(1024).max(1 << 30).default(64 << 20),
      /**
       * Seconds a client has to finish the connection phase (handshake, TLS, authentication),
       * as MySQL's and MariaDB's connect_timeout (default 10): then the connection is closed
       * without a packet, as MariaDB does, and its FE connection with it.
       */
      connect_timeout: z.number().positive().max(31_536_000).default(10),
      /** Offer the compressed protocol (CLIENT_COMPRESS, zlib) to clients. */
      compression: z.boolean().default(true),
    })
    .prefault({}),
  upstream: z
    .strictObject({
      host: z.string(),
      port: port.default(9030),
      tls: z.boolean().default(false),
      /** With tls: PEM file of the CA (or the self-signed certificate) that signed the FE's certificate; default: the system CAs. */
      tls_ca: z.string().optional(),
      /** With tls: verify the FE's certificate and host name (turn off only for testing). */
      tls_verify: z.boolean().default(true),
      /** With tls: the name to verify in the FE's certificate when it differs from `host`. */
      tls_servername: z.string().optional(),
      /** Send a PROXY protocol v1 line first (Doris enable_proxy_protocol=true). */
      proxy_protocol: z.boolean().default(false),
      /**
       * When the FE asks for the password in clear text (mysql_clear_password: Doris with LDAP)
       * and the client came over TLS while the FE connection is plain: 'loopback' relays it only
       * when the FE is on a loopback address (the password never leaves this host), 'refuse'
       * never relays it, 'allow' always does (a trusted network to the FE). A refused login gets
       * ERR 1251 and the password never reaches the FE.
       */
      cleartext_password: z.enum(['loopback', 'refuse', 'allow']).default('loopback'),
      connect_timeout_ms: z.number().int().positive().default(10000),
      /**
       * The proxy's own FE account for `REFRESH TABLE <catalog>.<db>.<table>` after a procedure
       * changed a table (src/fe-refresh.ts). Without it no refresh is sent (a Note says so).
       */
      refresh_user: z.string().min(1).optional(),
      refresh_password: z.string().optional(),
      /** Compress the FE leg too when the client compresses and the FE offers it (Doris does not). */
      compression: z.boolean().default(true),
      /**
       * Relay the plain statements of sessions with plain, uncompressed legs in the native relay
       * thread (native/native-relay.c, built by `npm ci`): 'auto' when it is built (else in
       * JavaScript, said at start-up), 'on' refuses to start without it, 'off' relays every
       * byte in JavaScript.
       */
      native_relay: z.enum(['auto', 'on', 'off']).default('auto'),
    })
    .optional(),
  catalogs: z.array(catalogSchema).default([]),
  /**
   * Also serve the FE's own Paimon catalogs (src/fe-catalogs.ts), read over the
   * upstream.refresh_user account with SHOW CATALOGS / SHOW CREATE CATALOG. The FE hides
   * secrets, so they are given here per catalog. A name also in `catalogs` keeps the configured one.
   */
  catalogs_from_fe: z
    .strictObject({
      /** Rediscover this often (also after a forwarded REFRESH CATALOG succeeds). */
      refresh_interval_ms: z.number().int().min(1000).default(60_000),
      /** Only these FE catalog names; all paimon catalogs when absent. */
      include: z.array(z.string().min(1)).min(1).optional(),
      /** Per FE catalog name: properties that replace the FE's (secrets the FE prints as *XXX). */
      overrides: z.record(z.string(), z.strictObject({ properties: z.record(z.string(), z.string()).default({}) })).default({}),
    })
    .optional(),
  /** Standalone mode: a YAML/JSON file with `users: [...]` (userSchema); relative to the config file. */
  users_file: z.string().optional(),
  logging: z
    .strictObject({
      level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
      file: z.string().optional(),
      /**
       * Progress of running procedures (sync CALLs and async jobs) at level info: a line when a
       * call enters a new phase and, while it stays in one, a line at most (and at least) every
       * this many ms with its latest counts. 0 turns these lines off.
       */
      progress_interval_ms: z.number().int().nonnegative().default(10_000),
    })
    .prefault({}),
  audit: z
    .strictObject({
      file: z.string().optional(),
      /** Rotate the audit file when it would grow past this many bytes (audit.jsonl -> .1 ... .keep). Unset: never (SIGHUP reopens it, for logrotate). */
      max_bytes: z.number().int().min(4096).optional(),
      /** Rotated audit files kept. */
      keep: z.number().int().min(1).max(100).default(5),
      /** Also insert each record into a table over a MySQL-protocol connection (created if absent). */
      mysql: mysqlTargetSchema
        .extend({ table: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).default('paimon_procedure_audit') })
        .optional(),
    })
    .prefault({}),
  /** Privilege checks for intercepted CALLs (src/security). */
  security: z
    .strictObject({
      /** How long a user's grants fetched from the FE are reused. */
      grant_cache_ttl_ms: z.number().int().nonnegative().default(30_000),
      /** Set false only for trusted single-user set-ups: every CALL is then allowed. */
      check_privileges: z.boolean().default(true),
    })
    .prefault({}),
  /** Asynchronous procedure jobs (procedures/jobs). */
  jobs: z
    .strictObject({
      /** 'file': JSON lines under `dir` (default <cwd>/.paimon-proxy); 'mysql': a shared table. */
      store: z.enum(['file', 'mysql']).default('file'),
      dir: z.string().optional(),
      mysql: mysqlTargetSchema
        .extend({ table: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).default('paimon_procedure_jobs') })
        .optional(),
      /** Finished jobs older than this are dropped from the store when it is compacted. */
      retention_ms: z.number().int().positive().default(7 * 86_400_000),
    })
    .prefault({}),
  metrics: z.strictObject({ port: port.optional(), host: z.string().default('127.0.0.1') }).prefault({}),
  /**
   * Trace spans of intercepted CALLs (a span per CALL, a child per phase), off by default.
   * `file`: append them as JSON lines to this file; `console`: write them to standard error.
   */
  tracing: z.strictObject({ file: z.string().optional(), console: z.boolean().default(false) }).prefault({}),
  procedures: procedureLimitsSchema,
});

export const configWithFromFeSchema = configSchema.superRefine((c, ctx) => {
  if (c.catalogs_from_fe === undefined) return;
  if (c.upstream === undefined) ctx.addIssue({ code: 'custom', path: ['catalogs_from_fe'], message: 'catalogs_from_fe needs an upstream FE to read the catalogs from' });
  else if (c.upstream.refresh_user === undefined) ctx.addIssue({ code: 'custom', path: ['catalogs_from_fe'], message: 'catalogs_from_fe reads the FE with upstream.refresh_user (and refresh_password); configure that account' });
});

export type CatalogConfig = z.infer<typeof catalogSchema>;
export type UserConfig = z.infer<typeof userSchema>;
export type ProxyConfig = z.infer<typeof configSchema>;
