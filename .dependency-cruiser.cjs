/**
 * The layer rules of the tree (README "Layout"), checked by `npm run lint` on value and type
 * imports alike: protocol/ and src/paimon/ import nothing outside themselves; procedures/
 * imports only src/paimon/ and itself; the proxy (the rest of src/) may import all three;
 * nothing imports the tests or benchmarks.
 */
module.exports = {
  forbidden: [
    {
      name: 'protocol-stands-alone',
      comment: 'protocol/ is the wire codec: it knows nothing of SQL meaning, procedures or Paimon.',
      severity: 'error',
      from: { path: '^protocol/' },
      to: { path: '^(src|procedures|tests|bench)/' },
    },
    {
      name: 'paimon-library-stands-alone',
      comment: 'src/paimon/ is the table-format library: it knows nothing of the wire, SQL or procedures.',
      severity: 'error',
      from: { path: '^src/paimon/' },
      to: { path: '^(protocol|procedures|tests|bench)/|^src/(?!paimon/)' },
    },
    {
      name: 'procedures-use-only-the-library',
      comment: 'procedures/ runs on src/paimon/ alone: no wire types, no proxy configuration or session.',
      severity: 'error',
      from: { path: '^procedures/' },
      to: { path: '^(protocol|tests|bench)/|^src/(?!paimon/)' },
    },
    {
      name: 'no-test-code-in-the-product',
      severity: 'error',
      from: { path: '^(src|procedures|protocol)/' },
      to: { path: '^(tests|bench)/' },
    },
    {
      name: 'no-unresolvable-import',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a layer may not lean on another's types either.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
