import { TEXT_LIMITS } from '@service/report-model';
import { NarrativeFrontSchema } from './library-file-schemas.ts';
import type { ProblemList } from './library-problem.ts';
import { readFrontMatterFile } from './library-text.ts';
import { checkItemKey, type ParsedItem } from './parsed-item.ts';
import { reportTextProblems } from './report-text-checks.ts';
import { SchemaCheck } from './schema-check.ts';

const frontCheck = new SchemaCheck(NarrativeFrontSchema);

/**
 * Reads `narratives/<key>.md`: front matter (key, title, category, description, language) and a
 * Markdown body, which is the narrative's text as it goes into a report tab.
 */
export function readNarrative(
  text: string,
  file: string,
  fileKey: string,
  problems: ProblemList,
): ParsedItem<'narrative'> | null {
  const split = readFrontMatterFile(text, problems);
  if (!split) return null;
  const { front, body, bodyLine, closeLine } = split;
  const value = front.value as Record<string, unknown> | null;
  const key = checkItemKey(
    value && typeof value === 'object' ? value.key : undefined,
    fileKey,
    front.at('/key'),
    problems,
  );
  if (!frontCheck.report(value, front, problems)) return null;
  if (body.trim() === '') {
    problems.error(
      { line: closeLine + 1, column: 1 },
      'the narrative has no text: write its Markdown after the front matter',
    );
    return null;
  }
  if (body.length > TEXT_LIMITS.tabContent) {
    problems.error(
      { line: bodyLine, column: 1 },
      `the narrative is ${body.length} characters long; at most ${TEXT_LIMITS.tabContent} fit a report tab`,
    );
    return null;
  }
  if (key === null) return null;
  const v = value as { title: string; category: string; description?: string; language?: string };
  for (const problem of reportTextProblems(body, { retest: v.category === 'retest' }))
    problems.error({ line: bodyLine + problem.line - 1, column: problem.column }, problem.message);
  return {
    kind: 'narrative',
    key,
    file,
    content: {
      title: v.title,
      category: v.category,
      description: v.description ?? '',
      language: v.language ?? 'en',
      content: body,
    },
    keyAt: front.at('/key'),
    references: [],
  };
}
