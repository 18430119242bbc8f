/**
 * JSON as Paimon writes it: 64-bit exact numbers and Jackson's default pretty printer
 * (`JsonSerdeUtil.toJson` = `writerWithDefaultPrettyPrinter()`).
 *
 * Reading: integer literals that fit a JS safe integer become `number`, larger ones `bigint`
 * (`commitIdentifier` = Long.MAX_VALUE, `watermark` = Long.MIN_VALUE); literals with a fraction or
 * exponent are kept verbatim as {@link JsonDecimal} (a tag's `tagTimeRetained`, `86400.000000000`).
 *
 * Writing (Jackson 2 DefaultPrettyPrinter): two-space indent per object level, `"key" : value`,
 * arrays inline as `[ a, b ]` (objects inside them open on the same line: `[ {`), empty containers
 * as `{ }` / `[ ]`, `\n` line breaks, no trailing newline. Keys whose value is `undefined` are
 * omitted (that is how callers express Jackson's `@JsonInclude(NON_NULL)`); `null` is written.
 */
import { PaimonError } from '../errors.js';

/** A JSON number with a fraction or exponent, kept as its source text. */
export class JsonDecimal {
  constructor(readonly text: string) {
    if (!/^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/.test(text)) {
      throw new PaimonError('INVALID_ARGUMENT', `not a JSON number: ${text}`);
    }
  }
  toNumber(): number {
    return Number(this.text);
  }
  toString(): string {
    return this.text;
  }
}

export type JsonValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | JsonDecimal
  | JsonValue[]
  | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue | undefined;
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/** Text that JSON.parse reads exactly like our parser: no 16+ digit runs, no fractions/exponents. */
const NEEDS_EXACT_PARSE = /\d{16,}|\d\.\d|\d[eE][-+]?\d/;

/**
 * Parse JSON text. `what` names the source (a file path) for error messages.
 * Throws PaimonError CORRUPT_METADATA on malformed input.
 */
export function parseJson(text: string, what = 'JSON'): JsonValue {
  if (!NEEDS_EXACT_PARSE.test(text)) {
    try {
      return JSON.parse(text) as JsonValue;
    } catch (e) {
      throw new PaimonError('CORRUPT_METADATA', `malformed JSON in ${what}: ${(e as Error).message}`);
    }
  }
  // Fast exact path: wrap the few number literals JSON.parse would round (16+ digit integers,
  // fractions, exponents) as marker strings, then turn them back in a reviver. A NUL character
  // cannot appear unescaped in JSON text; texts that escape one use the hand-written parser.
  if (!text.includes('\\u0000')) {
    let wrapped: string;
    try {
      wrapped = text.replace(NUMBER_OR_STRING, (m) => (m.charCodeAt(0) === 0x22 ? m : `"\\u0000${m}"`));
      return JSON.parse(wrapped, reviveMarkers) as JsonValue;
    } catch {
      // Fall through: the exact parser reports the error with its offset.
    }
  }
  return new Parser(text, what).parseDocument();
}

/** A JSON string literal, or a number literal that JSON.parse would not keep exactly. */
const NUMBER_OR_STRING = /"(?:[^"\\]|\\.)*"|-?\d{16,}(?:\.\d+)?(?:[eE][-+]?\d+)?|-?\d+(?:\.\d+(?:[eE][-+]?\d+)?|[eE][-+]?\d+)/g;

function reviveMarkers(_key: string, v: unknown): unknown {
  if (typeof v !== 'string' || v.charCodeAt(0) !== 0) return v;
  const text = v.slice(1);
  // Leading zeros etc. are not JSON: let the exact parser report them.
  if (!/^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/.test(text)) throw new SyntaxError('bad number');
  if (/^-?\d+$/.test(text)) {
    const big = BigInt(text);
    return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
  }
  return new JsonDecimal(text);
}

/** The hand-written exact parser alone (the reference the fast paths are tested against). */
export function parseJsonExact(text: string, what = 'JSON'): JsonValue {
  return new Parser(text, what).parseDocument();
}

class Parser {
  private pos = 0;
  constructor(
    private readonly s: string,
    private readonly what: string,
  ) {}

  parseDocument(): JsonValue {
    this.ws();
    const v = this.value();
    this.ws();
    if (this.pos !== this.s.length) this.fail('unexpected trailing characters');
    return v;
  }

  private fail(msg: string): never {
    throw new PaimonError('CORRUPT_METADATA', `malformed JSON in ${this.what} at offset ${this.pos}: ${msg}`);
  }

  private ws(): void {
    const s = this.s;
    while (this.pos < s.length) {
      const c = s.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.pos++;
      else break;
    }
  }

