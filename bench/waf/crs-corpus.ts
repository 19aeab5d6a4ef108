// The attack corpus: the OWASP CRS regression tests (tests/regression/tests/**/*.yaml of
// coreruleset/coreruleset), read from a checkout or from a git directory at a given revision. Nothing
// of it is copied into this repository; README.md says how to get it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ftwRequestBytes, type FtwInput } from './ftw-request.ts';
import { invalidity } from './http-validity.ts';

const testsDir = 'tests/regression/tests';

/** The category of a CRS rule file, by its number (REQUEST-942-… → sqli). */
const categories: Record<string, string> = {
  '911': 'method',
  '913': 'scanner',
  '920': 'protocol',
  '921': 'protocol-attack',
  '922': 'multipart',
  '930': 'lfi',
  '931': 'rfi',
  '932': 'rce',
  '933': 'php',
  '934': 'nodejs',
  '941': 'xss',
  '942': 'sqli',
  '943': 'session-fixation',
  '944': 'java',
};

export interface CorpusRequest {
  /** The test's title, e.g. 942100-1. */
  id: string;
  /** The rule the test was written for. */
  ruleId: string;
  category: string;
  /**
   * attack: CRS expects the rule to fire (log_contains) or a 403; other: a test that the rule must not
   * fire on (no_log_contains), or of the server's own refusal (status 400, expect_error): not an attack
   * the WAF should block, and not benign either (another rule may rightly fire).
   */
  kind: 'attack' | 'other';
  bytes: Buffer;
  /** Why the bytes are not one valid HTTP/1.x request; undefined when they are. */
  invalid: string | undefined;
}

interface FtwOutput {
  log_contains?: string;
  no_log_contains?: string;
  status?: number | number[];
  expect_error?: boolean;
}

interface FtwFile {
  tests?: { test_title: string; stages: ({ stage: { input: FtwInput; output: FtwOutput } } | { input: FtwInput; output: FtwOutput })[] }[];
}

/**
 * The tests' directory: `source` is a git directory (bare or not) read at `revision` through
 * `git archive` into `scratch`, a checkout holding tests/regression/tests, or that directory itself.
 */
function testsRoot(source: string, revision: string, scratch: string): string {
  const gitDir = fs.existsSync(path.join(source, 'objects')) && fs.existsSync(path.join(source, 'HEAD')) ? source : undefined;
  if (gitDir !== undefined) {
    const archive = execFileSync('git', ['--git-dir', gitDir, 'archive', revision, testsDir], { maxBuffer: 256 * 1024 * 1024 });
    fs.mkdirSync(scratch, { recursive: true });
    execFileSync('tar', ['-x', '-C', scratch], { input: archive });
    return path.join(scratch, testsDir);
  }
  return fs.existsSync(path.join(source, testsDir)) ? path.join(source, testsDir) : source;
}

/**
 * The corpus's requests name `Host: localhost` (ftw's test server); here that names the protected
 * resource instead, in every request's header section. Other Host values are the test's point and stay.
 */
function withHost(bytes: Buffer, host: string): Buffer {
  const text = bytes.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  const head = (end < 0 ? text : text.slice(0, end)).replace(/^(Host:[ \t]*)localhost(?=[ \t]*(?:\r\n|$))/im, `$1${host}`);
  return Buffer.concat([Buffer.from(head, 'latin1'), bytes.subarray(end < 0 ? text.length : end)]);
}

const yamlFiles = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? yamlFiles(path.join(dir, e.name)) : e.name.endsWith('.yaml') ? [path.join(dir, e.name)] : []));

/** Every stage of every test, in file order, with `Host: localhost` naming `host`. */
export function loadCrsCorpus(source: string, revision: string, scratch: string, host: string): CorpusRequest[] {
  const root = testsRoot(source, revision, scratch);
  const files = yamlFiles(root).sort();
  if (files.length === 0) throw new Error(`no CRS regression tests (*.yaml) under ${root}`);
  const requests: CorpusRequest[] = [];
  for (const file of files) {
    const ruleId = path.basename(file, '.yaml');
    const category = categories[ruleId.slice(0, 3)] ?? `other (${ruleId.slice(0, 3)})`;
    const parsed = parse(fs.readFileSync(file, 'utf8')) as FtwFile;
    for (const test of parsed.tests ?? []) {
      for (const entry of test.stages) {
        const { input, output } = 'stage' in entry ? entry.stage : entry;
        const statuses = output.status === undefined ? [] : [output.status].flat();
        const bytes = withHost(ftwRequestBytes(input), host);
        requests.push({
          id: test.test_title,
          ruleId,
          category,
          kind: output.log_contains !== undefined || statuses.includes(403) ? 'attack' : 'other',
          bytes,
          invalid: invalidity(bytes),
        });
      }
    }
  }
  return requests;
}
