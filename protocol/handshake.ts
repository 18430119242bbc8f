/**
 * Protocol::HandshakeV10 (the server greeting), Protocol::SSLRequest and
 * Protocol::HandshakeResponse41 (the client's answer).
 */
import { BufferReader, ProtocolError } from './buffer-reader.js';
import { BufferWriter } from './buffer-writer.js';
import {
  CLIENT_CONNECT_ATTRS,
  CLIENT_CONNECT_WITH_DB,
  CLIENT_MYSQL,
  CLIENT_PLUGIN_AUTH,
  CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA,
  CLIENT_PROTOCOL_41,
  CLIENT_SECURE_CONNECTION,
  CLIENT_SSL,
} from './constants.js';

export interface HandshakeV10 {
  protocolVersion: number;
  serverVersion: string;
  connectionId: number;
  /** The whole scramble (auth_plugin_data), usually 20 bytes, without the trailing NUL. */
  authPluginData: Buffer;
  capabilities: number;
  characterSet: number;
  statusFlags: number;
  authPluginName: string;
  /** MariaDB's extended capabilities (last 4 of the 10 reserved bytes), 0 for MySQL/Doris. */
  mariadbCapabilities: number;
}

export function parseHandshakeV10(payload: Buffer): HandshakeV10 {
  const r = new BufferReader(payload);
  const protocolVersion = r.u8();
  if (protocolVersion !== 10) throw new ProtocolError(`unsupported handshake protocol version ${protocolVersion}`);
  const serverVersion = r.nulString();
  const connectionId = r.u32();
  const part1 = r.bytes(8);
  r.skip(1);
  let capabilities = r.u16();
  let characterSet = 0;
  let statusFlags = 0;
  let authDataLen = 0;
  let mariadbCapabilities = 0;
  let part2: Buffer = Buffer.alloc(0);
  let authPluginName = '';
  if (r.remaining > 0) {
    characterSet = r.u8();
    statusFlags = r.u16();
    capabilities = (capabilities | (r.u16() << 16)) >>> 0;
    authDataLen = r.u8();
    r.skip(6);
    const ext = r.u32();
    if (!(capabilities & CLIENT_MYSQL)) mariadbCapabilities = ext;
    if (capabilities & CLIENT_SECURE_CONNECTION) {
      const n = Math.max(13, authDataLen - 8);
      part2 = r.bytes(Math.min(n, r.remaining));
      // part 2 is NUL-terminated on the wire; the NUL is not part of the scramble.
      if (part2.length > 0 && part2[part2.length - 1] === 0) part2 = part2.subarray(0, part2.length - 1);
    }
    if (capabilities & CLIENT_PLUGIN_AUTH) authPluginName = r.nulString(false);
  }
  return {
    protocolVersion,
    serverVersion,
    connectionId,
    authPluginData: Buffer.concat([part1, part2]),
    capabilities,
    characterSet,
    statusFlags,
    authPluginName,
    mariadbCapabilities,
  };
}

export function buildHandshakeV10(h: HandshakeV10): Buffer {
  if (h.authPluginData.length < 8) throw new RangeError('auth plugin data must be at least 8 bytes');
  const w = new BufferWriter(128);
  w.u8(10)
    .nulString(h.serverVersion)
    .u32(h.connectionId)
    .bytes(h.authPluginData.subarray(0, 8))
    .u8(0)
    .u16(h.capabilities & 0xffff)
    .u8(h.characterSet)
    .u16(h.statusFlags)
    .u16((h.capabilities >>> 16) & 0xffff)
    .u8(h.capabilities & CLIENT_PLUGIN_AUTH ? h.authPluginData.length + 1 : 0)
    .zeros(6)
    .u32(h.capabilities & CLIENT_MYSQL ? 0 : h.mariadbCapabilities);
  if (h.capabilities & CLIENT_SECURE_CONNECTION) {
    const part2 = h.authPluginData.subarray(8);
    w.bytes(part2).zeros(Math.max(13 - part2.length, 1));
  }
  if (h.capabilities & CLIENT_PLUGIN_AUTH) w.nulString(h.authPluginName);
  return w.finish();
}

/**
 * Edits a relayed greeting in place of re-encoding it, so unknown trailing bytes survive:
 * only the two capability words and MariaDB's extended-capability bytes change (to
 * `mariadbCapabilities` when `replaceMariadbExtended`; meaningful only with CLIENT_MYSQL clear).
 * Returns a new buffer; the input is not modified.
 */
export function editGreetingCapabilities(payload: Buffer, capabilities: number, replaceMariadbExtended: boolean, mariadbCapabilities = 0): Buffer {
  const out = Buffer.from(payload);
  const nul = out.indexOf(0, 1);
  if (nul < 0) throw new ProtocolError('greeting has no server version terminator');
  const capLowAt = nul + 1 + 4 + 8 + 1;
  if (capLowAt + 2 > out.length) throw new ProtocolError('greeting too short');
  out.writeUInt16LE(capabilities & 0xffff, capLowAt);
  const capHighAt = capLowAt + 2 + 1 + 2;
  if (capHighAt + 2 <= out.length) {
    out.writeUInt16LE((capabilities >>> 16) & 0xffff, capHighAt);
    const extAt = capHighAt + 2 + 1 + 6;
    if (replaceMariadbExtended && extAt + 4 <= out.length) out.writeUInt32LE(capabilities & CLIENT_MYSQL ? 0 : mariadbCapabilities >>> 0, extAt);
  }
  return out;
}

export interface SslRequest {
  capabilities: number;
  maxPacketSize: number;
  characterSet: number;
}

