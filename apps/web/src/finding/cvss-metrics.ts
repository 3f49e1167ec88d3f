/** The base metrics of CVSS 3.1 and 4.0 as the calculator offers them (FIRST's names and values). */
export interface CvssMetric {
  key: string;
  name: string;
  values: ReadonlyArray<{ value: string; name: string }>;
}

const CIA = [
  { value: 'H', name: 'High' },
  { value: 'L', name: 'Low' },
  { value: 'N', name: 'None' },
];

export const CVSS31_METRICS: readonly CvssMetric[] = [
  {
    key: 'AV',
    name: 'Attack Vector',
    values: [
      { value: 'N', name: 'Network' },
      { value: 'A', name: 'Adjacent' },
      { value: 'L', name: 'Local' },
      { value: 'P', name: 'Physical' },
    ],
  },
  {
    key: 'AC',
    name: 'Attack Complexity',
    values: [
      { value: 'L', name: 'Low' },
      { value: 'H', name: 'High' },
    ],
  },
  {
    key: 'PR',
    name: 'Privileges Required',
    values: [
      { value: 'N', name: 'None' },
      { value: 'L', name: 'Low' },
      { value: 'H', name: 'High' },
    ],
  },
  {
    key: 'UI',
    name: 'User Interaction',
    values: [
      { value: 'N', name: 'None' },
      { value: 'R', name: 'Required' },
    ],
  },
  {
    key: 'S',
    name: 'Scope',
    values: [
      { value: 'U', name: 'Unchanged' },
      { value: 'C', name: 'Changed' },
    ],
  },
  { key: 'C', name: 'Confidentiality', values: CIA },
  { key: 'I', name: 'Integrity', values: CIA },
  { key: 'A', name: 'Availability', values: CIA },
];

export const CVSS40_METRICS: readonly CvssMetric[] = [
  CVSS31_METRICS[0]!,
  CVSS31_METRICS[1]!,
  {
    key: 'AT',
    name: 'Attack Requirements',
    values: [
      { value: 'N', name: 'None' },
      { value: 'P', name: 'Present' },
    ],
  },
  CVSS31_METRICS[2]!,
  {
    key: 'UI',
    name: 'User Interaction',
    values: [
      { value: 'N', name: 'None' },
      { value: 'P', name: 'Passive' },
      { value: 'A', name: 'Active' },
    ],
  },
  { key: 'VC', name: 'Confidentiality (vulnerable system)', values: CIA },
  { key: 'VI', name: 'Integrity (vulnerable system)', values: CIA },
  { key: 'VA', name: 'Availability (vulnerable system)', values: CIA },
  { key: 'SC', name: 'Confidentiality (subsequent systems)', values: CIA },
  { key: 'SI', name: 'Integrity (subsequent systems)', values: CIA },
  { key: 'SA', name: 'Availability (subsequent systems)', values: CIA },
];

export const CVSS_CALCULATORS = [
  { version: '3.1', prefix: 'CVSS:3.1', metrics: CVSS31_METRICS },
  { version: '4.0', prefix: 'CVSS:4.0', metrics: CVSS40_METRICS },
] as const;

/** `CVSS:3.1/AV:N/AC:L/...` -> { AV: 'N', AC: 'L', ... } (the prefix left out). */
export function metricsOfVector(vector: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (vector ?? '').split('/')) {
    const [key, value] = part.split(':');
    if (key && value && key !== 'CVSS') out[key] = value;
  }
  return out;
}

/** The vector of the chosen metrics, in the specification's order; null until every base metric is chosen. */
export function vectorOfMetrics(
  prefix: string,
  metrics: readonly CvssMetric[],
  chosen: Record<string, string>,
): string | null {
  const parts = metrics.map((m) => (chosen[m.key] ? `${m.key}:${chosen[m.key]}` : null));
  if (parts.some((p) => p === null)) return null;
  // Metrics beyond the base ones (temporal, threat, environmental) that the vector had are kept.
  const extra = Object.entries(chosen)
    .filter(([k]) => !metrics.some((m) => m.key === k))
    .map(([k, v]) => `${k}:${v}`);
  return [prefix, ...parts, ...extra].join('/');
}