  private value(): JsonValue {
    const c = this.s[this.pos];
    switch (c) {
      case '{':
        return this.object();
      case '[':
        return this.array();
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
      default:
        if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
        return this.fail(c === undefined ? 'unexpected end of input' : `unexpected character ${JSON.stringify(c)}`);
    }
  }

  private literal<T extends JsonValue>(word: string, v: T): T {
    if (this.s.startsWith(word, this.pos)) {
      this.pos += word.length;
      return v;
    }
    return this.fail(`expected ${word}`);
  }

  private number(): JsonValue {
    const re = /-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;
    re.lastIndex = this.pos;
    const m = re.exec(this.s);
    if (!m) return this.fail('bad number');
    this.pos = re.lastIndex;
    const text = m[0];
    if (m[2] !== undefined || m[3] !== undefined) return new JsonDecimal(text);
    if (text.length <= 15 || (text.length === 16 && text[0] === '-')) return Number(text);
    const big = BigInt(text);
    if (big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(big);
    return big;
  }

  private string(): string {
    const s = this.s;
    this.pos++; // opening quote
    let out = '';
    let start = this.pos;
    for (;;) {
      if (this.pos >= s.length) this.fail('unterminated string');
      const c = s.charCodeAt(this.pos);
      if (c === 0x22) {
        out += s.slice(start, this.pos);
        this.pos++;
        return out;
      }
      if (c === 0x5c) {
        out += s.slice(start, this.pos);
        const e = s[this.pos + 1];
        this.pos += 2;
        switch (e) {
          case '"':
            out += '"';
            break;
          case '\\':
            out += '\\';
            break;
          case '/':
            out += '/';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case 't':
            out += '\t';
            break;
          case 'u': {
            const hex = s.slice(this.pos, this.pos + 4);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('bad \\u escape');
            out += String.fromCharCode(parseInt(hex, 16));
            this.pos += 4;
            break;
          }
          default:
            this.fail('bad escape');
        }
        start = this.pos;
        continue;
      }
      this.pos++;
    }
  }

  private array(): JsonValue[] {
    this.pos++;
    const out: JsonValue[] = [];
    this.ws();
    if (this.s[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.ws();
      out.push(this.value());
      this.ws();
      const c = this.s[this.pos++];
      if (c === ']') return out;
      if (c !== ',') this.fail("expected ',' or ']'");
    }
  }

  private object(): JsonObject {
    this.pos++;
    const out: JsonObject = {};
    this.ws();
    if (this.s[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s[this.pos] !== '"') this.fail('expected a key');
      const key = this.string();
      this.ws();
      if (this.s[this.pos++] !== ':') this.fail("expected ':'");
      this.ws();
      const v = this.value();
      // defineProperty so that a "__proto__" key stays an ordinary key.
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      this.ws();
      const c = this.s[this.pos++];
      if (c === '}') return out;
      if (c !== ',') this.fail("expected ',' or '}'");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

const HEX = '0123456789ABCDEF';

/** A JSON string literal escaped as Jackson does (short escapes for \b\t\n\f\r, else \u00XX). */
export function quoteJsonString(s: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) continue;
    out += s.slice(start, i);
    start = i + 1;
    switch (c) {
      case 0x22:
        out += '\\"';
        break;
      case 0x5c:
        out += '\\\\';
        break;
      case 0x08:
        out += '\\b';
        break;
      case 0x09:
        out += '\\t';
        break;
      case 0x0a:
        out += '\\n';
        break;
      case 0x0c:
        out += '\\f';
        break;
      case 0x0d:
        out += '\\r';
        break;
      default:
        out += '\\u00' + HEX[c >> 4] + HEX[c & 15];
    }
  }
  return out + s.slice(start) + '"';
}

function scalar(v: JsonValue): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return v.toString();
    case 'string':
      return quoteJsonString(v);
    case 'number':
      if (!Number.isFinite(v)) throw new PaimonError('INVALID_ARGUMENT', `cannot write ${v} as JSON`);
      return Number.isInteger(v) ? (Object.is(v, -0) ? '0' : v.toFixed(0)) : String(v);
    default:
      if (v instanceof JsonDecimal) return v.text;
      throw new PaimonError('INVALID_ARGUMENT', 'not a JSON scalar');
  }
}

/** Jackson DefaultPrettyPrinter layout (see the module comment). */
export function toJsonPretty(value: JsonValue): string {
  const parts: string[] = [];
  writePretty(value, 0, parts);
  return parts.join('');
}

function indent(level: number): string {
  return '\n' + '  '.repeat(level);
}

function writePretty(v: JsonValue, level: number, out: string[]): void {
  if (Array.isArray(v)) {
    if (v.length === 0) {
      out.push('[ ]');
      return;
    }
    out.push('[ ');
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out.push(', ');
      writePretty(v[i], level, out);
    }
    out.push(' ]');
    return;
  }
  if (v !== null && typeof v === 'object' && !(v instanceof JsonDecimal)) {
    let n = 0;
    out.push('{');
    for (const key of Object.keys(v)) {
      const child = v[key];
      if (child === undefined) continue;
      out.push(n === 0 ? '' : ',', indent(level + 1), quoteJsonString(key), ' : ');
      writePretty(child, level + 1, out);
      n++;
    }
    out.push(n === 0 ? ' }' : indent(level) + '}');
    return;
  }
  out.push(scalar(v));
}

