/**
 * HAProxy PROXY protocol version 1 (the human-readable line), which Doris reads before the
 * handshake when `enable_proxy_protocol=true`:
 *   PROXY TCP4 <src addr> <dst addr> <src port> <dst port>\r\n
 * Doris does not support version 2.
 */
import { isIPv4, isIPv6 } from 'node:net';

export interface ProxyV1Endpoints {
  sourceAddress: string;
  sourcePort: number;
  destinationAddress: string;
  destinationPort: number;
}

/** Node reports IPv4 peers of a dual-stack socket as ::ffff:a.b.c.d; PROXY v1 wants them as TCP4. */
function unmapV4(addr: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(addr);
  return m ? m[1] : addr;
}

function validPort(p: number): boolean {
  return Number.isInteger(p) && p >= 0 && p <= 65535;
}

/** Builds the line; addresses of mixed or unknown families give `PROXY UNKNOWN\r\n`, as the spec allows. */
export function buildProxyV1Header(e: ProxyV1Endpoints | null): Buffer {
  if (e === null) return Buffer.from('PROXY UNKNOWN\r\n', 'latin1');
  const src = unmapV4(e.sourceAddress);
  const dst = unmapV4(e.destinationAddress);
  let family: string | null = null;
  if (isIPv4(src) && isIPv4(dst)) family = 'TCP4';
  else if (isIPv6(src) && isIPv6(dst)) family = 'TCP6';
  if (family === null || !validPort(e.sourcePort) || !validPort(e.destinationPort)) {
    return Buffer.from('PROXY UNKNOWN\r\n', 'latin1');
  }
  return Buffer.from(`PROXY ${family} ${src} ${dst} ${e.sourcePort} ${e.destinationPort}\r\n`, 'latin1');
}
