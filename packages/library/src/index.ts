export {
  KIND_FOLDERS,
  LIBRARY_KINDS,
  QUESTION_TYPES,
  itemsOfKind,
  type FindingTemplateContent,
  type FindingTranslation,
  type Library,
  type LibraryContentOf,
  type LibraryFile,
  type LibraryFileRef,
  type LibraryItem,
  type LibraryItemOf,
  type LibraryKind,
  type NarrativeContent,
  type ProjectTypeContent,
  type QuestionType,
  type ReportStyleContent,
  type ReportTemplateContent,
  type ReportTemplateTabContent,
  type ScopingQuestion,
  type ScopingSection,
  type ScopingTemplateContent,
  type TemplateMatchRules,
} from './library-item.ts';
export { LibraryError, type LibraryErrorCode } from './library-error.ts';
export { formatProblem, type LibraryProblem, type SourcePosition } from './library-problem.ts';
export { LIBRARY_LIMITS } from './library-text.ts';
export { NARRATIVE_CATEGORIES, ScopingSectionSchema } from './library-file-schemas.ts';
export {
  kindLabel,
  loadLibrary,
  readLibrary,
  SHIPPED_TRANSLATIONS,
  type ReadLibraryOptions,
  type ReadLibraryResult,
} from './read-library.ts';
export { isAuthoritativeHost, referenceProblem } from './reference-hosts.ts';
export { canonicalJson, itemRevision, libraryVersion } from './item-revision.ts';
export {
  diffLibraries,
  libraryManifest,
  type LibraryDiff,
  type LibraryItemChange,
  type LibraryItemVersion,
  type LibraryManifest,
} from './diff-libraries.ts';
export { SEARCH_ALIASES, searchAlternatives } from './search-aliases.ts';
export { titlePatternProblem } from './title-pattern.ts';
export { suspectedMatchProblems, type CoverageMatch, type RuleCoverage } from './scan-coverage.ts';
export {
  buildTemplateMatchIndex,
  FINDING_TEMPLATE_MATCH_COLUMNS,
  matchableTemplateOfRow,
  matchableTemplatesOfLibrary,
  matchScanFinding,
  matchTemplates,
  matchRefusal,
  MATCHED_ON,
  literalWeight,
  type MatchConfidence,
  type FindingTemplateMatchRow,
  type MatchableFinding,
  type MatchableOccurrence,
  type MatchableTemplate,
  type ScanFindingPart,
  type SplittableFinding,
  type MatchedOn,
  type TemplateMatch,
  type TemplateMatchIndex,
} from './match-templates.ts';
export { loadSharedLibrary, refreshSharedLibrary, type SharedLibraryRefresh } from './shared-library.ts';
export {
  importGlobals,
  lastGlobalsImport,
  workspaceHasLibrary,
  type ImportChange,
  type ImportCounts,
  type ImportGlobalsOptions,
  type ImportGlobalsResult,
  type LibraryFileStore,
} from './import-globals.ts';
export { WORKSPACE_TABLES } from './workspace-rows.ts';
export {
  pendingGlobalsImportRequest,
  requestGlobalsImport,
  takeGlobalsImportRequest,
} from './globals-import-request.ts';
export { prepareLibraryOnStart, type LibraryOnStart } from './prepare-library-on-start.ts';
export { measureCoverage, type CoverageFinding, type CoverageReport, type ScannerCoverage } from './scan-coverage.ts';
