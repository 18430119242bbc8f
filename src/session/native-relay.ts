/**
 * The native relay (native/native-relay.c): idle relayed sessions hand their two sockets to one
 * epoll thread per process, which forwards the plain statements (COM_QUERY that the router
 * leaves to the FE, by the prefilter's rule) and relays their responses without a byte entering
 * JavaScript. Anything else gives the session back (`Handback`): another command, a LOCAL
 * INFILE request, either side's end; so CALLs, session statements, prepared statements,
 * COM_CHANGE_USER and every error path stay in command-phase.ts.
 *
 * Handing a socket over needs two things Node has no public API for: its descriptor
 * (`_handle.fd`) and stopping libuv's reads at once. A paused net.Socket keeps reading until its
 * buffer fills, so reading is stopped on the handle itself, and only while the stream's own
 * state says a read is outstanding (`_readableState.reading`): then the stream does not call
 * `_read` again by itself, and nothing restarts libuv's reads until the session takes the
 * socket back. Where these internals are not as expected, `attach` declines and the session
 * stays in JavaScript.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

/** Why the thread gave a session back (the R_* numbers of native-relay.c). */
export const HandbackReason = { Command: 1, ClientClosed: 2, UpstreamClosed: 3, Infile: 4 } as const;
export type HandbackReasonValue = (typeof HandbackReason)[keyof typeof HandbackReason];

export interface Handback {
  reason: HandbackReasonValue | 0;
  /** Status flags of the last response the thread relayed (the session's statusFlags). */
  statusFlags: number;
  /** Client bytes not forwarded: the command the session handles next, and any after it. */
  held: Buffer;
  /** Bytes for the client / the FE that their sockets had not taken yet (written first). */
  toClient: Buffer;
  toUpstream: Buffer;
  /** Statements the thread forwarded while it held the session. */
  forwarded: number;
}

export interface NativeRelayCounters {
  /** Statements forwarded by the thread (each also a question). */
  queries: number;
  bytesUpstream: number;
  bytesDownstream: number;
}

/** What the addon exports (native-relay.c NAPI_MODULE_INIT). */
interface Addon {
  start(onHandback: (h: HandbackTuple) => void): void;
  newGroup(): number;
  attach(group: number, clientFd: number, upstreamFd: number, deprecateEof: boolean, maxPayload: number, statusFlags: number): number;
  detach(key: number): HandbackTuple | null;
  counters(group: number): [number, number, number];
  classify(buf: Buffer): number;
  scanResponse(deprecateEof: boolean, chunks: Buffer[]): [number, number, number, number, number];
}
type HandbackTuple = [number, number, number, Buffer, Buffer, Buffer, number];

/** The parts of libuv's stream handle that a hand-over uses (Node internals, checked at attach). */
interface StreamHandle {
  fd: number;
  reading: boolean;
  readStart(): number;
  readStop(): number;
}
interface SocketInternals {
  _handle?: Partial<StreamHandle> | null;
  _readableState?: { reading?: boolean; length?: number; flowing?: boolean | null };
}

/** Where `npm ci` (native/build.mjs) puts the addon: from src/session or dist/src/session. */
function addonPath(): string | null {
  for (const rel of ['../../native/build/native-relay.node', '../../../native/build/native-relay.node']) {
    const p = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(p)) return p;
  }
  return null;
}

let loaded: Addon | null = null;

/** The addon, or the reason it cannot be used here. */
export function loadNativeAddon(): Addon | string {
  if (loaded) return loaded;
  if (process.platform !== 'linux') return `the native relay runs on Linux only (this is ${process.platform})`;
  const path = addonPath();
  if (path === null) return 'native/build/native-relay.node is missing (npm ci builds it with the C compiler; see native/build.mjs)';
  try {
    loaded = createRequire(import.meta.url)(path) as Addon;
    return loaded;
  } catch (e) {
    return `cannot load ${path}: ${e instanceof Error ? e.message : String(e)}`;
  }
}

function handleOf(socket: Socket): StreamHandle | null {
  const h = (socket as unknown as SocketInternals)._handle;
  if (!h || typeof h.fd !== 'number' || h.fd < 0 || typeof h.readStop !== 'function' || typeof h.readStart !== 'function') return null;
  return h as StreamHandle;
}

/** Sessions held by the thread, by key, across the process's servers: whom to give each back to. */
const owners = new Map<number, (h: Handback) => void>();

function startThread(addon: Addon): void {
  addon.start((t) => {
    const owner = owners.get(t[0]);
    if (!owner) return; // detached meanwhile (the session closed)
    owners.delete(t[0]);
    owner(toHandback(t));
  });
}

/** One server's use of the process's relay thread (its own counters). */
export class NativeRelay {
  private constructor(
    private readonly addon: Addon,
    private readonly group: number,
  ) {}

  /** A relay for one server, or the reason there is none. */
  static create(): NativeRelay | string {
    const addon = loadNativeAddon();
    if (typeof addon === 'string') return addon;
    try {
      startThread(addon);
      return new NativeRelay(addon, addon.newGroup());
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  }

  /**
   * Hands both sockets to the thread; returns its key, or null when a socket is not in a state to
   * be handed over (the caller stays in JavaScript and may try again later). Both sockets must be
   * plain TCP, with nothing buffered either way, and the client's stream waiting on a read.
   */
  attach(client: Socket, upstream: Socket, o: { deprecateEof: boolean; maxPayload: number; statusFlags: number }, onHandback: (h: Handback) => void): number | null {
    const ch = handleOf(client);
    const uh = handleOf(upstream);
    const cs = (client as unknown as SocketInternals)._readableState;
    if (!ch || !uh || !ch.reading || !uh.reading || cs?.reading !== true || cs.length !== 0 || cs.flowing !== true) return null;
    if (client.writableLength !== 0 || upstream.writableLength !== 0 || upstream.readableLength !== 0) return null;
    ch.reading = false;
    ch.readStop();
    // The FE socket reads into the session's buffer (`onread`): pause() stops libuv's reads at once.
    upstream.pause();
    let key: number;
    try {
      key = this.addon.attach(this.group, ch.fd, uh.fd, o.deprecateEof, o.maxPayload, o.statusFlags);
    } catch {
      NativeRelay.resumeReading(client, upstream);
      return null;
    }
    owners.set(key, onHandback);
    return key;
  }

  /** Takes a session back from the thread at once (it is closing); null when the thread already gave it back. */
  detach(key: number): Handback | null {
    owners.delete(key);
    const t = this.addon.detach(key);
    return t ? toHandback(t) : null;
  }

  /**
   * Resumes libuv's reads on the sockets of a session that was given back (a closing session's
   * client socket too: it must see the client's FIN to finish closing).
   */
  static resumeReading(client: Socket, upstream: Socket | null): void {
    const ch = handleOf(client);
    if (ch && !ch.reading && !client.destroyed) {
      ch.reading = true;
      ch.readStart();
    }
    if (upstream && !upstream.destroyed) upstream.resume();
  }

  counters(): NativeRelayCounters {
    const [queries, bytesUpstream, bytesDownstream] = this.addon.counters(this.group);
    return { queries, bytesUpstream, bytesDownstream };
  }
}

function toHandback(t: HandbackTuple): Handback {
  return { reason: t[1] as HandbackReasonValue, statusFlags: t[2], held: t[3], toClient: t[4], toUpstream: t[5], forwarded: t[6] };
}