/** An SSLRequest is exactly the 32-byte fixed prefix of a HandshakeResponse41 with CLIENT_SSL set. */
export function isSslRequest(payload: Buffer): boolean {
  return payload.length === 32 && (payload.readUInt32LE(0) & CLIENT_SSL) !== 0;
}

export function parseSslRequest(payload: Buffer): SslRequest {
  if (!isSslRequest(payload)) throw new ProtocolError('not an SSLRequest');
  return { capabilities: payload.readUInt32LE(0), maxPacketSize: payload.readUInt32LE(4), characterSet: payload[8] };
}

export function buildSslRequest(r: SslRequest): Buffer {
  return new BufferWriter(32)
    .u32(r.capabilities | CLIENT_SSL)
    .u32(r.maxPacketSize)
    .u8(r.characterSet)
    .zeros(23)
    .finish();
}

export interface HandshakeResponse41 {
  capabilities: number;
  maxPacketSize: number;
  characterSet: number;
  /** MariaDB clients put their extended capabilities in the last 4 filler bytes (CLIENT_MYSQL clear). */
  mariadbCapabilities: number;
  user: string;
  authResponse: Buffer;
  database: string | null;
  authPluginName: string | null;
  attributes: Map<string, string>;
}

export function parseHandshakeResponse41(payload: Buffer): HandshakeResponse41 {
  const r = new BufferReader(payload);
  const capabilities = r.u32();
  if (!(capabilities & CLIENT_PROTOCOL_41)) throw new ProtocolError('client does not speak protocol 4.1 (CLIENT_PROTOCOL_41 is clear)');
  const maxPacketSize = r.u32();
  const characterSet = r.u8();
  r.skip(19);
  const ext = r.u32();
  const mariadbCapabilities = capabilities & CLIENT_MYSQL ? 0 : ext;
  const user = r.nulString();
  let authResponse: Buffer;
  if (capabilities & CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA) {
    authResponse = r.lenencBytes() ?? Buffer.alloc(0);
  } else if (capabilities & CLIENT_SECURE_CONNECTION) {
    authResponse = r.bytes(r.u8());
  } else {
    authResponse = r.nulBytes(false);
  }
  let database: string | null = null;
  if (capabilities & CLIENT_CONNECT_WITH_DB && r.remaining > 0) {
    database = r.nulString(false);
    if (database === '') database = null;
  }
  let authPluginName: string | null = null;
  if (capabilities & CLIENT_PLUGIN_AUTH && r.remaining > 0) authPluginName = r.nulString(false);
  const attributes = new Map<string, string>();
  if (capabilities & CLIENT_CONNECT_ATTRS && r.remaining > 0) {
    const total = r.lenenc() ?? 0;
    const end = Math.min(r.offset + total, payload.length);
    const ar = new BufferReader(payload, r.offset, end);
    while (ar.remaining > 0) attributes.set(ar.lenencString(), ar.lenencString());
    r.offset = end;
  }
  return { capabilities, maxPacketSize, characterSet, mariadbCapabilities, user, authResponse, database, authPluginName, attributes };
}

export function buildHandshakeResponse41(h: HandshakeResponse41): Buffer {
  const w = new BufferWriter(128);
  w.u32(h.capabilities).u32(h.maxPacketSize).u8(h.characterSet).zeros(19).u32(h.capabilities & CLIENT_MYSQL ? 0 : h.mariadbCapabilities);
  w.nulString(h.user);
  if (h.capabilities & CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA) w.lenencBytes(h.authResponse);
  else if (h.capabilities & CLIENT_SECURE_CONNECTION) w.u8(h.authResponse.length).bytes(h.authResponse);
  else w.bytes(h.authResponse).u8(0);
  if (h.capabilities & CLIENT_CONNECT_WITH_DB) w.nulString(h.database ?? '');
  if (h.capabilities & CLIENT_PLUGIN_AUTH) w.nulString(h.authPluginName ?? '');
  if (h.capabilities & CLIENT_CONNECT_ATTRS) {
    const aw = new BufferWriter(64);
    for (const [k, v] of h.attributes) aw.lenencString(k).lenencString(v);
    w.lenencBytes(aw.finish());
  }
  return w.finish();
}

/**
 * Edits a relayed HandshakeResponse41 in place of re-encoding it: sets the capability word and
 * zeroes MariaDB's extended client capabilities (we offered none). Returns a copy.
 */
export function editHandshakeResponse(payload: Buffer, capabilities: number): Buffer {
  const out = Buffer.from(payload);
  if (out.length < 32) throw new ProtocolError('HandshakeResponse41 too short');
  out.writeUInt32LE(capabilities >>> 0, 0);
  if (!(capabilities & CLIENT_MYSQL)) out.writeUInt32LE(0, 28);
  return out;
}

export interface ChangeUser {
  user: string;
  authResponse: Buffer;
  database: string | null;
  characterSet: number | null;
  authPluginName: string | null;
}

/** COM_CHANGE_USER request (payload includes the 0x11 command byte). */
export function parseChangeUser(payload: Buffer, capabilities: number): ChangeUser {
  const r = new BufferReader(payload, 1);
  const user = r.nulString();
  let authResponse: Buffer;
  if (capabilities & CLIENT_SECURE_CONNECTION) authResponse = r.bytes(r.u8());
  else authResponse = r.nulBytes(false);
  let database: string | null = r.remaining > 0 ? r.nulString(false) : null;
  if (database === '') database = null;
  const characterSet = r.remaining >= 2 ? r.u16() : null;
  const authPluginName = capabilities & CLIENT_PLUGIN_AUTH && r.remaining > 0 ? r.nulString(false) : null;
  return { user, authResponse, database, characterSet, authPluginName };
}
