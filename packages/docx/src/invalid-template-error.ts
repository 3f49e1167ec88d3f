/**
 * One problem of a Word template: the tag concerned (null when none), the text around it in its
 * paragraph, what is wrong, and where: the part (`body`, `header (header1.xml)`, `footer (...)`)
 * and the paragraph's number in it (1-based, counting every paragraph, table cells included).
 */
export interface TemplateProblem {
  tag: string | null;
  paragraph: string;
  message: string;
  part?: string;
  paragraphNumber?: number;
}

/**
 * The one error for a Word template that cannot be used: an unsafe or broken file, or tags that
 * do not work. `code` is stable (`invalid_template`, HTTP 422); `details` lists every problem
 * found, with where it is. The API maps each to `{ path: '/file', message }`.
 */
export class InvalidTemplateError extends Error {
  readonly code = 'invalid_template' as const;
  readonly status = 422 as const;
  readonly expose = true;
  readonly details: TemplateProblem[];

  constructor(message: string, details: TemplateProblem[]) {
    super(message);
    this.name = 'InvalidTemplateError';
    this.details = details;
  }

  /** Each problem as the API's error detail: one line naming the tag and the paragraph. */
  toErrorDetails(): Array<{ path: string; message: string }> {
    return this.details.map((d) => ({ path: '/file', message: describeProblem(d) }));
  }
}

/** One line: `{tag}: message (body, paragraph 12: "text around it")`. */
export function describeProblem(d: TemplateProblem): string {
  const text = d.paragraph.length > 120 ? `${d.paragraph.slice(0, 117)}...` : d.paragraph;
  const place = [d.part, d.paragraphNumber !== undefined ? `paragraph ${d.paragraphNumber}` : null]
    .filter((x) => x)
    .join(', ');
  const where =
    place && text ? ` (${place}: "${text}")` : place ? ` (${place})` : text ? ` (in the paragraph "${text}")` : '';
  return `${d.tag !== null ? `{${d.tag}}: ` : ''}${d.message}${where}`;
}
