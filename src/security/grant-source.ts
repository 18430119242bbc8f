/**
 * Where a caller's grants come from:
 *
 * * With an upstream FE: `SHOW GRANTS` on the caller's own upstream session (so the FE answers
 *   for exactly the identity it authenticated, roles and host patterns included), parsed as
 *   Doris's or MariaDB's form, cached briefly per user and host.
 * * Standalone: the `grants` of the user in the users file (or of the built-in user).
 */
import { GrantCache } from './grant-cache.js';
import { parseConfigGrants, parseShowGrants, type ShowGrantsResult } from './grants-parser.js';
import { identityOf, type UserGrants } from './privileges.js';

/** Who is asking: the fields of the procedure framework's CallerInfo that matter here. */
export interface GrantSubject {
  user: string;
  connectionId: number;
  clientAddress: string;
}

export interface GrantSource {
  grantsFor(subject: GrantSubject): Promise<UserGrants>;
}

/**
 * Runs one statement on the upstream session of a client connection and returns its text
 * result set. The session layer provides it: the session's upstream connection is idle while
 * the proxy runs a CALL, so the statement goes there between the client's own statements.
 */
export type UpstreamQuery = (connectionId: number, sql: string) => Promise<ShowGrantsResult>;

export class UpstreamGrantSource implements GrantSource {
  constructor(private readonly query: UpstreamQuery, private readonly cache: GrantCache) {}

  grantsFor(subject: GrantSubject): Promise<UserGrants> {
    const id = identityOf(subject.user, subject.clientAddress);
    return this.cache.get(GrantCache.key(id.user, id.host), async () => parseShowGrants(await this.query(subject.connectionId, 'SHOW GRANTS')));
  }
}

export class ConfigGrantSource implements GrantSource {
  private readonly byUser = new Map<string, UserGrants>();

  /** Parses every user's grants now, so a mistake in the configuration is reported at start-up. */
  constructor(users: Iterable<{ name: string; grants: readonly string[] }>) {
    for (const u of users) {
      try {
        this.byUser.set(u.name, parseConfigGrants(u.grants));
      } catch (e) {
        throw new Error(`user ${u.name}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }

  async grantsFor(subject: GrantSubject): Promise<UserGrants> {
    return this.byUser.get(subject.user) ?? { source: 'config', grants: [], roles: [] };
  }
}
