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

/**
 * Fragments that make a key in free text name a secret. Free text is scanned by hand from each
 * fragment outwards (not with one big regular expression, whose backtracking is quadratic on
 * long runs of name characters: a 100 kB statement took 50 s).
 */
const KEY_FRAGMENT_SCAN = /secret|password|passwd|passphrase|pwd|token|access[-_.]?key|credential|private[-_.]?key|api[-_.]?key|authorization|signature|session[-_.]?key/gi;

function isKeyChar(c: string | undefined): boolean {
  return c !== undefined && /[A-Za-z0-9_.\-]/.test(c);
}

function isBlank(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

const BARE_VALUE_STOP = new Set([' ', '\t', '\n', '\r', ',', ';', '&', '(', ')', "'", '"', '}', ']']);

/** End (exclusive) of a quoted value starting at `i` (SQL '' doubling and backslash escapes), or -1. */
function quotedEnd(text: string, i: number): number {
  const q = text[i];
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j];
    if (c === '\\') {
      j++;
      continue;
    }
    if (c === q) {
      if (text[j + 1] === q) {
        j++;
        continue;
      }
      return j + 1;
    }
  }
  return -1;
}

/**
 * `key <sep> value` where key names a secret: the key may be quoted with ', " or `; the
 * separator is `=`, `=>` or `:` (JSON, YAML, headers) with blanks around; the value is a quoted
 * string or a bare run up to a delimiter (a bare run followed by `(` is a function call, as in
 * `PASSWORD('...')`, and is left to the SQL rules).
 */
function maskKeyValues(text: string): string {
  let out = '';
  let copied = 0;
  let examinedUntil = 0;
  KEY_FRAGMENT_SCAN.lastIndex = 0;
  for (let m = KEY_FRAGMENT_SCAN.exec(text); m !== null; m = KEY_FRAGMENT_SCAN.exec(text)) {
    if (m.index < examinedUntil) continue;
    let ks = m.index;
    while (ks > 0 && isKeyChar(text[ks - 1])) ks--;
    let ke = m.index + m[0].length;
    while (ke < text.length && isKeyChar(text[ke])) ke++;
    examinedUntil = ke;
    KEY_FRAGMENT_SCAN.lastIndex = Math.max(KEY_FRAGMENT_SCAN.lastIndex, ke);
    const open = text[ks - 1];
    let i = ke;
    let quotedKey = false;
    if ((open === "'" || open === '"' || open === '`') && text[ke] === open) {
      quotedKey = true;
      i++;
    }
    while (isBlank(text[i])) i++;
    let sep = '';
    if (text.startsWith('=>', i)) sep = '=>';
    else if (text[i] === '=' || text[i] === ':') sep = text[i]!;
    if (sep === '' || text.startsWith('://', i)) continue;
    i += sep.length;
    while (isBlank(text[i])) i++;
    const vs = i;
    let ve: number;
    let replacement: string;
    const c = text[vs];
    if (c === "'" || c === '"') {
      ve = quotedEnd(text, vs);
      if (ve < 0) ve = text.length;
      replacement = `${c}${MASK}${c}`;
    } else {
      ve = vs;
      while (ve < text.length && !BARE_VALUE_STOP.has(text[ve]!)) ve++;
      if (ve === vs || text[ve] === '(') continue;
      // "unexpected token: )" in a parser message is not a secret; a bare `token: <value>` is.
      if (!quotedKey && sep === ':' && text.slice(ks, ke).toLowerCase() === 'token' && ve - vs < 4) continue;
      replacement = MASK;
    }
    out += text.slice(copied, vs) + replacement;
    copied = ve;
    examinedUntil = ve;
    KEY_FRAGMENT_SCAN.lastIndex = ve;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** `IDENTIFIED BY [PASSWORD] '...'`, `IDENTIFIED WITH plugin AS|BY '...'`, `USING '...'`, `PASSWORD('...')`. */
const SQL_PASSWORD_RES: RegExp[] = [
  /(\bIDENTIFIED\s+(?:WITH\s+\S+\s+)?(?:BY|AS)\s+(?:PASSWORD\s+)?)('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")/gi,
  /(\bIDENTIFIED\s+VIA\s+\S+\s+(?:USING|AS)\s+(?:PASSWORD\s*\(\s*)?)('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")/gi,
  /(\bSET\s+PASSWORD\s+(?:FOR\s+\S+\s*)?=\s*)('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")/gi,
  /(\bPASSWORD\s*\(\s*)('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")/gi,
];

/** `scheme://user:password@host`: the password is masked. */
function maskUrlUserInfo(text: string): string {
  let out = '';
  let copied = 0;
  for (let at = text.indexOf('://'); at >= 0; at = text.indexOf('://', at + 3)) {
    const start = at + 3;
    let i = start;
    // user part up to ':'
    while (i < text.length && !/[\s/:@]/.test(text[i]!)) i++;
    if (i === start || text[i] !== ':') continue;
    const ps = i + 1;
    let pe = ps;
    while (pe < text.length && !/[\s@/]/.test(text[pe]!)) pe++;
    if (pe === ps || text[pe] !== '@') continue;
    out += text.slice(copied, ps) + MASK;
    copied = pe;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function maskQuoted(v: string): string {
  const q = v[0];
  if ((q === "'" || q === '"') && v.length >= 2 && v[v.length - 1] === q) return `${q}${MASK}${q}`;
  return MASK;
}

/** Mask secrets inside free text (SQL, option strings, messages, stack traces). */
export function maskText(text: string): string {
  if (text.length === 0) return text;
  let out = maskKeyValues(text);
  for (const re of SQL_PASSWORD_RES) {
    out = out.replace(re, (_m, pre: string, value: string) => `${pre}${maskQuoted(value)}`);
  }
  out = maskUrlUserInfo(out);
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