/** Compact form (`JsonSerdeUtil.toFlatJson`): no whitespace at all. */
export function toJsonCompact(value: JsonValue): string {
  if (Array.isArray(value)) return '[' + value.map(toJsonCompact).join(',') + ']';
  if (value !== null && typeof value === 'object' && !(value instanceof JsonDecimal)) {
    const items: string[] = [];
    for (const key of Object.keys(value)) {
      const child = value[key];
      if (child === undefined) continue;
      items.push(quoteJsonString(key) + ':' + toJsonCompact(child));
    }
    return '{' + items.join(',') + '}';
  }
  return scalar(value);
}

// ---------------------------------------------------------------------------------------------
// Typed access for the metadata readers
// ---------------------------------------------------------------------------------------------

export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return v !== null && v !== undefined && typeof v === 'object' && !Array.isArray(v) && !(v instanceof JsonDecimal);
}

/** Reads typed fields from one JSON object, naming the file in every error. */
export class JsonReader {
  constructor(
    readonly obj: JsonObject,
    readonly what: string,
  ) {}

  static of(v: JsonValue, what: string): JsonReader {
    if (!isJsonObject(v)) throw new PaimonError('CORRUPT_METADATA', `${what}: expected a JSON object`);
    return new JsonReader(v, what);
  }

  has(key: string): boolean {
    const v = this.obj[key];
    return v !== undefined && v !== null;
  }

  private bad(key: string, expected: string): never {
    throw new PaimonError('CORRUPT_METADATA', `${this.what}: field "${key}" must be ${expected}`);
  }

  private required(key: string, expected: string): JsonValue {
    const v = this.obj[key];
    if (v === undefined || v === null) this.bad(key, `present (${expected})`);
    return v;
  }

  /** A 64-bit integer as bigint. */
  bigint(key: string): bigint {
    const v = this.required(key, 'an integer');
    return toBigInt(v) ?? this.bad(key, 'an integer');
  }

  optBigint(key: string): bigint | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    return toBigInt(v) ?? this.bad(key, 'an integer');
  }

  /** An integer that must fit a JS safe integer (ids, versions). */
  int(key: string): number {
    const v = this.required(key, 'an integer');
    return toSafeInt(v) ?? this.bad(key, 'an integer within 2^53');
  }

  optInt(key: string): number | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    return toSafeInt(v) ?? this.bad(key, 'an integer within 2^53');
  }

  string(key: string): string {
    const v = this.required(key, 'a string');
    return typeof v === 'string' ? v : this.bad(key, 'a string');
  }

  optString(key: string): string | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    return typeof v === 'string' ? v : this.bad(key, 'a string');
  }

  /** A string map (options, properties). Non-string scalar values are read as their text, like Jackson's asText(). */
  optStringMap(key: string): Record<string, string> | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (!isJsonObject(v)) return this.bad(key, 'an object');
    const out: Record<string, string> = {};
    for (const k of Object.keys(v)) {
      const x = v[k];
      if (x === undefined) continue;
      Object.defineProperty(out, k, { value: asText(x), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  stringArray(key: string): string[] {
    const v = this.required(key, 'an array');
    if (!Array.isArray(v)) return this.bad(key, 'an array of strings');
    return v.map((x) => (typeof x === 'string' ? x : this.bad(key, 'an array of strings')));
  }

  array(key: string): JsonValue[] {
    const v = this.required(key, 'an array');
    return Array.isArray(v) ? v : this.bad(key, 'an array');
  }

  raw(key: string): JsonValue | undefined {
    return this.obj[key];
  }
}

export function toBigInt(v: JsonValue): bigint | null {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  return null;
}

export function toSafeInt(v: JsonValue): number | null {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'bigint' && v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)) {
    return Number(v);
  }
  return null;
}

/** Jackson `JsonNode.asText()` for scalars. */
export function asText(v: JsonValue): string {
  if (typeof v === 'string') return v;
  if (v === null) return 'null';
  if (typeof v === 'object' && !(v instanceof JsonDecimal)) return toJsonCompact(v);
  return scalar(v);
}

/** Build an object preserving the given key order, omitting undefined values. */
export function orderedObject(entries: Array<[string, JsonValue | undefined]>): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of entries) {
    if (v === undefined) continue;
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
