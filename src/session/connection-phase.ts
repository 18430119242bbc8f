/**
 * The connection phase of one client connection (MySQL's "Connection Phase"), up to the OK
 * that authenticates the client; then the session enters the command phase.
 *
 * With an upstream FE (pass-through): the FE connection is opened first (with the PROXY
 * protocol line when configured, upstream-connection.ts), the FE's greeting goes to the
 * client with only its capabilities edited, so the client answers the FE's own scramble; the
 * HandshakeResponse and every auth packet are relayed both ways, re-numbered when TLS is on
 * one leg only (our SSLRequest toward the FE takes a sequence id). A password answer that
 * cannot be relayed safely is refused (password-relay.ts).
 *
 * Standalone: the proxy greets with its own scramble and checks the client against the users
 * file (local-auth.ts).
 *
 * Either way a client's SSLRequest upgrades the client socket first, and `listen.tls.required`
 * refuses a HandshakeResponse that arrives over plain TCP.
 */
import type { Socket } from 'node:net';
import { CLEAR_PASSWORD_PLUGIN, generateScramble, isClearPasswordSwitch, isPerformFullAuthentication, MYSQL_NATIVE_PASSWORD } from '../../protocol/auth.js';
import {
  CLIENT_CAPABILITY_EXTENSION,
  CLIENT_COMPRESS,
  CLIENT_CONNECT_ATTRS,
  CLIENT_CONNECT_WITH_DB,
  CLIENT_DEPRECATE_EOF,
  CLIENT_SESSION_TRACK,
  CLIENT_FOUND_ROWS,
  CLIENT_IGNORE_SPACE,
  CLIENT_INTERACTIVE,
  CLIENT_LONG_FLAG,
  CLIENT_MYSQL,
  CLIENT_MULTI_RESULTS,
  CLIENT_MULTI_STATEMENTS,
  CLIENT_PLUGIN_AUTH,
  CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA,
  CLIENT_PROTOCOL_41,
  CLIENT_PS_MULTI_RESULTS,
  CLIENT_SECURE_CONNECTION,
  CLIENT_SSL,
  CLIENT_TRANSACTIONS,
  ER_ACCESS_DENIED_ERROR,
  ER_HANDSHAKE_ERROR,
  ER_NET_PACKETS_OUT_OF_ORDER,
  ER_SECURE_TRANSPORT_REQUIRED,
  ER_UNKNOWN_ERROR,
  ERR_HEADER,
  MARIADB_CLIENT_PROGRESS,
  OK_HEADER,
  RELAY_MASKED_CAPABILITIES,
} from '../../protocol/constants.js';
import { buildOk } from '../../protocol/generic-response.js';
import {
  buildHandshakeV10,
  buildSslRequest,
  editGreetingCapabilities,
  editHandshakeResponse,
  isSslRequest,
  parseHandshakeResponse41,
  parseHandshakeV10,
  type HandshakeResponse41,
} from '../../protocol/handshake.js';
import { encodePacket, HEADER_SIZE, PacketReader, PacketTooLargeError, type Packet } from '../../protocol/packet.js';
import { LocalAuthenticator, type AuthStep } from './local-auth.js';
import type { Session } from './session.js';
import { connectUpstream, type UpstreamOptions } from './upstream-connection.js';

/**
 * MariaDB's CLIENT_PROGRESS_OBSOLETE (MySQL's CLIENT_CAPABILITY_EXTENSION): progress packets
 * change the stream, so the bit is never relayed to the FE; the proxy offers progress reports
 * of its own CALLs to the client (progress-reports.ts).
 */
const CLIENT_PROGRESS_OBSOLETE = CLIENT_CAPABILITY_EXTENSION;

/**
 * Capabilities the standalone greeting offers (no LOCAL INFILE; compression per config).
 * Session tracking is offered because the OK packets carry their info as a length-encoded
 * string, as MySQL's and MariaDB's servers write it; a client without SESSION_TRACK (mysql2)
 * would read the length byte as text. CLIENT_LONG_PASSWORD (CLIENT_MYSQL) stays clear, as in MariaDB's
 * greeting, so that the extended capabilities (progress reports) can be offered.
 */
