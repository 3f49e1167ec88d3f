import { scannerSeverityReason, severityDisagreement, type Finding } from '@service/report-model';
import { SCAN_FORMAT_LABELS, type ScanFormat } from './scan-format.ts';
import { affectedAssetsOf } from './affected-assets.ts';
import { complianceChecksTable } from './compliance-checks.ts';
import type { CompleteFinding } from './normalized-finding.ts';

const nonBlank = (text: string | null | undefined): text is string => !!text && text.trim() !== '';

/**
 * A scanner result as a finding of the report model, field by field (a new finding field is a
 * compile error here until it is decided what a scanner gives it): the synopsis leads the
 * description, every occurrence becomes an affected asset with its evidence, the rule is the source.
 */
export function findingOfScanResult(f: CompleteFinding, language = 'en'): Finding {
  const disagreement = severityDisagreement(f);
  return {
    title: f.title,
    severity: f.severity,
    // Why: the scanner's own rating is kept; the report says why it differs from the score.
    severityReason: disagreement
      ? scannerSeverityReason(
          SCAN_FORMAT_LABELS[f.source.scanner as ScanFormat] ?? f.source.scanner,
          f.severity,
          f.severityRaw,
          disagreement,
          language,
        )
      : '',
    status: 'open',
    cvss: f.cvss,
    cves: f.cves,
    cwes: f.cwes,
    affectedAssets: affectedAssetsOf(f),
    description: [f.summary, f.description].filter(nonBlank).join('\n\n'),
    impact: f.impact ?? '',
    remediation: f.remediation ?? '',
    details: complianceChecksTable(f),
    references: f.references,
    source: {
      kind: 'scanner',
      scanner: f.source.scanner,
      ...(f.source.version ? { scannerVersion: f.source.version } : {}),
      ruleId: f.ruleId,
    },
  };
}
