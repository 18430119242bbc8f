/**
 * The statements the proxy sends upstream on its own behalf (SHOW GRANTS, for the privilege
 * check of a CALL), on the client's own FE connection while that client waits for the CALL:
 * the COM_QUERY packet, and the collector that reads the FE's text response into columns and
 * rows instead of relaying it. (REFRESH TABLE goes over a connection of its own: fe-refresh.ts.)
 */
import {
  CLIENT_DEPRECATE_EOF,
  COM_QUERY,
  EOF_HEADER,
  ERR_HEADER,
  LOCAL_INFILE_HEADER,
  MAX_PACKET_PAYLOAD,
  OK_HEADER,
  SERVER_MORE_RESULTS_EXISTS,
} from '../../protocol/constants.js';
import { BufferReader } from '../../protocol/buffer-reader.js';
import { parseEof, parseErr, parseOk } from '../../protocol/generic-response.js';
import { encodePacket, PacketReader, type Packet } from '../../protocol/packet.js';
import { parseColumnDefinition, parseTextRow } from '../../protocol/result-set.js';

/** Largest upstream packet the collector takes (MySQL's max_allowed_packet upper bound). */
const MAX_RESPONSE_PAYLOAD = 1 << 30;

/** The COM_QUERY of a statement the proxy sends itself (sequence id 0: a new command). */
export function comQueryPacket(sql: string): Buffer {
  return encodePacket(Buffer.concat([Buffer.of(COM_QUERY), Buffer.from(sql, 'utf8')]), 0);
}

/** A text result set the upstream returned to a statement the proxy sent on its own behalf. */
export interface UpstreamQueryResult {
  columns: string[];
  rows: (string | null)[][];
}

/** An ERR the upstream answered to a statement the proxy sent on its own behalf. */
export class UpstreamQueryError extends Error {
  constructor(
    readonly errno: number,
    readonly sqlState: string,
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamQueryError';
  }
}

/**
 * Collects the response to one COM_QUERY the proxy sent upstream itself: text result sets
 * (column count, column definitions, EOF unless CLIENT_DEPRECATE_EOF, rows, EOF/OK), OK or
 * ERR, following SERVER_MORE_RESULTS_EXISTS to the end. Keeps the first result set that has
 * columns. Pure packet handling; the session feeds it and writes what it asks to write.
 */
export class UpstreamQueryCollector {
  private readonly reader = new PacketReader(MAX_RESPONSE_PAYLOAD);
  private state: 'first' | 'columns' | 'columnsEof' | 'rows' | 'infile' | 'done' = 'first';
  private columnsLeft = 0;
  private current: UpstreamQueryResult | null = null;
  private result: UpstreamQueryResult | null = null;
  private error: Error | null = null;

  constructor(
    private readonly capabilities: number,
    readonly resolve: (r: UpstreamQueryResult) => void,
    readonly reject: (e: Error) => void,
  ) {}

  /**
   * Feeds upstream bytes. Returns the bytes that follow the end of the response (normally
   * none) once it is complete, else null. `reply` sends a packet back (LOCAL INFILE refusal).
   */
  feed(chunk: Buffer, reply: (packet: Buffer) => void): Buffer | null {
    this.reader.push(chunk);
    let p: Packet | null;
    while (this.state !== 'done' && (p = this.reader.next())) this.packet(p, reply);
    if (this.state !== 'done') return null;
    if (this.error) this.reject(this.error);
    else this.resolve(this.result ?? { columns: [], rows: [] });
    return this.reader.drain();
  }

  private packet(p: Packet, reply: (packet: Buffer) => void): void {
    const pl = p.payload;
    switch (this.state) {
      case 'first':
      case 'infile': {
        if (pl[0] === ERR_HEADER) {
          const e = parseErr(pl);
          this.error ??= new UpstreamQueryError(e.errno, e.sqlState, e.message);
          this.state = 'done';
        } else if (pl[0] === OK_HEADER) {
          this.endOfResult(parseOk(pl, this.capabilities).statusFlags);
        } else if (pl[0] === LOCAL_INFILE_HEADER && this.state === 'first') {
          // The proxy has no file to send: an empty packet ends the exchange; the FE answers OK/ERR.
          this.error ??= new Error('the upstream asked for a LOCAL INFILE file');
          reply(encodePacket(Buffer.alloc(0), (p.lastSeq + 1) & 0xff));
          this.state = 'infile';
        } else {
          const n = new BufferReader(pl).lenenc();
          if (n === null || n <= 0) throw new Error(`unexpected packet 0x${(pl[0] ?? 0).toString(16)} at the start of an upstream response`);
          this.current = { columns: [], rows: [] };
          this.columnsLeft = n;
          this.state = 'columns';
        }
        return;
      }
      case 'columns':
        this.current!.columns.push(parseColumnDefinition(pl).name);
        if (--this.columnsLeft === 0) this.state = this.capabilities & CLIENT_DEPRECATE_EOF ? 'rows' : 'columnsEof';
        return;
      case 'columnsEof':
        parseEof(pl);
        this.state = 'rows';
        return;
      case 'rows': {
        if (pl[0] === ERR_HEADER) {
          const e = parseErr(pl);
          this.error ??= new UpstreamQueryError(e.errno, e.sqlState, e.message);
          this.state = 'done';
          return;
        }
        const deprecateEof = (this.capabilities & CLIENT_DEPRECATE_EOF) !== 0;
        if (pl[0] === EOF_HEADER && (deprecateEof ? pl.length < MAX_PACKET_PAYLOAD : pl.length < 9)) {
          const flags = deprecateEof ? parseOk(pl, this.capabilities).statusFlags : parseEof(pl).statusFlags;
          if (!this.result) this.result = this.current;
          this.current = null;
          this.endOfResult(flags);
          return;
        }
        this.current!.rows.push(parseTextRow(pl, this.current!.columns.length));
        return;
      }
      case 'done':
        return;
    }
  }

  private endOfResult(statusFlags: number): void {
    this.state = statusFlags & SERVER_MORE_RESULTS_EXISTS ? 'first' : 'done';
  }
}