const STANDALONE_CAPABILITIES =
  CLIENT_FOUND_ROWS |
  CLIENT_LONG_FLAG |
  CLIENT_CONNECT_WITH_DB |
  CLIENT_IGNORE_SPACE |
  CLIENT_PROTOCOL_41 |
  CLIENT_INTERACTIVE |
  CLIENT_TRANSACTIONS |
  CLIENT_SECURE_CONNECTION |
  CLIENT_MULTI_STATEMENTS |
  CLIENT_MULTI_RESULTS |
  CLIENT_PS_MULTI_RESULTS |
  CLIENT_PLUGIN_AUTH |
  CLIENT_CONNECT_ATTRS |
  CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA |
  CLIENT_SESSION_TRACK |
  CLIENT_DEPRECATE_EOF;

/**
 * Where the exchange is: opening the FE connection, waiting for the FE's greeting, for the
 * client's HandshakeResponse (or SSLRequest), for a TLS upgrade, or in the auth exchange.
 */
type Step = 'connecting' | 'greeting' | 'response' | 'tls' | 'auth';

export class ConnectionPhase {
  private step: Step = 'connecting';
  /** Capabilities offered in the greeting the client saw. */
  private offered = 0;
  /** MariaDB extended capabilities offered in that greeting (0 unless CLIENT_MYSQL is clear). */
  private offeredExtended = 0;
  private readonly upstreamReader: PacketReader;
  /** Client seq minus upstream seq during the relayed auth exchange (TLS on one leg only). */
  private seqDelta = 0;
  private authenticator: LocalAuthenticator | null = null;
  private scramble: Buffer = Buffer.alloc(0);
  /** Next sequence id of the standalone auth exchange. */
  private authSeq = 0;

  constructor(
    private readonly s: Session,
    maxPayload: number,
  ) {
    this.upstreamReader = new PacketReader(maxPayload);
  }

  start(): void {
    const upstream = this.s.deps.upstream;
    if (upstream) void this.connectUpstream(upstream);
    else this.greetStandalone();
  }

  /** Still in this phase (not authenticated, not closed). */
  private get active(): boolean {
    return this.s.phase === 'connection';
  }

  clientData(chunk: Buffer): void {
    const s = this.s;
    s.clientReader.push(chunk);
    try {
      this.handshakeClient();
    } catch (e) {
      if (e instanceof PacketTooLargeError) s.clientPacketTooLarge(e);
      else s.protocolFailure(e, 'client handshake');
      return;
    }
    // Bytes the client sent while it should be waiting (before the greeting, during a TLS
    // upgrade or the FE's answer) stay unread: they too are held to the handshake limit.
    if (this.active && s.clientReader.pendingBytes > s.clientReader.maxPayload + HEADER_SIZE) {
      s.clientPacketTooLarge(new PacketTooLargeError(s.clientReader.maxPayload, 0));
    }
  }

  upstreamData(chunk: Buffer): void {
    this.upstreamReader.push(chunk);
    try {
      this.handshakeUpstream();
    } catch (e) {
      this.s.protocolFailure(e, 'upstream handshake');
    }
  }

  // ---- pass-through -----------------------------------------------------------------------

  private async connectUpstream(o: UpstreamOptions): Promise<void> {
    const s = this.s;
    const client = s.client;
    let up: Socket;
    try {
      up = await connectUpstream(
        o,
        { remoteAddress: client.remoteAddress, remotePort: client.remotePort, localAddress: client.localAddress, localPort: client.localPort },
        // A plain FE leg reads into the session's own buffer (TLS wraps the socket: 'data' events).
        o.tls ? undefined : { buffer: s.upstreamReadBuffer, callback: s.onUpstreamRead },
      );
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      s.log.warn({ client: s.clientAddress }, msg);
      // The client is waiting for a greeting; servers send an ERR in its place (seq 0).
      s.failConnection({ errno: ER_UNKNOWN_ERROR, sqlState: 'HY000', message: `paimon-procedure-proxy: ${msg}` }, 0, 'upstream unreachable');
      return;
    }
    if (s.phase === 'closed') {
      up.destroy();
      return;
    }
    s.adoptUpstream(up, o.tls != null);
    this.step = 'greeting';
  }

