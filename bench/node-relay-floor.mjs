/**
 * The least a Node.js TCP relay can do, as a yardstick for bench/sysbench.sh: bytes copied both
 * ways, nothing parsed, Node's public socket API only (the FE leg read into a reused buffer with
 * `onread`, as the proxy's is; accepted sockets cannot take `onread`), one cluster worker per
 * HAProxy thread like the proxy. Its CPU per query is the floor of any relay written this way.
 *
 *   node bench/node-relay-floor.mjs <listen port> <upstream port> <workers>
 */
import cluster from 'node:cluster';
import net from 'node:net';

const [port, upstreamPort, workers] = process.argv.slice(2).map(Number);
if (!(port > 0 && upstreamPort > 0 && workers > 0)) throw new Error('usage: node-relay-floor.mjs <listen port> <upstream port> <workers>');

if (cluster.isPrimary && workers > 1) {
  for (let i = 0; i < workers; i++) cluster.fork();
} else {
  net
    .createServer((client) => {
      client.setNoDelay(true);
      // A buffer the kernel reads into, replaced only while the client still holds its bytes.
      let buffer = Buffer.allocUnsafe(65536);
      let held = false;
      const upstream = net.connect({
        host: '127.0.0.1',
        port: upstreamPort,
        noDelay: true,
        onread: {
          buffer: () => {
            if (held) {
              buffer = Buffer.allocUnsafe(65536);
              held = false;
            }
            return buffer;
          },
          callback: (n, b) => {
            client.write(b.subarray(0, n));
            if (client.writableLength > 0) held = true;
            return true;
          },
        },
      });
      client.on('data', (d) => upstream.write(d));
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.on('error', () => undefined);
      upstream.on('error', () => undefined);
    })
    .listen(port, '127.0.0.1');
}
