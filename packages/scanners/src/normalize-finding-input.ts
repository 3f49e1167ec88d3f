import type { CompleteFinding, CompleteOccurrence, NormalizedFinding } from './normalized-finding.ts';
import { normalizeCve } from './normalize-identifiers.ts';
import { maxSeverity } from '@service/report-model';

/**
 * Applies the defaults of the normalized model to a finding that passed `NormalizedFindingSchema`
 * (for example one from a JSON body written by a person): groupKey = ruleId, severityRaw = severity,
 * empty lists, occurrence severity = finding severity. It also restores the model's invariants:
 * CVE ids upper-cased and de-duplicated, CWE ids de-duplicated, and the finding severity at least
 * the highest occurrence severity (SCANNERS.md: a merged finding takes the maximum).
 */
export function normalizeFindingInput(input: NormalizedFinding): CompleteFinding {
  const occurrences: CompleteOccurrence[] = (input.occurrences ?? []).map((occurrence) => ({
    ...occurrence,
    severity: occurrence.severity ?? input.severity,
  }));
  let severity = input.severity;
  for (const occurrence of occurrences) severity = maxSeverity(severity, occurrence.severity);

  const cves: string[] = [];
  for (const raw of input.cves ?? []) {
    const cve = normalizeCve(raw);
    if (cve !== null && !cves.includes(cve)) cves.push(cve);
  }

  return {
    ...input,
    groupKey: input.groupKey ?? input.ruleId,
    severity,
    severityRaw: input.severityRaw ?? input.severity,
    confidence: input.confidence ?? null,
    description: input.description ?? '',
    impact: input.impact ?? null,
    remediation: input.remediation ?? null,
    references: [...new Set(input.references ?? [])],
    cves,
    cwes: [...new Set(input.cwes ?? [])],
    cvss: input.cvss ?? [],
    occurrences,
  };
}
