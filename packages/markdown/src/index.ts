export { MarkdownFormatError, type SourcePosition } from './markdown-format-error.ts';
export { MARKDOWN_LIMITS } from './markdown-limits.ts';
export { exportReportMarkdown } from './export-report-markdown.ts';
export {
  importReportMarkdown,
  type ImportedReportMarkdown,
  type ImportReportMarkdownOptions,
} from './import-report-markdown.ts';
export { REPORT_FORMAT } from './report-layout.ts';
export {
  parseFindingFile,
  serializeFindingFile,
  type FindingFile,
  type ParsedFindingFile,
  type ParseFindingFileOptions,
} from './finding-file.ts';
export { FINDING_FILE_SECTIONS, FINDING_SECTIONS } from './finding-fields.ts';
export {
  inlineText,
  isHyperlinkTarget,
  parseMarkdownBlocks,
  topHeadingLevel,
  type Block,
  type Inline,
  type TextMarks,
} from './document-blocks.ts';
export { parseEvidenceTarget, type EvidenceTarget } from './evidence-target.ts';
