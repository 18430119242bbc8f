/**
 * Masking of secrets wherever a value may be shown: logs, audit records, error messages,
 * `SHOW`-style output and configuration dumps.
 *
 * One rule: a value is secret when the key that names it names a secret (`s3.secret-key`,
 * `password`, `fs.oss.accessKeySecret`, `token`, `session-token`, `access_key`, `credential`,
 * ...). The rule is applied to object keys, to `{name, value}` argument pairs and to free text
 * (`'s3.secret-key'='...'`, `password=...`, `token => '...'`, JSON, URL user-info,
 * `IDENTIFIED BY '...'`). Values registered with `registerSecret` (credentials from the
 * configuration) are also replaced wherever they occur in text, so an upstream library's error
 * message that echoes a key is masked too.
 */

export const MASK = '******';

/**
 * Fragments that make a key name a secret, compared after lower-casing and removing
 * separators (`-`, `_`, `.`, spaces), so `s3.secret-key`, `SECRET_KEY` and `secretKey` agree.
 */
const SECRET_KEY_FRAGMENTS = [
  'secret',
  'password',
  'passwd',
  'passphrase',
  'pwd',
  'token',
  'accesskey',
  'credential',
  'privatekey',
  'apikey',
  'authorization',
  'signature',
  'sessionkey',
] as const;

/** True when a key (option name, argument name, column name, JSON field) names a secret. */
export function isSecretKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[-_.\s]/g, '');
  return SECRET_KEY_FRAGMENTS.some((f) => k.includes(f));
}

// ---------------------------------------------------------------------------------------------
// Known secret values (from configuration), masked wherever they appear in text.

const knownSecrets = new Set<string>();

/**
 * Remember a secret value (a configured password, key, token) so that `mask` replaces it in
 * any text, also where no key names it. Values shorter than 4 characters are not registered:
 * replacing them everywhere would garble unrelated text and protects little.
 */
export function registerSecret(value: string | undefined | null): void {
  if (typeof value === 'string' && value.length >= 4) knownSecrets.add(value);
}

/** Register every value of a configuration object whose key names a secret. */
export function registerSecretsFrom(value: unknown): void {
  walkSecrets(value, false, 0);
}

function walkSecrets(value: unknown, underSecretKey: boolean, depth: number): void {
  if (depth > 32 || value === null || value === undefined) return;
  if (typeof value === 'string') {
    if (underSecretKey) registerSecret(value);
    return;
  }
  if (Array.isArray(value)) {
    for (const v of value) walkSecrets(v, underSecretKey, depth + 1);
    return;
  }
  if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      walkSecrets(v, underSecretKey || isSecretKey(k), depth + 1);
    }
  }
}

/** For tests: forget registered secrets. */
export function clearRegisteredSecrets(): void {
  knownSecrets.clear();
}

// ---------------------------------------------------------------------------------------------
// Free text.

const KEY_FRAGMENT_RE =
  'secret|password|passwd|passphrase|pwd|token|access[-_.]?key|credential|private[-_.]?key|api[-_.]?key|authorization|signature|session[-_.]?key';

/**
 * `key <sep> value` where key names a secret. The key may be quoted with ', " or `; the
 * separator is `=`, `=>`, `:` (JSON/YAML) or `IS`; the value is a quoted string (with SQL ''
 * or backslash escapes) or a bare run up to a delimiter.
 */
const KEY_VALUE_RE = new RegExp(
  // 1: opening quote of the key, 2: the key, then the matching closing quote
  `(['"\`]?)([A-Za-z0-9_.\\-]*(?:${KEY_FRAGMENT_RE})[A-Za-z0-9_.\\-]*)\\1` +
    // 3: separator with surrounding blanks
    `(\\s*(?:=>|=|:)\\s*)` +
    // 4: the value
    `('(?:[^'\\\\]|\\\\.|'')*'|"(?:[^"\\\\]|\\\\.|"")*"|[^\\s,;&()'"}\\]]+(?![\\w(]))`,
  'gi',
);

