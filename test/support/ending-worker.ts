// A worker thread for test/thread-slot.test.ts: says it is ready, answers pings, and ends with an
// uncaught exception when told to, as a defect would end it, or stops answering (a loop that never
// ends).
import { parentPort } from 'node:worker_threads';

const port = parentPort;
if (port === null) throw new Error('ending-worker runs only as a worker thread');
port.on('message', (message: unknown) => {
  if (message === 'end') {
    setImmediate(() => {
      throw new Error('ended by the test');
    });
  } else if (message === 'hang') {
    for (;;);
  } else if (message === 'ping') {
    port.postMessage('pong');
  }
});
port.postMessage('ready');
