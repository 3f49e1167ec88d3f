// What other packages' tests and benches use of this package's test material (`@service/markdown/testing`).
export type { PathologicalMarkdown } from './pathological-markdown.ts';
export { PATHOLOGICAL_MARKDOWN, PATHOLOGICAL_TEXTS } from './pathological-markdown.ts';
