/**
 * One problem of a Word template: the tag concerned (null when none), the text of the paragraph it is in, and what is
 * wrong.
 */
export interface TemplateProblem {
  tag: string | null;
  paragraph: string;
  message: string;
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

export function describeProblem(d: TemplateProblem): string {
  const where = d.paragraph
    ? ` (in the paragraph "${d.paragraph.length > 120 ? `${d.paragraph.slice(0, 117)}...` : d.paragraph}")`
    : '';
  return `${d.tag !== null ? `{${d.tag}}: ` : ''}${d.message}${where}`;
}
