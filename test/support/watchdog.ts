// Loaded before every test file (`--import` in `npm test`). A test that hangs fails at the per-test
// timeout, but what it left open (a socket, a timer, a service it never stopped) would keep its file's
// process alive, and the whole run waiting for it. Once the file's tests and hooks are done, the
// process has a while to end on its own; then it ends, failing the file, with a message saying why.
// (`--test-force-exit` would do this at once, but it loses test results on the way: nodejs/node#64833.)
import { after } from 'node:test';

const graceMs = 30_000;

after(() => {
  setTimeout(() => {
    process.stderr.write(`\nwatchdog: this test file was still running ${graceMs / 1000} s after its last test: something it started is still open\n`);
    process.exit(1);
  }, graceMs).unref();
});
