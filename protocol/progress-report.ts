/**
 * MariaDB's progress-report packet: sent in the middle of a command's response, as an ERR
 * packet with error number 0xFFFF, to clients that set MARIADB_CLIENT_PROGRESS; the client
 * shows it (the mariadb CLI prints "Stage: 1 of 2 'name' 40% of stage done") and goes on
 * reading the response. It takes the next sequence id of the response like any packet.
 *
 *   int<1>  0xFF           ERR header
 *   int<2>  0xFFFF         error number reserved for progress
 *   int<1>  1              number of strings (room to extend the packet)
 *   int<1>  stage          1 .. max_stage
 *   int<1>  max_stage
 *   int<3>  progress       within the stage, in thousandths of a percent (0 .. 100000)
 *   string<lenenc>         stage name
 *
 * Layout from MariaDB's sql/protocol.cc (net_send_progress_packet) and the client side in
 * libmariadb (cli_report_progress), which reads the stage name with net_field_length.
 */
import { BufferReader } from './buffer-reader.js';
import { BufferWriter } from './buffer-writer.js';
import { ERR_HEADER } from './constants.js';

export const PROGRESS_REPORT_ERRNO = 0xffff;
/** MariaDB builds the packet in a 200-byte buffer: the stage name gets what is left of it. */
export const MAX_PROGRESS_INFO_BYTES = 193;

export interface ProgressReport {
  /** 1-based; at most 255. */
  stage: number;
  maxStage: number;
  /** Fraction of the stage done, 0 .. 1. */
  progress: number;
  info: string;
}

export function buildProgressReport(r: ProgressReport): Buffer {
  const stage = clampByte(r.stage, 1);
  const maxStage = Math.max(stage, clampByte(r.maxStage, 1));
  const thousandths = Math.round(Math.max(0, Math.min(1, Number.isFinite(r.progress) ? r.progress : 0)) * 100_000);
  return new BufferWriter(16 + MAX_PROGRESS_INFO_BYTES)
    .u8(ERR_HEADER)
    .u16(PROGRESS_REPORT_ERRNO)
    .u8(1)
    .u8(stage)
    .u8(maxStage)
    .u24(thousandths)
    .lenencBytes(truncateUtf8(r.info, MAX_PROGRESS_INFO_BYTES))
    .finish();
}

/** True for a progress-report packet (an ERR with error number 0xFFFF). */
export function isProgressReport(payload: Buffer): boolean {
  return payload.length >= 3 && payload[0] === ERR_HEADER && payload.readUInt16LE(1) === PROGRESS_REPORT_ERRNO;
}

export function parseProgressReport(payload: Buffer): ProgressReport {
  const r = new BufferReader(payload, 3);
  r.skip(1);
  const stage = r.u8();
  const maxStage = r.u8();
  const progress = r.u24() / 100_000;
  const info = r.lenencString();
  return { stage, maxStage, progress, info };
}

function clampByte(n: number, min: number): number {
  return Math.max(min, Math.min(255, Math.floor(Number.isFinite(n) ? n : min)));
}

/** At most `max` bytes of UTF-8, cut before a character that does not fit whole. */
function truncateUtf8(s: string, max: number): Buffer {
  const b = Buffer.from(s, 'utf8');
  if (b.length <= max) return b;
  let end = max;
  while (end > 0 && (b[end]! & 0xc0) === 0x80) end--;
  return b.subarray(0, end);
}