/** `IDENTIFIED BY [PASSWORD] '...'`, `IDENTIFIED WITH plugin AS|BY '...'`, `USING '...'`, `PASSWORD('...')`. */
const SQL_PASSWORD_RES: RegExp[] = [
  /(\bIDENTIFIED\s+(?:WITH\s+\S+\s+)?(?:BY|AS)\s+(?:PASSWORD\s+)?)('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")/gi,
  /(\bIDENTIFIED\s+VIA\s+\S+\s+(?:USING|AS)\s+(?:PASSWORD\s*\(\s*)?)('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")/gi,
  /(\bSET\s+PASSWORD\s+(?:FOR\s+\S+\s*)?=\s*)('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")/gi,
  /(\bPASSWORD\s*\(\s*)('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")/gi,
];

/** `scheme://user:password@host` */
const URL_USERINFO_RE = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)([^\s@/]+)(@)/gi;

/** `Authorization: Bearer xyz` / `AWS4-HMAC-SHA256 Credential=...` are covered by KEY_VALUE_RE. */

function maskQuoted(v: string): string {
  const q = v[0];
  if ((q === "'" || q === '"') && v.length >= 2 && v[v.length - 1] === q) return `${q}${MASK}${q}`;
  return MASK;
}

/** Mask secrets inside free text (SQL, option strings, messages, stack traces). */
export function maskText(text: string): string {
  if (text.length === 0) return text;
  let out = text.replace(KEY_VALUE_RE, (m, q: string, key: string, sep: string, value: string) => {
    // "unexpected token: )" in a parser message is not a secret; a bare `token:` is.
    if (q === '' && key.toLowerCase() === 'token' && sep.trim() === ':' && !/^['"]/.test(value) && value.length < 4) {
      return m;
    }
    return `${q}${key}${q}${sep}${maskQuoted(value)}`;
  });
  for (const re of SQL_PASSWORD_RES) {
    out = out.replace(re, (_m, pre: string, value: string) => `${pre}${maskQuoted(value)}`);
  }
  out = out.replace(URL_USERINFO_RE, (_m, pre: string, _pw: string, at: string) => `${pre}${MASK}${at}`);
  if (knownSecrets.size > 0) {
    for (const s of knownSecrets) {
      if (out.includes(s)) out = out.split(s).join(MASK);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Any value.

/**
 * Return a copy of `value` with every secret masked: object members whose key names a secret,
 * the `value` of `{name|key, value}` pairs whose name does, and secrets in any string (see
 * maskText). Errors become plain objects `{name, message, code?, stack?}` with masked text.
 * The input is never modified. `key` is the key under which `value` itself was found.
 */
export function mask<T>(value: T, key?: string): T {
  return maskInner(value, key !== undefined && isSecretKey(key), 0, new WeakSet()) as T;
}

function maskInner(value: unknown, secret: boolean, depth: number, seen: WeakSet<object>): unknown {
  if (value === null || value === undefined) return value;
  if (secret) {
    // A secret key's value is masked whatever its type; keep null/undefined visible
    // (knowing that no password is set is not a leak).
    return MASK;
  }
  switch (typeof value) {
    case 'string':
      return maskText(value);
    case 'number':
    case 'bigint':
    case 'boolean':
      return value;
    case 'function':
    case 'symbol':
      return undefined;
    default:
      break;
  }
  if (depth > 32) return '[depth limit]';
  const obj = value as object;
  if (seen.has(obj)) return '[circular]';
  seen.add(obj);
  try {
    if (obj instanceof Date) return obj;
    if (Buffer.isBuffer(obj)) return `<${obj.length} bytes>`;
    if (obj instanceof Error) {
      const e = obj as Error & { code?: unknown; errno?: unknown; sqlState?: unknown };
      const out: Record<string, unknown> = { name: e.name, message: maskText(e.message) };
      if (e.code !== undefined) out.code = e.code;
      if (e.errno !== undefined) out.errno = e.errno;
      if (e.sqlState !== undefined) out.sqlState = e.sqlState;
      if (typeof e.stack === 'string') out.stack = maskText(e.stack);
      for (const [k, v] of Object.entries(e)) {
        if (!(k in out)) out[k] = maskInner(v, isSecretKey(k), depth + 1, seen);
      }
      return out;
    }
    if (Array.isArray(obj)) return obj.map((v) => maskInner(v, false, depth + 1, seen));
    if (obj instanceof Map) {
      const m = new Map<unknown, unknown>();
      for (const [k, v] of obj) m.set(k, maskInner(v, typeof k === 'string' && isSecretKey(k), depth + 1, seen));
      return m;
    }
    if (obj instanceof Set) return new Set([...obj].map((v) => maskInner(v, false, depth + 1, seen)));
    const rec = obj as Record<string, unknown>;
    // An argument pair {name: 'password', value: '...'} (or key/value, option/value).
    const pairName = typeof rec.name === 'string' ? rec.name : typeof rec.key === 'string' ? rec.key : undefined;
    const pairIsSecret = pairName !== undefined && 'value' in rec && isSecretKey(pairName);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(rec)) {
      const isSecret = isSecretKey(k) || (pairIsSecret && k === 'value');
      out[k] = maskInner(v, isSecret, depth + 1, seen);
    }
    return out;
  } finally {
    seen.delete(obj);
  }
}

/**
 * Mask a list of `[key, value]` rows as SHOW-style output has them (e.g. `SHOW CATALOG
 * properties`): the value is masked when the key names a secret.
 */
export function maskRows<R extends readonly (string | null)[]>(rows: R[], keyColumn: number, valueColumn: number): R[] {
  return rows.map((r) => {
    const k = r[keyColumn];
    if (typeof k === 'string' && isSecretKey(k) && r[valueColumn] !== null) {
      const copy = [...r] as unknown as (string | null)[];
      copy[valueColumn] = MASK;
      return copy as unknown as R;
    }
    return r.map((c) => (c === null ? c : maskText(c))) as unknown as R;
  });
}