  private handshakeUpstream(): void {
    let p: Packet | null;
    while (this.active && (p = this.upstreamReader.next())) {
      if (this.step === 'greeting') this.relayGreeting(p);
      else if (this.step === 'auth') this.relayUpstreamAuth(p);
      else {
        // The FE spoke while waiting for the client (e.g. a handshake timeout ERR): pass it on.
        this.s.relayToClient(p.raw);
        if (p.payload[0] === ERR_HEADER) this.s.close('upstream refused', true);
      }
    }
    if (this.s.phase === 'command') {
      const rest = this.upstreamReader.drain();
      if (rest.length > 0) this.s.upstreamLeftover(rest);
    }
  }

  private relayGreeting(p: Packet): void {
    const s = this.s;
    if (p.payload[0] === ERR_HEADER) {
      // e.g. too many connections, host blocked: the client gets the FE's own error
      s.relayToClient(p.raw);
      s.close('upstream refused connection', true);
      return;
    }
    const g = parseHandshakeV10(p.payload);
    s.connectionId = g.connectionId;
    s.statusFlags = g.statusFlags;
    let caps = g.capabilities & ~RELAY_MASKED_CAPABILITIES & ~CLIENT_PROGRESS_OBSOLETE;
    caps = s.deps.secureContext ? caps | CLIENT_SSL : caps & ~CLIENT_SSL;
    // Compression is the proxy's own on the client leg (session.ts), whatever the FE offers.
    if (s.compressionOffered) caps |= CLIENT_COMPRESS;
    this.offered = caps >>> 0;
    // Progress reports are the proxy's own (its CALLs); the FE's extended capabilities are not relayed.
    this.offeredExtended = caps & CLIENT_MYSQL ? 0 : MARIADB_CLIENT_PROGRESS;
    if (this.offeredExtended) this.offered = (this.offered | CLIENT_PROGRESS_OBSOLETE) >>> 0;
    s.upstreamOffered = g.capabilities;
    // Keep the FE's connection id and scramble: the client's answer is checked by the FE itself.
    const edited = editGreetingCapabilities(p.payload, this.offered, true, this.offeredExtended);
    s.relayToClient(encodePacket(edited, p.seq));
    this.step = 'response';
  }

  private handshakeClient(): void {
    const s = this.s;
    let p: Packet | null;
    while (this.active && (this.step === 'response' || this.step === 'auth') && (p = s.clientReader.next())) {
      if (this.step === 'response') {
        // The greeting is packet 0, so the client's SSLRequest or HandshakeResponse is 1 (the
        // response after a TLS upgrade is 2); anything else is refused as MySQL refuses it.
        const expected = s.clientTls ? 2 : 1;
        if (p.seq !== expected) {
          s.failConnection(
            { errno: ER_NET_PACKETS_OUT_OF_ORDER, sqlState: '08S01', message: `Got packets out of order (sequence id ${p.seq}, expected ${expected})` },
            (p.seq + 1) & 0xff,
            'packets out of order',
          );
          return;
        }
        if (isSslRequest(p.payload)) {
          this.startTls(p);
          return;
        }
        if (s.standalone) this.standaloneResponse(p);
        else this.forwardHandshakeResponse(p);
      } else if (s.standalone) {
        this.standaloneAuthReply(p);
      } else {
        s.relayToUpstream(encodePacket(p.payload, (p.seq - this.seqDelta) & 0xff));
      }
    }
    if (s.phase === 'command') s.pumpCommands();
  }

  private startTls(p: Packet): void {
    const s = this.s;
    const context = s.deps.secureContext;
    if (!context) {
      s.failConnection({ errno: ER_HANDSHAKE_ERROR, sqlState: '08S01', message: 'TLS is not configured on this proxy' }, (p.seq + 1) & 0xff, 'tls not configured');
      return;
    }
    this.step = 'tls';
    s.upgradeClient(context, s.clientReader.drain(), () => {
      this.step = 'response';
    });
  }

