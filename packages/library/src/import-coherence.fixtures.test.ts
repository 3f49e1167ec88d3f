// What an import makes of real scans (the repository's development set), held to the promises of
// issue 32: no finding contradicts its own score without a reason, none above info says it is
// informational, and every placeholder of a template is filled.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyTemplateContent, severityDisagreement } from '@service/report-model';
import { findingOfScanResult, parseScan, SCAN_FORMATS } from '@service/scanners';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildTemplateMatchIndex,
  itemsOfKind,
  loadLibrary,
  matchableTemplatesOfLibrary,
  matchScanFinding,
  type Library,
} from './index.ts';
import { wordingProblem } from './template-content-checks.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let library: Library;
beforeAll(async () => {
  library = await loadLibrary(path.join(ROOT, 'library'));
});

describe('findings imported from the development scans', () => {
  it('agree with their score or say why, never call themselves informational above info, and fill every placeholder', () => {
    const index = buildTemplateMatchIndex(matchableTemplatesOfLibrary(library));
    const templates = new Map(itemsOfKind(library, 'finding-template').map((t) => [t.key, t.content]));
    const problems: string[] = [];
    let findings = 0;
    for (const format of SCAN_FORMATS) {
      const folder = path.join(ROOT, 'fixtures/public', format);
      for (const name of readdirSync(folder)) {
        for (const result of parseScan(readFileSync(path.join(folder, name)), { format }).findings) {
          for (const { finding: part, match } of matchScanFinding(result, index)) {
            for (const language of ['en', 'de']) {
              let finding = findingOfScanResult(part, language);
              const template = match ? templates.get(match.templateKey) : undefined;
              if (template) {
                const content = language === 'de' ? { ...template, ...template.translations.de } : template;
                finding = applyTemplateContent(finding, content).finding;
              }
              findings++;
              const where = `${format}/${name} ${part.groupKey} (${language}, ${match?.templateKey ?? 'no template'})`;
              if (severityDisagreement(finding) && finding.severityReason.trim() === '')
                problems.push(`${where}: ${finding.severity} against its score, no reason`);
              const text = [finding.title, finding.description, finding.impact, finding.remediation].join('\n');
              if (template && finding.severity !== 'info' && wordingProblem(finding.severity, text))
                problems.push(`${where}: ${wordingProblem(finding.severity, text)}`);
              if (/\{\{scanner\./.test(text)) problems.push(`${where}: a placeholder left`);
            }
          }
        }
      }
    }
    expect(findings).toBeGreaterThan(1000);
    expect(problems).toEqual([]);
  });
});
