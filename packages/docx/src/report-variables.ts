import {
  countRetestStatuses,
  newestVersion,
  REPORT,
  REPORT_PROJECT,
  REPORT_MARKDOWN_FIELDS,
  severityRank,
  TAB_MARKDOWN_FIELD_NAMES,
  type Person,
  type ProjectFieldShape,
  type ReportDocument,
  type ReportFieldShape,
  type ReportStatus,
  type RetestResult,
  type VersionEntry,
} from '@service/report-model';
import { fillVariables, literalMarkdown, type VariableValue } from '@service/markdown';
import { reportLocale, type ReportLocale } from './messages/report-locale.ts';
import { peopleText } from './people-text.ts';
import { countSeverities, formatTestingPeriod, reportDay, SEVERITIES_DESCENDING } from './report-labels.ts';
import { retestTotals } from './retest-chart.ts';

/** What a variable's value is made from. */
interface VariableSource {
  doc: ReportDocument;
  locale: ReportLocale;
  now: Date;
}

/**
 * One report variable: what it stands for (the documentation's words), where its value comes from
 * (a report or project field, or `hint` for others), whether only a retest has it, and its value
 * (`null`: none for this report).
 */
interface VariableDefinition {
  description: string;
  /** The field a report needs to give it a value, for the warning: `the report's authors`. */
  source: string;
  retest?: true;
  value(s: VariableSource): VariableValue | null;
}

const text = (inline: string | null | undefined): VariableValue | null =>
  inline === null || inline === undefined || inline.trim() === '' ? null : { inline };

const peopleBlock = (people: readonly Person[]) =>
  people
    .map((p) =>
      [
        `**${literalMarkdown(p.name)}**`,
        ...[p.role, p.organization, p.email]
          .filter((x): x is string => x !== undefined && x.trim() !== '')
          .map(literalMarkdown),
      ].join(', '),
    )
    .map((line) => `- ${line}`)
    .join('\n');

function versionTable(entries: readonly VersionEntry[], locale: ReportLocale): string {
  const cell = (t: string) => literalMarkdown(t).replace(/\|/g, '\\|');
  const header = [locale.text('version'), locale.text('date'), locale.text('author'), locale.text('change')];
  return [
    `| ${header.map(cell).join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...entries.map((v) => `| ${[v.version, locale.date(v.date), v.author, v.change].map(cell).join(' | ')} |`),
  ].join('\n');
}

/** The variables of one report field, by its shape: a new shape is a compile error here until decided. */
function reportFieldVariables(name: string, shape: ReportFieldShape): Record<string, VariableDefinition> {
  const value = (s: VariableSource) => s.doc[name as keyof typeof REPORT.declarations];
  const source = `the report's \`${name}\``;
  switch (shape) {
    case 'title':
      return { [name]: { description: 'the report title', source, value: (s) => text(value(s) as string) } };
    case 'reportStatus':
      return {
        [name]: {
          description: 'the report status in the report language (Draft, In review, Final)',
          source,
          value: (s) => text(s.locale.reportStatus(value(s) as ReportStatus)),
        },
      };
    case 'text':
      return { [name]: { description: `the report's ${name}`, source, value: (s) => text(value(s) as string) } };
    case 'people':
      return {
        [name]: {
          description: `the report's ${name}: inline their names (with role and organization); alone on a line a list with e-mail`,
          source,
          value: (s) => {
            const people = value(s) as Person[];
            return people.length === 0 ? null : { inline: peopleText(people), block: peopleBlock(people) };
          },
        },
      };
    case 'versionHistory':
      return {
        [name]: {
          description:
            'alone on a line: the table of versions (version, date, author, change); inline the current version',
          source,
          value: (s) => {
            const entries = value(s) as VersionEntry[];
            const newest = newestVersion(entries);
            return newest ? { inline: newest.version, block: versionTable(entries, s.locale) } : null;
          },
        },
        version: {
          description: 'the current version: the newest entry of the version history',
          source,
          value: (s) => text(newestVersion(value(s) as VersionEntry[])?.version),
        },
        reportDate: {
          description: "the report's date: the newest version's, else the day of the export",
          source,
          value: (s) => text(reportDay(s.doc, s.now, s.locale)),
        },
      };
    case 'language': // the language the document is written in, not words in it
    case 'markdown': // a section of its own, not a value in a sentence
    case 'findingOrder':
      return {};
    default:
      return shape satisfies never;
  }
}

/** The variables of a project field a report carries, by its shape. */
function projectFieldVariables(name: string, shape: ProjectFieldShape): Record<string, VariableDefinition> {
  const value = (s: VariableSource) => s.doc.project[name as keyof ReportDocument['project']];
  const source = `the project's \`${name}\``;
  switch (shape) {
    case 'name':
      return { project: { description: 'the project name', source, value: (s) => text(value(s) as string) } };
    case 'date':
      return {
        [name]: {
          description: `the project's ${name === 'startDate' ? 'first' : name === 'endDate' ? 'last' : ''} day of testing`,
          source,
          value: (s) => text(s.locale.date(value(s) as string | null)),
        },
      };
    case 'projectType':
      return { [name]: { description: 'the project type', source, value: (s) => text(value(s) as string | null) } };
    case 'markdown':
    case 'projectStatus':
      return {};
    default:
      return shape satisfies never;
  }
}

const count = (description: string, n: (s: VariableSource) => number, retest?: true): VariableDefinition => ({
  description,
  source: retest ? 'a retest' : 'the findings',
  ...(retest ? { retest } : {}),
  value: (s) => (retest && !s.doc.retest ? null : { inline: s.locale.integer(n(s)) }),
});

const results = (doc: ReportDocument) =>
  doc.findings.map((f) => f.retest).filter((r): r is RetestResult => r !== undefined);
const retestDays = (doc: ReportDocument) =>
  results(doc)
    .map((r) => r.retestedAt)
    .filter((d): d is string => d !== null)
    .sort();

function topFindings(s: VariableSource): VariableValue {
  const top = s.doc.findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => severityRank(b.f.severity) - severityRank(a.f.severity) || a.i - b.i)
    .slice(0, 3)
    .map(({ f }) => f);
  if (top.length === 0) return { inline: s.locale.text('noFindings') };
  return {
    inline: top.map((f) => f.title).join(', '),
    block: top.map((f, i) => `${i + 1}. **${literalMarkdown(f.title)}** (${s.locale.severity(f.severity)})`).join('\n'),
  };
}

