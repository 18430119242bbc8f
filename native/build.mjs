/**
 * Compiles the native relay (native-relay.c) into native/build/native-relay.node with the
 * machine's C compiler against the Node-API headers of the node-api-headers package; `npm ci`
 * runs it (the package's install script). One C file needs no node-gyp, which would also fetch
 * Node's headers from nodejs.org.
 *
 * Without a C compiler the proxy still works: it relays in JavaScript (upstream.native_relay
 * `auto`), and says so at start-up. PPP_NATIVE_BUILD=required makes a failed build fail the
 * install instead (CI and the Docker image use it).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'build', 'native-relay.node');
const required = process.env.PPP_NATIVE_BUILD === 'required';

function build() {
  if (process.platform !== 'linux') throw new Error(`the native relay is built for Linux (epoll) only, not ${process.platform}`);
  const headers = createRequire(import.meta.url)('node-api-headers').include_dir;
  mkdirSync(dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  const cc = process.env.CC || 'cc';
  execFileSync(cc, ['-std=gnu11', '-O2', '-fPIC', '-shared', '-pthread', '-Wall', '-Wextra', '-Werror', '-I', headers, join(here, 'native-relay.c'), '-o', tmp], { stdio: 'inherit' });
  renameSync(tmp, out);
}

try {
  build();
  console.log(`native relay built: ${out}`);
} catch (e) {
  const message = e instanceof Error ? e.message : String(e);
  if (required) {
    console.error(`native relay build failed: ${message}`);
    process.exit(1);
  }
  console.warn(`native relay not built (${message}); the proxy relays in JavaScript`);
}
