import type { TabPlacement } from '@service/report-model';
import type { ReportStyle } from '@service/report-model';
import {
  ProjectTypeFileSchema,
  ReportStyleFileSchema,
  ReportTemplateFileSchema,
  ScopingTemplateFileSchema,
} from './library-file-schemas.ts';
import type {
  LibraryKind,
  ProjectTypeContent,
  ReportTemplateContent,
  ScopingSection,
  ScopingTemplateContent,
} from './library-item.ts';
import type { ProblemList } from './library-problem.ts';
import { checkItemKey, type ItemReference, type ParsedItem } from './parsed-item.ts';
import { SchemaCheck } from './schema-check.ts';
import { reportTextProblems } from './report-text-checks.ts';
import { readYaml, type YamlSource } from './yaml-source.ts';

export type YamlKind = Extract<LibraryKind, 'report-style' | 'report-template' | 'scoping-template' | 'project-type'>;

const checks: Record<YamlKind, SchemaCheck> = {
  'report-style': new SchemaCheck(ReportStyleFileSchema),
  'report-template': new SchemaCheck(ReportTemplateFileSchema),
  'scoping-template': new SchemaCheck(ScopingTemplateFileSchema),
  'project-type': new SchemaCheck(ProjectTypeFileSchema),
};

/** Reads one YAML item (style, report template, scoping template, project type) and checks it on its own. */
export function readYamlItem(
  kind: YamlKind,
  text: string,
  file: string,
  fileKey: string,
  problems: ProblemList,
): ParsedItem | null {
  const source = readYaml(text, 1, problems, 'the file');
  if (!source) return null;
  const value = source.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    problems.error(source.at(''), 'the file must be a YAML mapping of `key: value` lines, starting with `key:`');
    return null;
  }
  const fields = value as Record<string, unknown>;
  const key = checkItemKey(fields.key, fileKey, source.at('/key'), problems);
  const valid = checks[kind].report(value, source, problems);
  if (!valid || key === null) {
    // Why: semantic checks on a value that fails its schema would only add noise.
    return null;
  }
  const base = { key, file, keyAt: source.at('/key') };
  switch (kind) {
    case 'report-style':
      return readStyle(fields, source, base);
    case 'report-template':
      return readReportTemplate(fields, source, base, problems);
    case 'scoping-template':
      return readScopingTemplate(fields, source, base, problems);
    case 'project-type':
      return readProjectType(fields, source, base, problems);
  }
}

type Base = Pick<ParsedItem, 'key' | 'file' | 'keyAt'>;

function readStyle(fields: Record<string, unknown>, source: YamlSource, base: Base): ParsedItem<'report-style'> {
  const { key: _key, wordTemplate, ...style } = fields as ReportStyle & { key: string; wordTemplate?: string };
  return {
    ...base,
    kind: 'report-style',
    // The Word template's size and digest are filled in once the file has been read.
    content: { ...style, wordTemplate: wordTemplate ? { fileName: wordTemplate, sha256: '', size: 0 } : null },
    references: [],
    wordTemplate: wordTemplate ? { fileName: wordTemplate, at: source.at('/wordTemplate') } : undefined,
  };
}

function readReportTemplate(
  fields: Record<string, unknown>,
  source: YamlSource,
  base: Base,
  problems: ProblemList,
): ParsedItem<'report-template'> {
  const f = fields as {
    name: string;
    description?: string;
    language?: string;
    style?: string;
    tabs: Array<{ title: string; narrative?: string; content?: string; placement?: TabPlacement }>;
  };
  const references: ItemReference[] = [];
  if (f.style !== undefined)
    references.push({ kind: 'report-style', key: f.style, field: 'style', at: source.at('/style') });
  const tabs = f.tabs.map((tab, i) => {
    // Why retest variables allowed here: whether the template is a retest's is known once its
    // narratives are read; then every variable is filled for a sample report (read-library.ts).
    for (const problem of reportTextProblems(tab.content ?? '', { retest: true }))
      problems.error(
        source.at(`/tabs/${i}/content`),
        `tabs[${i}].content, line ${problem.line}, column ${problem.column}: ${problem.message}`,
      );
    if (tab.narrative !== undefined)
      references.push({
        kind: 'narrative',
        key: tab.narrative,
        field: `tabs[${i}].narrative`,
        at: source.at(`/tabs/${i}/narrative`),
      });
    return {
      title: tab.title,
      narrative: tab.narrative ?? null,
      content: tab.content ?? '',
      placement: tab.placement ?? 'before',
    };
  });
  const content: ReportTemplateContent = {
    name: f.name,
    description: f.description ?? '',
    language: f.language ?? 'en',
    style: f.style ?? null,
    tabs,
  };
  return { ...base, kind: 'report-template', content, references };
}

