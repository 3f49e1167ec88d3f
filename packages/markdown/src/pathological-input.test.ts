// Inputs that made the reader take time quadratic in their size (runs of spaces before a line's end,
// long heading closers, deeply nested or key-heavy YAML, markup runs) are read, or refused with a
// clear error, at a megabyte. Times are measured by `npm run bench -- pathological-text`; these
// tests assert only the outcome.
import { describe, expect, it } from 'vitest';
import { budgetMs } from '@service/test-lanes';
import { exportReportMarkdown, importReportMarkdown, MarkdownFormatError, parseFindingFile } from './index.ts';
import { MAX_GENERAL_YAML_CHARS } from './read-yaml-block.ts';
import { PATHOLOGICAL_MARKDOWN } from './testing/pathological-markdown.ts';

const MB = 1_000_000;
/** Each case reads (and writes back) a megabyte by a slow path. */
const PER_MEGABYTE = budgetMs(1, 60_000);

function outcome(text: string): string {
  try {
    const { document } = importReportMarkdown(text);
    exportReportMarkdown(document);
    return 'read';
  } catch (err) {
    if (err instanceof MarkdownFormatError) return `refused: ${err.message}`;
    throw err;
  }
}

describe('pathological Markdown at a megabyte', () => {
  it.each(Object.entries(PATHOLOGICAL_MARKDOWN))(
    '%s completes',
    (_name, { make, expect: expected }) => {
      const text = make(MB);
      expect(text.length).toBeGreaterThanOrEqual(MB * 0.9);
      const result = outcome(text);
      if (expected === 'read') expect(result).toBe('read');
      else expect(result).toMatch(expected);
    },
    PER_MEGABYTE,
  );
});

describe('YAML blocks', () => {
  const head = '---\nformat: service-report/1\ntitle: T\nclient: C\nproject:\n  name: P\n---\n\n# Findings\n\n## A\n\n';

  it('refuses a duplicate key among many, at the second one', () => {
    const keys = Array.from({ length: 5_000 }, (_, i) => `# comment\nk${i}: v`).join('\n');
    const err = (() => {
      try {
        importReportMarkdown(`${head}\`\`\`yaml\nseverity: low\n${keys}\nk17: again\n\`\`\`\n`);
      } catch (e) {
        return e as MarkdownFormatError;
      }
      throw new Error('expected a MarkdownFormatError');
    })();
    expect(err).toBeInstanceOf(MarkdownFormatError);
    expect(err.message).toMatch(/Map keys must be unique/);
    expect(err.line).toBe(14 + 2 * 5_000 + 1);
    expect(err.column).toBe(1);
  });

  it('reads blocks written as the export writes them at any size, others up to the general cap', () => {
    const references = Array.from({ length: 1_000 }, (_, i) => `  - https://ref.example/${i}/${'a'.repeat(300)}`);
    const exported = `${head}\`\`\`yaml\nseverity: low\nreferences:\n${references.join('\n')}\n\`\`\`\n`;
    expect(importReportMarkdown(exported).document.findings[0]!.references).toHaveLength(1_000);
    const quoted = exported.replace('severity: low\n', "severity: 'low'\n");
    expect(quoted.length).toBeGreaterThan(MAX_GENERAL_YAML_CHARS);
    expect(() => importReportMarkdown(quoted)).toThrow(/not written as the export writes YAML/);
    const short = `${head}\`\`\`yaml\nseverity: 'low'\nreferences: [https://ref.example/1]\n\`\`\`\n`;
    expect(importReportMarkdown(short).document.findings[0]!.references).toEqual(['https://ref.example/1']);
  });

  it('refuses deep nesting in a finding file with a clear error', () => {
    const text = `---\nseverity: high\ncves: ${'['.repeat(10_000)}\n---\n# T\n`;
    expect(() => parseFindingFile(text)).toThrow(/nested more than 64 levels/);
    const flowMaps = `---\nseverity: high\nx: ${'{a: '.repeat(10_000)}\n---\n# T\n`;
    expect(() => parseFindingFile(flowMaps)).toThrow(/nested more than 64 levels/);
    const listsOnOneLine = `---\nseverity: high\nx:\n  ${'- '.repeat(10_000)}a\n---\n# T\n`;
    expect(() => parseFindingFile(listsOnOneLine)).toThrow(/nested more than 64 levels/);
    const quoted = `---\nseverity: high\ntitle: "${'['.repeat(10_000)}"\n---\n# T\n`;
    expect(() => parseFindingFile(quoted)).toThrow(/title/);
  });
});
