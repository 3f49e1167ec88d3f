import { fillReportVariables, REPORT_VARIABLES } from '@service/docx';
import { findVariables, textOutsideCode } from '@service/markdown';
import {
  emptyDocumentFinding,
  emptyReportDocument,
  freshRetestResult,
  TAB,
  type ReportDocument,
  type TabFields,
} from '@service/report-model';

/**
 * The rules for text that goes into a report's tabs (narratives, report templates' tabs): what the
 * report knows comes from report variables (`{{client}}`, `{{authors}}`: docs/library-authoring.md,
 * "Report variables"), never from bracketed text a person must remember to replace ("[Client]",
 * "[date]"), and every variable used has a value in a report that sets its fields.
 */

export interface TextProblem {
  /** 1-based, within the text. */
  line: number;
  column: number;
  message: string;
}

// `[Client]`, `[start date]`: brackets that are not a link (`[text](url)`, `[text][ref]`, `[ref]:`),
// an image, a task list box (`[ ]`, `[x]`), a footnote (`[^1]`) or an escaped bracket.
const BRACKETED = /(?<![\\!\]])\[(?![ xX]\]|\^)([^[\]\n]{1,80})\](?![([:])/g;

/** Bracketed placeholders, unknown report variables and retest-only variables outside a retest's text. */
export function reportTextProblems(text: string, options: { retest: boolean }): TextProblem[] {
  const problems: TextProblem[] = [];
  for (const piece of textOutsideCode(text))
    for (const m of piece.text.matchAll(BRACKETED))
      problems.push({
        line: piece.line,
        column: piece.column + (m.index ?? 0),
        message: `\`${m[0]}\` is a placeholder a client would read: write a report variable (such as {{client}}) or the words themselves`,
      });
  for (const use of findVariables(text)) {
    const variable = REPORT_VARIABLES[use.name];
    if (!variable)
      problems.push({
        line: use.line,
        column: use.column,
        message: `{{${use.name}}} is not a report variable (known: ${Object.keys(REPORT_VARIABLES).join(', ')})`,
      });
    else if (variable.retest && !options.retest)
      problems.push({
        line: use.line,
        column: use.column,
        message: `{{${use.name}}} has a value only in a retest; use it in a narrative of category \`retest\``,
      });
  }
  return problems;
}

/**
 * A report that sets every field a variable reads: what a report made from a library template
 * looks like once its document control, project and (for a retest) results are filled in.
 */
function sampleReport(tabs: readonly TabFields[], retest: boolean): ReportDocument {
  const finding = { ...emptyDocumentFinding('SQL injection in the login form', 'high') };
  return {
    ...emptyReportDocument('Penetration test', 'ACME Corp.', 'Shop 2024'),
    project: { name: 'Shop 2024', startDate: '2024-03-04', endDate: '2024-03-08' },
    preparedBy: 'Example Security',
    authors: [{ name: 'Ann Author', role: 'Lead tester', email: 'ann@example.com' }],
    reviewers: [{ name: 'Rita Reviewer', role: 'Quality assurance' }],
    distribution: [{ name: 'Carl Client', role: 'CISO', organization: 'ACME Corp.' }],
    versionHistory: [{ version: '1.0', date: '2024-03-12', author: 'Ann Author', change: 'Final report' }],
    tabs: tabs.map((t) => ({ ...TAB.pick(t), evidence: [] })),
    findings: retest
      ? [
          {
            ...finding,
            retest: { ...freshRetestResult([], 'not_retested'), status: 'resolved', retestedAt: '2024-05-02' },
          },
        ]
      : [finding],
    ...(retest
      ? {
          retest: {
            round: 1,
            retestOf: { title: 'Penetration test', date: '2024-03-12' },
            original: { title: 'Penetration test', date: '2024-03-12' },
          },
        }
      : {}),
  };
}

/** The variables of a report template's tabs that a report setting every field would still leave without a value. */
export function unfilledVariables(tabs: readonly TabFields[], retest: boolean): string[] {
  return fillReportVariables(sampleReport(tabs, retest), new Date('2024-06-01T00:00:00Z')).problems.map(
    (p) => p.message,
  );
}