function readScopingTemplate(
  fields: Record<string, unknown>,
  source: YamlSource,
  base: Base,
  problems: ProblemList,
): ParsedItem<'scoping-template'> {
  const f = fields as { name: string; description?: string; language?: string; sections: ScopingSection[] };
  const ids = new Map<string, string>();
  const sections = f.sections.map((section, s) => ({
    title: section.title,
    ...(section.description !== undefined ? { description: section.description } : {}),
    questions: section.questions.map((q, i) => {
      const at = `/sections/${s}/questions/${i}`;
      const earlier = ids.get(q.id);
      if (earlier)
        problems.error(
          source.at(`${at}/id`),
          `question id \`${q.id}\` is already used by ${earlier}; ids must be unique within a scoping template`,
        );
      ids.set(q.id, `sections[${s}].questions[${i}]`);
      const choice = q.type === 'choice' || q.type === 'multi-choice';
      if (choice && !q.options)
        problems.error(
          source.at(at),
          `a question of type ${q.type} needs \`options\` (at least two answers to choose from)`,
        );
      if (!choice && q.options)
        problems.error(
          source.at(`${at}/options`),
          `\`options\` only fit questions of type choice or multi-choice, not ${q.type}`,
        );
      return {
        id: q.id,
        text: q.text,
        type: q.type,
        ...(q.help !== undefined ? { help: q.help } : {}),
        required: q.required ?? false,
        ...(q.options ? { options: q.options } : {}),
      };
    }),
  }));
  const content: ScopingTemplateContent = {
    name: f.name,
    description: f.description ?? '',
    language: f.language ?? 'en',
    sections,
  };
  return { ...base, kind: 'scoping-template', content, references: [] };
}

function readProjectType(
  fields: Record<string, unknown>,
  source: YamlSource,
  base: Base,
  problems: ProblemList,
): ParsedItem<'project-type'> {
  const f = fields as {
    name: string;
    description?: string;
    language?: string;
    reportTemplate: string;
    retestReportTemplate?: string;
    scopingTemplate?: string;
    estimatedDays?: { min: number; max: number };
    standards?: string[];
    checklist?: string[];
  };
  if (f.estimatedDays && f.estimatedDays.min > f.estimatedDays.max)
    problems.error(
      source.at('/estimatedDays'),
      `estimatedDays.min (${f.estimatedDays.min}) is larger than estimatedDays.max (${f.estimatedDays.max})`,
    );
  const references: ItemReference[] = [
    { kind: 'report-template', key: f.reportTemplate, field: 'reportTemplate', at: source.at('/reportTemplate') },
  ];
  if (f.retestReportTemplate !== undefined)
    references.push({
      kind: 'report-template',
      key: f.retestReportTemplate,
      field: 'retestReportTemplate',
      at: source.at('/retestReportTemplate'),
    });
  if (f.scopingTemplate !== undefined)
    references.push({
      kind: 'scoping-template',
      key: f.scopingTemplate,
      field: 'scopingTemplate',
      at: source.at('/scopingTemplate'),
    });
  const content: ProjectTypeContent = {
    name: f.name,
    description: f.description ?? '',
    language: f.language ?? 'en',
    reportTemplate: f.reportTemplate,
    retestReportTemplate: f.retestReportTemplate ?? null,
    scopingTemplate: f.scopingTemplate ?? null,
    estimatedDays: f.estimatedDays ?? null,
    standards: f.standards ?? [],
    checklist: f.checklist ?? [],
  };
  return { ...base, kind: 'project-type', content, references };
}