  /**
   * The client's HandshakeResponse41 in both modes: parsed, refused over plain TCP when TLS is
   * required, and taken as the session's user, capabilities and default catalog/database.
   * Null when the connection was failed instead.
   */
  private acceptResponse(p: Packet): HandshakeResponse41 | null {
    const s = this.s;
    let r: HandshakeResponse41;
    try {
      r = parseHandshakeResponse41(p.payload);
    } catch (e) {
      s.failConnection(
        { errno: ER_HANDSHAKE_ERROR, sqlState: '08S01', message: `Bad handshake: ${e instanceof Error ? e.message : String(e)}` },
        (p.seq + 1) & 0xff,
        'bad handshake',
      );
      return null;
    }
    if (s.deps.tlsRequired && !s.clientTls) {
      s.failConnection(
        { errno: ER_SECURE_TRANSPORT_REQUIRED, sqlState: 'HY000', message: 'Connections using insecure transport are prohibited by this proxy (listen.tls.required)' },
        (p.seq + 1) & 0xff,
        'tls required',
      );
      return null;
    }
    s.user = r.user;
    s.capabilities = (r.capabilities & this.offered) >>> 0;
    // Progress reports are offered both ways MariaDB servers do: the extended bit (10.2+) and
    // the classic CLIENT_PROGRESS_OBSOLETE, which libmariadb (the mariadb CLI with its progress
    // callback) and mysql_common still ask with.
    s.progressReports =
      this.offeredExtended !== 0 && ((r.mariadbCapabilities & MARIADB_CLIENT_PROGRESS) !== 0 || (s.capabilities & CLIENT_PROGRESS_OBSOLETE) !== 0);
    s.selectSchema(r.database);
    return r;
  }

  private forwardHandshakeResponse(p: Packet): void {
    const s = this.s;
    const r = this.acceptResponse(p);
    if (!r) return;
    if (r.authPluginName === CLEAR_PASSWORD_PLUGIN && !s.clearPasswordRelayAllowed()) {
      // The response itself carries the password in clear text: it never goes up.
      s.refuseClearPassword((p.seq + 1) & 0xff);
      return;
    }
    let forwardedCaps = (r.capabilities & ~RELAY_MASKED_CAPABILITIES & ~CLIENT_PROGRESS_OBSOLETE & ~CLIENT_SSL) >>> 0;
    // A compressing client's FE leg is compressed too when the FE offers it (zlib only).
    if (s.capabilities & CLIENT_COMPRESS && s.upstreamOffered & CLIENT_COMPRESS && s.upstreamCompressionAllowed) {
      forwardedCaps = (forwardedCaps | CLIENT_COMPRESS) >>> 0;
      s.upstreamCompressionRequested = true;
    }
    if (s.deps.upstream?.tls == null) {
      // A plain upstream leg: no SSL bit, and its HandshakeResponse is seq 1.
      this.seqDelta = (p.seq - 1) & 0xff;
      this.step = 'auth';
      s.relayToUpstream(encodePacket(editHandshakeResponse(p.payload, forwardedCaps), 1));
      return;
    }
    // A TLS upstream leg: our SSLRequest (seq 1), the TLS handshake, then the response (seq 2).
    if (!(s.upstreamOffered & CLIENT_SSL)) {
      s.failConnection(
        { errno: ER_HANDSHAKE_ERROR, sqlState: '08S01', message: 'paimon-procedure-proxy: upstream.tls is set but the FE does not offer TLS' },
        (p.seq + 1) & 0xff,
        'upstream without tls',
      );
      return;
    }
    const response = editHandshakeResponse(p.payload, (forwardedCaps | CLIENT_SSL) >>> 0);
    this.seqDelta = (p.seq - 2) & 0xff;
    this.step = 'tls';
    s.upgradeUpstream(
      encodePacket(buildSslRequest({ capabilities: forwardedCaps, maxPacketSize: r.maxPacketSize, characterSet: r.characterSet }), 1),
      () => {
        this.step = 'auth';
        s.relayToUpstream(encodePacket(response, 2));
      },
      (e: Error) => {
        s.log.warn({ client: s.clientAddress }, e.message);
        s.failConnection({ errno: ER_UNKNOWN_ERROR, sqlState: 'HY000', message: `paimon-procedure-proxy: ${e.message}` }, (p.seq + 1) & 0xff, 'upstream tls failed');
      },
    );
  }

