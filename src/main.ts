#!/usr/bin/env node
// CLI entry (`npx edgeplane`): the commands are in cli/cli.ts.
import { runCli } from './cli/cli.ts';

process.exitCode = await runCli(process.argv.slice(2), process.env, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
