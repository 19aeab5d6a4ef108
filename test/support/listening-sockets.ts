// How many sockets of this machine listen on a port (TCP) or are bound to it (UDP), from the
// kernel's tables: threads sharing a port (SO_REUSEPORT) hold one each, so the count says how many
// threads serve it.
import fs from 'node:fs';

function count(table: string, port: number, state: string | undefined): number {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  let n = 0;
  for (const file of [`/proc/net/${table}`, `/proc/net/${table}6`]) {
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 4 || !fields[1]?.endsWith(`:${hex}`)) continue;
      if (state === undefined || fields[3] === state) n++;
    }
  }
  return n;
}

/** TCP sockets listening on `port` (state LISTEN, 0A). */
export const tcpListeners = (port: number): number => count('tcp', port, '0A');

/** UDP sockets bound to `port`. */
export const udpSockets = (port: number): number => count('udp', port, undefined);
