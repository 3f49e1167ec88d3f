import { findingContentOf, findingFieldsToColumns } from '@service/report-model';
import type { LibraryItem, LibraryItemOf, LibraryKind } from './library-item.ts';

/** The tenant table that holds each kind of library item. */
export const WORKSPACE_TABLES: Readonly<Record<LibraryKind, string>> = {
  'finding-template': 'finding_templates',
  'report-template': 'report_templates',
  'report-style': 'report_styles',
  narrative: 'narratives',
  'scoping-template': 'scoping_templates',
  'project-type': 'project_types',
};

/** Workspace ids of already imported items other items point at, by global key. */
export interface WorkspaceIds {
  reportStyles: ReadonlyMap<string, string>;
  reportTemplates: ReadonlyMap<string, string>;
  scopingTemplates: ReadonlyMap<string, string>;
}

/** Where a style's Word template is stored in the workspace's file storage. */
export interface StoredTemplateFile {
  storageKey: string;
  fileName: string;
  sha256: string;
  size: number;
}

const json = (value: unknown) => JSON.stringify(value ?? {});

/**
 * The content columns of the workspace row for a library item: exactly the columns the table's
 * content hash reads (see the tenant migration), so a row written from an item and never
 * touched again is not `edited`.
 */
export function workspaceRowOf(
  item: LibraryItem,
  ids: WorkspaceIds,
  templateFile: StoredTemplateFile | null,
): Record<string, unknown> {
  switch (item.kind) {
    case 'finding-template':
      return findingTemplateRow(item);
    case 'report-style': {
      const s = item.content;
      return {
        name: s.name,
        description: s.description ?? '',
        fonts: json(s.fonts),
        colors: json(s.colors),
        severity_colors: json(s.severityColors),
        cover_page: json(s.coverPage),
        header_text: s.headerText ?? '',
        footer_text: s.footerText ?? '',
        page_size: s.pageSize ?? 'A4',
        evidence_mode: s.evidenceMode ?? 'excerpt',
        logo_image_id: null,
        template_file_name: templateFile?.fileName ?? null,
        template_storage_key: templateFile?.storageKey ?? null,
        template_sha256: templateFile?.sha256 ?? null,
        template_size: templateFile?.size ?? null,
      };
    }
    case 'report-template': {
      const t = item.content;
      return {
        name: t.name,
        description: t.description,
        // Why only title and content: the workspace's tabs are what a new report starts with.
        tabs: JSON.stringify(
          t.tabs.map((tab) => ({ title: tab.title, content: tab.content, placement: tab.placement })),
        ),
        language: t.language,
        style_id: t.style === null ? null : (ids.reportStyles.get(t.style) ?? null),
      };
    }
    case 'narrative': {
      const n = item.content;
      return {
        title: n.title,
        category: n.category,
        description: n.description,
        content: n.content,
        language: n.language,
      };
    }
    case 'scoping-template': {
      const s = item.content;
      return { name: s.name, description: s.description, sections: JSON.stringify(s.sections), language: s.language };
    }
    case 'project-type': {
      const p = item.content;
      return {
        name: p.name,
        description: p.description,
        language: p.language,
        report_template_id: ids.reportTemplates.get(p.reportTemplate) ?? null,
        retest_report_template_id:
          p.retestReportTemplate === null ? null : (ids.reportTemplates.get(p.retestReportTemplate) ?? null),
        scoping_template_id: p.scopingTemplate === null ? null : (ids.scopingTemplates.get(p.scopingTemplate) ?? null),
        estimated_days_min: p.estimatedDays?.min ?? null,
        estimated_days_max: p.estimatedDays?.max ?? null,
        standards: p.standards,
        checklist: p.checklist,
      };
    }
  }
}

function findingTemplateRow(item: LibraryItemOf<'finding-template'>): Record<string, unknown> {
  const f = item.content;
  return {
    ...findingFieldsToColumns(findingContentOf(f)),
    scanner_rules: f.match.rules,
    match_cves: f.match.cves,
    match_cwes: f.match.cwes,
    title_patterns: json(f.match.titlePatterns),
    match_fallback: f.match.fallback,
    language: f.language,
    translations: json(f.translations),
  };
}
