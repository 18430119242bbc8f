/**
 * The native yardstick of bench/sysbench.sh (relay.c beside it, compiled by the script with the
 * machine's gcc against Node's own headers): Node accepts and connects, then hands both
 * descriptors to the relay thread and closes the sockets when it reports the pair ended. One
 * cluster worker per HAProxy thread, like the proxy.
 *
 *   node bench/native-relay-floor/floor.mjs <addon path> <listen port> <upstream port> <workers>
 */
import cluster from 'node:cluster';
import net from 'node:net';
import { createRequire } from 'node:module';

const [addonPath, ...rest] = process.argv.slice(2);
const [port, upstreamPort, workers] = rest.map(Number);
if (!addonPath || !(port > 0 && upstreamPort > 0 && workers > 0)) throw new Error('usage: floor.mjs <addon> <listen port> <upstream port> <workers>');

if (cluster.isPrimary && workers > 1) {
  for (let i = 0; i < workers; i++) cluster.fork();
} else {
  const { relay } = createRequire(import.meta.url)(addonPath);
  const pairs = new Map();
  const ended = (id) => {
    const p = pairs.get(id);
    pairs.delete(id);
    p?.forEach((s) => s.destroy());
  };
  net
    .createServer({ pauseOnConnect: true, noDelay: true }, (client) => {
      client.on('error', () => undefined);
      const upstream = net.connect({ host: '127.0.0.1', port: upstreamPort, noDelay: true }, () => {
        upstream.pause();
        pairs.set(relay(client._handle.fd, upstream._handle.fd, ended), [client, upstream]);
      });
      upstream.on('error', () => client.destroy());
    })
    .listen(port, '127.0.0.1');
}
