import { resolveReportStyle } from '@service/report-model';
import { InvalidTemplateError, type TemplateProblem } from '../invalid-template-error.ts';
import {
  compileTemplate,
  renderCompiledTemplateWith,
  sampleImages,
  templateProblemsOf,
} from './render-template-docx.ts';
import { SAMPLE_RETEST } from './sample-retest.ts';

export interface TemplateLintResult {
  /** True when the template can be used: no errors (missing styles alone do not fail it). */
  ok: boolean;
  errors: TemplateProblem[];
  /**
   * Named styles Markdown is written with that the template lacks (Heading 1, List Bullet, Code...); Markdown then uses
   * direct formatting.
   */
  missingStyles: string[];
}

// The smallest valid PNG (1x1), so the sample's evidence draws as pictures.
const PIXEL = Uint8Array.from(
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==',
    'base64',
  ),
);

/**
 * Checks an uploaded template: package safety, every tag error docxtemplater finds (unclosed or
 * unbalanced tags and loops, raw tags not alone in their paragraph), every tag that names no
 * field or is used the wrong way, then a test render with a built-in sample report. Lists every
 * problem with its tag and paragraph, and the named styles the template lacks. Never throws for
 * a bad template (only for a bug).
 */
export function lintDocxTemplate(template: Uint8Array): TemplateLintResult {
  let compiled: ReturnType<typeof compileTemplate>;
  try {
    compiled = compileTemplate(template);
  } catch (err) {
    if (err instanceof InvalidTemplateError) return { ok: false, errors: err.details, missingStyles: [] };
    throw err;
  }
  const missingStyles = compiled.styles.missing;
  if (compiled.doc === null || compiled.problems.length > 0)
    return { ok: false, errors: compiled.problems, missingStyles };
  try {
    renderCompiledTemplateWith(
      compiled,
      // Why the retest: it has every field of the sample report and the retest fields as well.
      SAMPLE_RETEST,
      resolveReportStyle(null),
      sampleImages(SAMPLE_RETEST, PIXEL),
      new Date('2024-03-11T00:00:00Z'),
    );
  } catch (err) {
    if (err instanceof InvalidTemplateError) return { ok: false, errors: err.details, missingStyles };
    return { ok: false, errors: templateProblemsOf(err, compiled.files), missingStyles };
  }
  return { ok: true, errors: [], missingStyles };
}
