// The category a Core Rule Set rule counts under in the metrics: its file's family (rule ids are
// numbered by file: 942xxx are REQUEST-942-APPLICATION-ATTACK-SQLI's). A fixed, small set of labels.

const families: Record<number, string> = {
  911: 'method',
  913: 'scanner',
  920: 'protocol',
  921: 'protocol',
  922: 'protocol',
  930: 'lfi',
  931: 'rfi',
  932: 'rce',
  933: 'php',
  934: 'nodejs',
  941: 'xss',
  942: 'sqli',
  943: 'session_fixation',
  944: 'java',
};

export function ruleCategory(id: number): string {
  return families[Math.floor(id / 1000)] ?? 'other';
}