/** Every report variable, by name: those of the report's fields and its project's, then the rest. */
export const REPORT_VARIABLES: Readonly<Record<string, VariableDefinition>> = {
  client: { description: 'the client name', source: 'the client', value: (s) => text(s.doc.client.name) },
  ...Object.assign({}, ...REPORT_PROJECT.entries.map(([name, f]) => projectFieldVariables(name, f.shape))),
  testingPeriod: {
    description: 'the testing period: `4 March 2024 – 8 March 2024`',
    source: "the project's `startDate` and `endDate`",
    value: (s) => text(formatTestingPeriod(s.doc.project, s.locale)),
  },
  ...Object.assign({}, ...REPORT.entries.map(([name, f]) => reportFieldVariables(name, f.shape))),
  findingCount: count('the number of findings', (s) => s.doc.findings.length),
  ...Object.fromEntries(
    SEVERITIES_DESCENDING.map((sev) => [
      `${sev}Count`,
      count(`the number of ${sev} findings`, (s) => countSeverities(s.doc.findings)[sev]),
    ]),
  ),
  topFindings: {
    description: 'the three most severe findings: alone on a line a numbered list with their severity',
    source: 'the findings',
    value: topFindings,
  },
  retestRound: {
    description: 'the round of a retest (1, 2, ...)',
    source: 'a retest',
    retest: true,
    value: (s) => (s.doc.retest ? { inline: s.locale.integer(s.doc.retest.round) } : null),
  },
  originalReport: {
    description: 'the title of the report a retest retests',
    source: 'a retest of a report you can see',
    retest: true,
    value: (s) => text(s.doc.retest?.original?.title),
  },
  originalReportDate: {
    description: "the original report's date (its newest version's)",
    source: "the original report's `versionHistory`",
    retest: true,
    value: (s) => text(s.locale.date(s.doc.retest?.original?.date ?? null)),
  },
  retestStartDate: {
    description: 'the first day a finding was retested',
    source: "a retest's results (`retestedAt`)",
    retest: true,
    value: (s) => text(s.locale.date(retestDays(s.doc)[0] ?? null)),
  },
  retestEndDate: {
    description: 'the last day a finding was retested',
    source: "a retest's results (`retestedAt`)",
    retest: true,
    value: (s) => text(s.locale.date(retestDays(s.doc).at(-1) ?? null)),
  },
  resolvedCount: count('findings resolved in the retest', (s) => countRetestStatuses(results(s.doc)).resolved, true),
  partiallyResolvedCount: count(
    'findings partially resolved',
    (s) => countRetestStatuses(results(s.doc)).partially_resolved,
    true,
  ),
  unresolvedCount: count('findings unresolved', (s) => countRetestStatuses(results(s.doc)).unresolved, true),
  newCount: count('findings first seen in the retest', (s) => countRetestStatuses(results(s.doc)).new, true),
  notRetestedCount: count('findings not retested', (s) => countRetestStatuses(results(s.doc)).not_retested, true),
  openCount: count(
    'findings still open (partially resolved, unresolved or new)',
    (s) => retestTotals(countRetestStatuses(results(s.doc))).open,
    true,
  ),
};

