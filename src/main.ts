/**
 * `npm start`: `taskbase serve`. Its arguments are serve's, so
 * `node dist/src/main.js --help` prints serve's help (options and
 * environment) instead of starting a server.
 */
process.argv.splice(2, 0, 'serve');
await import('./cli.js');
