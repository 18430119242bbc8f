// The README's procedure and error tables are generated from the declarations; this keeps
// them from drifting (regenerate with the command named in the README's markers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { renderDocs } from '../../procedures/framework/render-docs.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

for (const what of ['procedures', 'errors'] as const) {
  test(`the README's ${what} section equals what the declarations render`, () => {
    const m = readme.match(new RegExp(`<!-- GENERATED:${what}[^>]*-->\\n([\\s\\S]*?)\\n<!-- /GENERATED:${what} -->`));
    assert.ok(m, `README has no GENERATED:${what} section`);
    assert.equal(m[1], renderDocs(what).replace(/\n+$/, ''));
  });
}
