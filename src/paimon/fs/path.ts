/**
 * Path strings as Paimon's `Path` uses them: either a local absolute path (`/wh/db.db/t`),
 * a `file:` URI, or an object-store URI (`s3://bucket/key`). We keep paths as plain strings
 * in the scheme the warehouse was given in, and only ever join with `/`, like
 * `new Path(parent, child)` and the `branchPath(...) + "/snapshot/"` concatenations in
 * paimon-core do.
 */
import { PaimonError } from '../errors.js';

export interface ParsedUri {
  /** Lower-case scheme without `:` (`s3`, `s3a`, `oss`, `file`), or '' for a bare local path. */
  scheme: string;
  /** Bucket (authority) for object stores; '' for local paths. */
  authority: string;
  /** The path part: always starts with `/` for local paths; for object stores, the key without a leading `/`. */
  path: string;
}

const SCHEME_RE = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;

/** The lower-case scheme of a path, or '' for a bare local path. */
export function schemeOf(p: string): string {
  const m = SCHEME_RE.exec(p);
  if (!m) return '';
  // A Windows drive letter is not a scheme; we do not support Windows paths anyway.
  return m[1].toLowerCase();
}

export function isObjectStoreScheme(scheme: string): boolean {
  return scheme === 's3' || scheme === 's3a' || scheme === 's3n' || scheme === 'oss';
}

export function parseUri(p: string): ParsedUri {
  const scheme = schemeOf(p);
  if (scheme === '') {
    return { scheme: '', authority: '', path: p };
  }
  const rest = p.slice(scheme.length + 1);
  if (scheme === 'file') {
    // file:///a/b, file:/a/b, file://localhost/a/b
    let local = rest;
    if (local.startsWith('//')) {
      const slash = local.indexOf('/', 2);
      const host = slash < 0 ? local.slice(2) : local.slice(2, slash);
      if (host !== '' && host !== 'localhost') {
        throw new PaimonError('INVALID_ARGUMENT', `file URI with a remote host is not supported: ${p}`);
      }
      local = slash < 0 ? '/' : local.slice(slash);
    }
    return { scheme, authority: '', path: decodeURIComponentSafe(local) };
  }
  if (!rest.startsWith('//')) {
    throw new PaimonError('INVALID_ARGUMENT', `URI needs an authority (${scheme}://bucket/...): ${p}`);
  }
  const slash = rest.indexOf('/', 2);
  const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
  if (authority === '') {
    throw new PaimonError('INVALID_ARGUMENT', `URI has an empty bucket: ${p}`);
  }
  const key = slash < 0 ? '' : rest.slice(slash + 1);
  return { scheme, authority, path: key };
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Remove trailing slashes (but keep a root `/` and `s3://bucket/`). */
export function stripTrailingSlash(p: string): string {
  let end = p.length;
  while (end > 1 && p[end - 1] === '/') {
    if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/?$/.test(p.slice(0, end))) break;
    end--;
  }
  return p.slice(0, end);
}

/** `join('/wh', 'db.db', 't')` -> `/wh/db.db/t`. Children must be relative names. */
export function join(base: string, ...children: string[]): string {
  let out = stripTrailingSlash(base);
  for (const child of children) {
    if (child === '') continue;
    const c = child.replace(/^\/+/, '');
    out = out.endsWith('/') ? out + c : `${out}/${c}`;
  }
  return out;
}

/** Last path component: `name('/a/b/snapshot-3')` -> `snapshot-3`. */
export function name(p: string): string {
  const s = stripTrailingSlash(p);
  const i = s.lastIndexOf('/');
  return i < 0 ? s : s.slice(i + 1);
}

/** Parent directory, or null at a root (`/`, `s3://bucket`). */
export function parent(p: string): string | null {
  const s = stripTrailingSlash(p);
  const i = s.lastIndexOf('/');
  if (i < 0) return null;
  const head = s.slice(0, i);
  // s3://bucket -> the part before is "s3:/" : we are at the bucket root.
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/?$/.test(head)) return null;
  if (head === '') return s === '/' ? null : '/';
  return head;
}

/** Path of `target` relative to the directory `dir` (which must contain it), or null. */
export function relativize(dir: string, target: string): string | null {
  const d = stripTrailingSlash(dir) + '/';
  if (!target.startsWith(d)) return null;
  return target.slice(d.length);
}

/**
 * The temp file name Paimon uses next to a target (`Path.createTempPath`):
 * `.<name>.<uuid>.tmp` in the same directory. The leading dot keeps it out of prefix listings.
 */
export function tempPathFor(target: string, uuid: string): string {
  const dir = parent(target);
  const tmp = `.${name(target)}.${uuid}.tmp`;
  return dir === null ? tmp : join(dir, tmp);
}
