export { MarkdownFormatError, type SourcePosition } from './markdown-format-error.ts';
export { MARKDOWN_LIMITS } from './markdown-limits.ts';
export { parseFindingFile, serializeFindingFile, type FindingFile, type ParsedFindingFile, type ParseFindingFileOptions } from './finding-file.ts';
