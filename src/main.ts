#!/usr/bin/env node
// CLI entry (`npx edgeplane`): the commands are in cli/cli.ts, imported once the compile cache is on
// (compile-cache.ts: worker threads then need no TypeScript stripper of their own).
import { availableParallelism } from 'node:os';
import { limitArenas } from './c-heap.ts';
import { enableCompileCache } from './compile-cache.ts';

limitArenas(availableParallelism());
enableCompileCache();
const { runCli } = await import('./cli/cli.ts');
process.exitCode = await runCli(process.argv.slice(2), process.env, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
