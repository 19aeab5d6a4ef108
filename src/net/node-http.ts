// node:http as CommonJS code gets it. Importing a built-in module as ESM builds a facade that reads
// every export once, and node:http exports WebSocket, CloseEvent and MessageEvent as getters that
// load undici (Node's fetch): about 2.8 MiB of heap in every thread that imports node:http, for
// code nothing here runs. getBuiltinModule returns the exports object itself, getters unread.
export const http = process.getBuiltinModule('node:http');
