import type { ReportDocument, ResolvedReportStyle } from '@service/report-model';
import type { WordmlContext } from '../wordml/markdown-to-wordml.ts';
import type { Data } from './lazy-data.ts';
import { reportTagData } from './report-tags.ts';
import { templateRender, type TemplateDataOptions } from './template-render.ts';

export { mayHoldImage } from './rich-text.ts';
export { TEMPLATE_TAGS } from './report-tags.ts';
export type { TagKind, TagScope } from './tag-set.ts';
export type { TemplateDataOptions } from './template-render.ts';

/**
 * The values of every tag for one report. Rich values are WordprocessingML built with the
 * template's own styles (`ctx`); text values are plain strings docxtemplater escapes. Values that
 * cost something to build are built when a tag reads them, and once. Each scope's tags and values
 * come from one definition (`report-tags.ts`, `finding-tags.ts`), the fields' by their shapes in
 * the report model's declarations.
 */
export function buildTemplateData(
  doc: ReportDocument,
  style: ResolvedReportStyle,
  ctx: WordmlContext,
  now: Date,
  options: TemplateDataOptions = {},
): Data {
  return reportTagData(templateRender(doc, style, ctx, now, options));
}
