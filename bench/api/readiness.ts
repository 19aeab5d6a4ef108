// Waiting for an edgeplane process's API: it listens on a port it picked (127.0.0.1:0), so every
// port the process listens on is asked for /readyz until one answers 200.
import { keepAliveAgent, send, type Endpoint } from './load.ts';
import { listeningPorts } from './proc-cpu.ts';
import { sleep } from './server.ts';

/** `skip`: ports known not to be the API's (the DNS port, say). */
export async function waitForReadyz(pid: number, hasExited: () => boolean, timeoutMs: number, skip: readonly number[] = []): Promise<Endpoint> {
  const agent = keepAliveAgent(1);
  try {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (hasExited()) throw new Error('the process exited');
      for (const port of listeningPorts(pid).filter((p) => !skip.includes(p))) {
        const endpoint = { host: '127.0.0.1', port };
        const ready = await send(agent, endpoint, { method: 'GET', path: '/readyz', headers: {} }).catch(() => undefined);
        if (ready?.status === 200) return endpoint;
      }
      await sleep(100);
    }
    throw new Error(`no answer on /readyz within ${timeoutMs / 1000} s`);
  } finally {
    agent.destroy();
  }
}
