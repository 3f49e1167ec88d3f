// `@service/library/manifest`: a library's identity without its content (every item's kind, key
// and revision) and the difference between two of them. Kept apart from the package's main face
// because it loads none of the readers and renderers (DOCX, Markdown, charts): the installer,
// bundled into one file without native modules, compares the manifests releases ship.
export {
  diffLibraries,
  libraryManifest,
  type LibraryDiff,
  type LibraryItemChange,
  type LibraryItemVersion,
  type LibraryManifest,
} from './diff-libraries.ts';
