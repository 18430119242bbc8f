/**
 * Standalone authentication against the users file (hashes only). A small state machine: the
 * session feeds it the HandshakeResponse41 and then each auth reply; it answers with the
 * packets to send and, at the end, success or an access-denied error.
 *
 * The greeting offers mysql_native_password. A client that answers with another plugin is
 * switched (AuthSwitchRequest, same scramble, as Doris does) to the plugin the user's stored hash
 * supports: mysql_native_password when there is a native hash, caching_sha2_password when there
 * is only a SHA-256 hash (MySQL 9 clients no longer carry the native plugin).
 */
import {
  buildAuthMoreData,
  buildAuthSwitchRequest,
  CACHING_SHA2_PASSWORD,
  FAST_AUTH_SUCCESS,
  MYSQL_NATIVE_PASSWORD,
  verifyCachingSha2,
  verifyNativePassword,
} from '../../protocol/auth.js';
import type { HandshakeResponse41 } from '../../protocol/handshake.js';
import type { LocalUser, LocalUsers } from '../users-file.js';

export type AuthStep =
  | { kind: 'continue'; send: Buffer[] }
  | { kind: 'ok'; send: Buffer[]; user: LocalUser }
  | { kind: 'denied'; user: string; usingPassword: boolean };

export class LocalAuthenticator {
  private user: LocalUser | null = null;
  private userName = '';
  private plugin: string | null = null;

  constructor(
    private readonly users: LocalUsers,
    private readonly scramble: Buffer,
  ) {}

  start(resp: HandshakeResponse41): AuthStep {
    this.userName = resp.user;
    this.user = this.users.users.get(resp.user) ?? null;
    const clientPlugin = resp.authPluginName ?? MYSQL_NATIVE_PASSWORD;
    if (this.user === null) return this.denied(resp.authResponse);
    const wanted = this.pluginFor(this.user, clientPlugin);
    // A client whose plugin is not the greeting's (mysql_native_password) may not have used our
    // scramble at all (libmariadb then sends an empty answer): switch, even to the same plugin.
    if (wanted !== clientPlugin || clientPlugin !== MYSQL_NATIVE_PASSWORD) {
      this.plugin = wanted;
      return { kind: 'continue', send: [buildAuthSwitchRequest(wanted, this.scramble)] };
    }
    return this.check(clientPlugin, resp.authResponse);
  }

  /** The client's reply to an AuthSwitchRequest. */
  next(payload: Buffer): AuthStep {
    if (this.user === null || this.plugin === null) return this.denied(payload);
    const plugin = this.plugin;
    this.plugin = null;
    return this.check(plugin, payload);
  }

  private pluginFor(u: LocalUser, clientPlugin: string): string {
    if (clientPlugin === MYSQL_NATIVE_PASSWORD && (u.nativeHash !== null || u.sha2Hash === null)) return MYSQL_NATIVE_PASSWORD;
    if (clientPlugin === CACHING_SHA2_PASSWORD && (u.sha2Hash !== null || u.nativeHash === null)) return CACHING_SHA2_PASSWORD;
    return u.nativeHash !== null || u.sha2Hash === null ? MYSQL_NATIVE_PASSWORD : CACHING_SHA2_PASSWORD;
  }

  private check(plugin: string, token: Buffer): AuthStep {
    const u = this.user!;
    if (plugin === MYSQL_NATIVE_PASSWORD) {
      if (!verifyNativePassword(token, this.scramble, u.nativeHash)) return this.denied(token);
      return { kind: 'ok', send: [], user: u };
    }
    if (plugin === CACHING_SHA2_PASSWORD) {
      if (!verifyCachingSha2(token, this.scramble, u.sha2Hash)) return this.denied(token);
      // Fast-auth success precedes the OK when a password was checked.
      return { kind: 'ok', send: u.sha2Hash !== null ? [buildAuthMoreData(Buffer.from([FAST_AUTH_SUCCESS]))] : [], user: u };
    }
    return this.denied(token);
  }

  private denied(token: Buffer): AuthStep {
    const usingPassword = token.length > 0 && !(token.length === 1 && token[0] === 0);
    return { kind: 'denied', user: this.userName, usingPassword };
  }
}