  private relayUpstreamAuth(p: Packet): void {
    const s = this.s;
    const first = p.payload[0];
    if (isPerformFullAuthentication(p.payload) && s.authLegsDiffer()) {
      // The client would answer with its password: in clear text (TLS client) for a plain FE.
      s.refuseFullAuthentication((p.seq + this.seqDelta) & 0xff);
      return;
    }
    if (isClearPasswordSwitch(p.payload) && !s.clearPasswordRelayAllowed()) {
      // Not passed on: the client would answer with its password in clear text.
      s.refuseClearPassword((p.seq + this.seqDelta) & 0xff);
      return;
    }
    s.relayToClient(this.seqDelta === 0 ? p.raw : encodePacket(p.payload, (p.seq + this.seqDelta) & 0xff));
    if (first === OK_HEADER) {
      s.statusFlags = p.payload.length >= 7 ? okStatus(p.payload, s.statusFlags) : s.statusFlags;
      s.enterCommandPhase();
    } else if (first === ERR_HEADER) {
      // Wrong password and the like: the client got the FE's own error.
      s.log.info({ client: s.clientAddress, user: s.user }, 'upstream refused authentication');
      s.close('authentication failed', true);
    }
  }

  // ---- standalone -------------------------------------------------------------------------

  private greetStandalone(): void {
    const s = this.s;
    s.connectionId = s.deps.nextConnectionId();
    this.scramble = generateScramble();
    let caps = STANDALONE_CAPABILITIES;
    if (s.deps.secureContext) caps |= CLIENT_SSL;
    if (s.compressionOffered) caps |= CLIENT_COMPRESS;
    this.offered = (caps | CLIENT_PROGRESS_OBSOLETE) >>> 0;
    this.offeredExtended = MARIADB_CLIENT_PROGRESS;
    const greeting = buildHandshakeV10({
      protocolVersion: 10,
      serverVersion: s.deps.serverVersion,
      connectionId: s.connectionId,
      authPluginData: this.scramble,
      capabilities: this.offered,
      characterSet: 33,
      statusFlags: s.statusFlags,
      authPluginName: MYSQL_NATIVE_PASSWORD,
      mariadbCapabilities: this.offeredExtended,
    });
    this.step = 'response';
    s.writeClient(encodePacket(greeting, 0));
  }

  private standaloneResponse(p: Packet): void {
    const r = this.acceptResponse(p);
    if (!r) return;
    this.authenticator = new LocalAuthenticator(this.s.deps.users!, this.scramble);
    this.authSeq = (p.seq + 1) & 0xff;
    this.step = 'auth';
    this.applyAuthStep(this.authenticator.start(r));
  }

  private standaloneAuthReply(p: Packet): void {
    this.authSeq = (p.seq + 1) & 0xff;
    this.applyAuthStep(this.authenticator!.next(p.payload));
  }

  private applyAuthStep(step: AuthStep): void {
    const s = this.s;
    if (step.kind === 'denied') {
      s.log.info({ client: s.clientAddress, user: step.user }, 'standalone authentication failed');
      s.failConnection(
        {
          errno: ER_ACCESS_DENIED_ERROR,
          sqlState: '28000',
          message: `Access denied for user '${step.user}'@'${s.client.remoteAddress ?? ''}' (using password: ${step.usingPassword ? 'YES' : 'NO'})`,
        },
        this.authSeq,
        'access denied',
      );
      return;
    }
    const parts: Buffer[] = [];
    for (const payload of step.send) {
      parts.push(encodePacket(payload, this.authSeq));
      this.authSeq = (this.authSeq + 1) & 0xff;
    }
    if (step.kind === 'ok') {
      parts.push(encodePacket(buildOk(s.capabilities, { statusFlags: s.statusFlags }), this.authSeq));
      s.writeClient(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
      this.authenticator = null;
      s.enterCommandPhase();
      return;
    }
    s.writeClient(Buffer.concat(parts));
  }
}

/** The status flags of an OK packet (after its two length-encoded integers), or `fallback`. */
function okStatus(payload: Buffer, fallback: number): number {
  let p = 1;
  for (let k = 0; k < 2; k++) {
    const b = payload[p]!;
    p += b < 0xfb ? 1 : b === 0xfc ? 3 : b === 0xfd ? 4 : 9;
  }
  return p + 2 <= payload.length ? payload.readUInt16LE(p) : fallback;
}
