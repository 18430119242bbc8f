import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { FeCatalogDiscovery } from '../../src/fe-catalogs.js';
import { CatalogSet, FileSystemProcedureCatalog, buildCatalog } from '../../src/catalogs.js';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import { mariadbEnv, readFrom } from './ops-env.js';

// MariaDB stands in for the FE: it receives SHOW CATALOGS on the service account and cannot answer
// it (no Doris), which is the "FE cannot answer" path: warn, keep the last good set.
test('catalogs_from_fe asks the FE SHOW CATALOGS; a non-Doris FE keeps the static catalogs and warns', async () => {
  const env = mariadbEnv();
  const offset = statSync(env.generalLog).size;
  const base = new CatalogSet([new FileSystemProcedureCatalog('static_cat', '/tmp/none', new LocalFileIO())]);
  const warnings: string[] = [];
  const d = new FeCatalogDiscovery(base, {
    host: env.host, port: env.port, user: env.user, password: env.password,
    overrides: {}, staticNames: new Set(base.names()), build: buildCatalog, warn: (m) => warnings.push(m),
  });
  assert.equal(await d.refresh(), false);
  const log = readFrom(env.generalLog, offset);
  assert.match(log, /Query\s+SHOW CATALOGS/);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /did not answer SHOW CATALOGS.*keeping the 0 catalog/);
  if (env.password && env.password.length >= 4) assert.ok(!warnings[0]!.includes(env.password));
  assert.deepEqual(d.names(), ['static_cat']);
  assert.ok(d.get('static_cat'));
});
