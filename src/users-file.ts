/**
 * The standalone mode's users: a YAML or JSON file `users: [...]` (userSchema) that holds
 * password hashes only, never passwords:
 *   native_hash: '*' + hex(SHA1(SHA1(password)))      (mysql_native_password, as MySQL stores it)
 *   sha2_hash:   hex(SHA256(SHA256(password)))         (caching_sha2_password fast path)
 * `paimon-procedure-proxy hash-password` prints both for a password read from standard input.
 *
 * Without a users file there is one built-in user `root` with no password, which is allowed only
 * while the proxy listens on a loopback address.
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { userSchema, type UserConfig } from './config-schema.js';
import { ConfigError, isLoopbackHost } from './config.js';

export const BUILTIN_USER = 'root';

export interface LocalUser {
  name: string;
  /** '*HEX' or null. */
  nativeHash: string | null;
  /** 64 hex digits or null. */
  sha2Hash: string | null;
  grants: string[];
}

export function hasPassword(u: LocalUser): boolean {
  return u.nativeHash !== null || u.sha2Hash !== null;
}

const usersFileSchema = z.strictObject({ users: z.array(userSchema).min(1, 'at least one user is required') });

function toLocalUser(u: UserConfig, where: string): LocalUser {
  if (u.sha2_hash !== undefined && !/^[0-9A-Fa-f]{64}$/.test(u.sha2_hash)) {
    throw new ConfigError(
      `${where}: user ${u.name}: sha2_hash must be hex(SHA256(SHA256(password))), 64 hex digits ` +
        '(MySQL $A$005$ hashes cannot be used: they need the password itself); `paimon-procedure-proxy hash-password` prints it',
    );
  }
  return { name: u.name, nativeHash: u.native_hash?.toUpperCase() ?? null, sha2Hash: u.sha2_hash?.toLowerCase() ?? null, grants: u.grants };
}

export async function loadUsersFile(path: string): Promise<LocalUser[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`cannot read users file ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let parsed: unknown;
  try {
    parsed = /\.json$/i.test(path) ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new ConfigError(`users file ${path} is not valid YAML/JSON: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
  }
  const r = usersFileSchema.safeParse(parsed);
  if (!r.success) {
    const lines = r.error.issues.map((i) => `  ${i.path.map(String).join('.') || '(top level)'}: ${i.message}`);
    throw new ConfigError(`invalid users file ${path}:\n${lines.join('\n')}`);
  }
  const users = r.data.users.map((u) => toLocalUser(u, `users file ${path}`));
  const seen = new Set<string>();
  for (const u of users) {
    if (seen.has(u.name)) throw new ConfigError(`users file ${path}: user ${u.name} is listed twice`);
    seen.add(u.name);
  }
  return users;
}

export interface LocalUsers {
  users: Map<string, LocalUser>;
  /** True when the built-in passwordless root is in use. */
  builtin: boolean;
}

/**
 * The users of a standalone proxy. Refuses (ConfigError) any user without a password when the
 * listen address is not loopback.
 */
export async function resolveLocalUsers(usersFile: string | undefined, listenHost: string): Promise<LocalUsers> {
  const list: LocalUser[] = usersFile
    ? await loadUsersFile(usersFile)
    : [{ name: BUILTIN_USER, nativeHash: null, sha2Hash: null, grants: ['ALL ON *.*.*'] }];
  if (!isLoopbackHost(listenHost)) {
    const open = list.filter((u) => !hasPassword(u)).map((u) => u.name);
    if (open.length > 0) {
      throw new ConfigError(
        usersFile
          ? `refusing to listen on ${listenHost} (not loopback) with users that have no password: ${open.join(', ')}`
          : `refusing to listen on ${listenHost} (not loopback) in standalone mode with the built-in user root, which has no password; configure users_file with password hashes`,
      );
    }
  }
  return { users: new Map(list.map((u) => [u.name, u])), builtin: !usersFile };
}
