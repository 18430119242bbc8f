// relay-compression.test.ts again, with every byte relayed in JavaScript (upstream.native_relay 'off'; wire-helpers.ts).
process.env.PPP_TEST_NATIVE_RELAY = 'off';
await import('../relay-compression.test.js');
