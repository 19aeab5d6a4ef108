// A worker thread for test/thread-slot.test.ts: says it is ready, and ends with an uncaught
// exception when told to, as a defect would end it.
import { parentPort } from 'node:worker_threads';

const port = parentPort;
if (port === null) throw new Error('ending-worker runs only as a worker thread');
port.on('message', (message: unknown) => {
  if (message === 'end') {
    setImmediate(() => {
      throw new Error('ended by the test');
    });
  }
});
port.postMessage('ready');
