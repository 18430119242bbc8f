/** Line-at-a-time reading of a child process's output, for the peers' JSON line protocols. */
import type { Readable } from 'node:stream';

/** Calls `onLine` with each complete line of `stream` (UTF-8, without its newline) as it arrives. */
export function eachLine(stream: Readable, onLine: (line: string) => void): void {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      onLine(line);
    }
  });
}
