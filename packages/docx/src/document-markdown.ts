import {
  FINDING_MARKDOWN_FIELDS,
  REPORT_MARKDOWN_FIELDS,
  TAB_MARKDOWN_FIELD_NAMES,
  type ReportDocument,
} from '@service/report-model';

/**
 * Every Markdown text of a report, in document order, with the template tag that shows it: the
 * report's Markdown fields, each tab's, each finding's and its retest notes, by the report model's
 * declarations (a new Markdown field of any of them is here by itself).
 */
export function* documentMarkdown(doc: ReportDocument): Generator<{ tag: string; markdown: string }> {
  for (const { name } of REPORT_MARKDOWN_FIELDS) yield { tag: name, markdown: doc[name] };
  for (const tab of doc.tabs) for (const name of TAB_MARKDOWN_FIELD_NAMES) yield { tag: name, markdown: tab[name] };
  for (const f of doc.findings) {
    for (const { name } of FINDING_MARKDOWN_FIELDS) yield { tag: name, markdown: f[name] };
    if (f.retest) yield { tag: 'retestNotes', markdown: f.retest.notes };
  }
}
