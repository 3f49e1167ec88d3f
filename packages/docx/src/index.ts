export { renderReportDocx } from './our-layout/render-report-docx.ts';
export { renderTemplateDocx } from './template/render-template-docx.ts';
export { lintDocxTemplate, type TemplateLintResult } from './template/lint-docx-template.ts';
export { TEMPLATE_LIMITS } from './template/read-template-package.ts';
export type { TagKind, TagScope } from './template/tag-set.ts';
export { TEMPLATE_TAGS } from './template/template-data.ts';
export { EXPECTED_STYLES, TEMPLATE_STYLE_NAMES } from './template/template-styles.ts';
export { InvalidTemplateError, describeProblem, type TemplateProblem } from './invalid-template-error.ts';
export type { RenderReportOptions } from './render-options.ts';
export { MAX_EVIDENCE_IMAGE_BYTES } from './evidence-images.ts';
export {
  convertDocxToPdf,
  DocxPdfConverter,
  PdfConversionError,
  PdfQueueFullError,
  type DocxPdfConverterOptions,
} from './pdf/docx-pdf-converter.ts';
export { reportLocale, type ReportLocale } from './messages/report-locale.ts';
export { ENGLISH, GERMAN, LABEL_TAGS, type MessageKey } from './messages/report-messages.ts';