/** Whether a variable is a report field of the document control's lists (its version history, its people). */
function isDocumentControl(name: string): boolean {
  const field = REPORT.entries.find(([n]) => n === name)?.[1];
  return field?.shape === 'people' || field?.shape === 'versionHistory';
}

/** A variable of a report's text that has no value, or a name no variable has. */
export interface VariableProblem {
  variable: string;
  /** `tab "Scope"`, `the summary`. */
  where: string;
  problem: 'no-value' | 'unknown';
  /** One sentence a person reads. */
  message: string;
}

/** What filling a report's variables did: the report with them filled, and what could not be filled. */
export interface FilledReport {
  doc: ReportDocument;
  problems: VariableProblem[];
  /**
   * A tab shows the document control itself: the version history or a list of people in their
   * block form (`{{versionHistory}}` alone on a line, as the library's confidentiality notice does).
   */
  documentControlInTabs: boolean;
}

function problem(variable: string, where: string, kind: VariableProblem['problem']): VariableProblem {
  const known = REPORT_VARIABLES[variable];
  const message =
    kind === 'unknown'
      ? `${where}: {{${variable}}} is not a report variable (docs/library-authoring.md lists them)`
      : known?.retest
        ? `${where}: {{${variable}}} has no value: it needs ${known.source}`
        : `${where}: {{${variable}}} has no value: set ${known?.source ?? 'it'}`;
  return { variable, where, problem: kind, message };
}

/**
 * Fills the report variables (`{{client}}`, `{{authors}}`...) of a report's own Markdown fields
 * and its tabs' text, as both renderers print them; what has no value stays as written and is
 * named in `problems` (the export's warnings).
 */
export function fillReportVariables(doc: ReportDocument, now: Date): FilledReport {
  const source: VariableSource = { doc, locale: reportLocale(doc.language), now };
  const cache = new Map<string, VariableValue | null>();
  const value = (name: string) => {
    const definition = REPORT_VARIABLES[name];
    if (!definition) return undefined;
    if (!cache.has(name)) cache.set(name, definition.value(source));
    return cache.get(name) ?? null;
  };
  const problems: VariableProblem[] = [];
  let documentControlInTabs = false;
  const fill = (markdown: string, where: string) => {
    const filled = fillVariables(markdown, value);
    for (const name of filled.missing) problems.push(problem(name, where, 'no-value'));
    for (const name of filled.unknown) problems.push(problem(name, where, 'unknown'));
    return filled;
  };
  const filledDoc: ReportDocument = { ...doc };
  for (const { name, label } of REPORT_MARKDOWN_FIELDS)
    filledDoc[name] = fill(doc[name], `the ${label.toLowerCase()}`).markdown;
  filledDoc.tabs = doc.tabs.map((tab) => {
    const copy = { ...tab };
    for (const name of TAB_MARKDOWN_FIELD_NAMES) {
      const filled = fill(tab[name], `tab "${tab.title}"`);
      copy[name] = filled.markdown;
      for (const block of filled.blocks) documentControlInTabs ||= isDocumentControl(block);
    }
    return copy;
  });
  return { doc: filledDoc, problems, documentControlInTabs };
}
