import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyFinding, findingContentOf, type FindingContent } from '@service/report-model';
import { budgetMs, laneSize } from '@service/test-lanes';
import { MarkdownFormatError, parseFindingFile, serializeFindingFile } from './index.ts';
import { findingContentArb } from './testing/report-document-arbitraries.ts';
import { renderedOutline } from './testing/rendered-outline.ts';

const RUNS = laneSize(300, 75);
const DOC = readFileSync(new URL('../../../docs/markdown-format.md', import.meta.url), 'utf8');

/** The `markdown` example right under a heading of docs/markdown-format.md. */
function docExample(heading: string): string {
  const after = DOC.slice(DOC.indexOf(`\n${heading}\n`));
  const m = /\n(`{4,})markdown\n([\s\S]*?)\n\1\n/.exec(after);
  if (!m) throw new Error(`no example under ${heading}`);
  return `${m[2]}\n`;
}

function error(fn: () => unknown): MarkdownFormatError {
  try {
    fn();
  } catch (err) {
    if (err instanceof MarkdownFormatError) return err;
    throw err;
  }
  throw new Error('expected a MarkdownFormatError');
}

/** The content fields of an empty finding. */
function emptyContent(title: string, severity: FindingContent['severity']): FindingContent {
  return findingContentOf(emptyFinding(title, severity));
}

const sample: FindingContent = {
  ...emptyContent('SQL injection', 'high'),
  cvss: [{ version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', baseScore: 9.8 }],
  cwes: [89],
  description: 'Built from input.\n\n```sql\nSELECT 1\n```',
  impact: 'Data loss.',
  remediation: '## Parameterise\n\nUse prepared statements.',
};

describe('finding files', () => {
  it('reads the documented example and writes it back byte for byte', () => {
    const text = docExample('### Complete example');
    const parsed = parseFindingFile(text);
    expect(parsed.finding.title).toBe('SQL injection');
    expect(parsed.finding.severity).toBe('high');
    expect(parsed.finding.cvss).toEqual([
      { version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', baseScore: 9.8 },
      { version: '4.0', vector: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N', baseScore: 9.3 },
    ]);
    expect(parsed.finding.cwes).toEqual([89]);
    expect(parsed.finding.description).toContain('```http\nPOST /login HTTP/1.1');
    expect(parsed.extra).toEqual({
      key: 'web-sql-injection',
      language: 'en',
      match: { nessus: [11139], burp: ['1049088'] },
    });
    expect(Object.keys(parsed.extra)).toEqual(['key', 'language', 'match']);
    expect(parsed.positions.get('/match/burp/0')).toEqual({ line: 17, column: 7 });
    expect(parsed.warnings).toEqual([]);
    expect(serializeFindingFile(parsed)).toBe(text);
  });

  it('hands extra keys back untouched and writes them around the finding fields', () => {
    const extra = {
      key: 'k',
      language: 'de',
      match: { nessus: [1, 2], titlePatterns: ['PHP < 5\\.2'] },
      translations: { de: { title: 'SQL-Injection' } },
    };
    const text = serializeFindingFile({ finding: sample, extra });
    expect(text.indexOf('key: k')).toBeLessThan(text.indexOf('severity:'));
    expect(text.indexOf('match:')).toBeGreaterThan(text.indexOf('references:'));
    const parsed = parseFindingFile(text);
    expect(parsed.extra).toEqual(extra);
    expect(parsed.finding).toEqual(sample);
    expect(serializeFindingFile(parsed)).toBe(text);
  });

  it('puts a title a heading cannot hold in the front matter', () => {
    const finding = { ...sample, title: '  Two\nlines # ' };
    const text = serializeFindingFile({ finding, extra: {} });
    expect(text).toContain('title: "  Two\\nlines # "');
    expect(text).toContain('\n# Two lines\n');
    expect(parseFindingFile(text).finding.title).toBe(finding.title);
    const edited = parseFindingFile(text.replace('# Two lines', '# Other'));
    expect(edited.finding.title).toBe(finding.title);
    expect(edited.warnings[0]).toMatch(/the `title` key wins/);
  });

  it('fences text holding its own markers and keeps it byte for byte', () => {
    const tricky = '## Impact\n```markdown\n````\n---\n<!-- x\n\r\n';
    const finding = { ...sample, description: tricky, impact: '', remediation: '\n\n' };
    const text = serializeFindingFile({ finding, extra: {} });
    expect(text).toContain('`````markdown cr=␍\n## Impact');
    expect(parseFindingFile(text).finding).toEqual(finding);
  });

  it('accepts a hand-written file with sections missing, in another order, CRLF and a BOM', () => {
    const text =
      '\ufeff---\r\nseverity: low\r\n---\r\n# Banner\r\n## Remediation\r\nHide it.\r\n## Description\r\nShows version.';
    const { finding } = parseFindingFile(text);
    expect(finding).toEqual({
      ...emptyContent('Banner', 'low'),
      description: 'Shows version.',
      remediation: 'Hide it.',
    });
  });

  it.each([
    ['no front matter', '# T\n', 1, 1, /front matter/],
    ['unclosed front matter', '---\nseverity: high\n', 1, 1, /never closed/],
    [
      'a misspelt severity',
      '---\nseverity: hgih\n---\n# T\n',
      2,
      11,
      /`severity` must be one of critical, high, medium, low, info; found "hgih"/,
    ],
    ['no severity', '---\ncwes: [1]\n---\n# T\n', 2, 1, /needs a `severity`/],
    ['broken YAML', '---\nseverity: [high\n---\n# T\n', 2, 1, /not valid YAML/],
    ['a bad CVSS vector', '---\nseverity: high\ncvss:\n  - CVSS:3.1/AV:X\n---\n# T\n', 4, 5, /CVSS/],
    ['a bad CVE', '---\nseverity: high\ncves: [CVE-1]\n---\n# T\n', 3, 8, /`cves.0`/],
    ['no title', '---\nseverity: high\n---\n\nText\n', 5, 1, /title as a level-1 heading/],
    [
      'an unknown section',
      '---\nseverity: high\n---\n# T\n## Details\n',
      5,
      1,
      /expected a section heading .* found `## Details`/,
    ],
    ['a section twice', '---\nseverity: high\n---\n# T\n## Impact\n## Impact\n', 6, 1, /appears twice/],
    [
      'an unclosed fence',
      '---\nseverity: high\n---\n# T\n## Impact\n\n````markdown\ntext\n```\n',
      7,
      1,
      /never closed/,
    ],
    [
      'text after a fence',
      '---\nseverity: high\n---\n# T\n## Impact\n```markdown\na\n```\nb\n',
      9,
      1,
      /only a heading may follow/,
    ],
    ['aliases', '---\nseverity: high\nx: &a [1]\ny: *a\n---\n# T\n', 3, 4, /aliases/],
  ])('refuses %s with line and column', (_name, text, line, column, message) => {
    const err = error(() => parseFindingFile(text));
    expect(err.message).toMatch(message);
    expect([err.line, err.column]).toEqual([line, column]);
    expect(err.message).toMatch(new RegExp(`^line ${line}, column ${column}: `));
    expect(err.code).toBe('invalid_markdown');
    expect(err.expected).not.toBe('');
  });

  it('refuses a file over its size cap as too large', () => {
    const err = error(() => parseFindingFile('x'.repeat(2_000_000)));
    expect(err.code).toBe('payload_too_large');
  });

  it('round-trips every generated finding exactly', { timeout: budgetMs(RUNS, 200) }, () => {
    fc.assert(
      fc.property(
        findingContentArb,
        fc.dictionary(fc.constantFrom('key', 'language', 'match', 'revision'), fc.jsonValue({ maxDepth: 2 })),
        (finding, extra) => {
          const text = serializeFindingFile({ finding, extra });
          const parsed = parseFindingFile(text, { maxBytes: 10_000_000 });
          expect(parsed.finding).toEqual(finding);
          expect(parsed.extra).toEqual(extra);
          expect(serializeFindingFile(parsed)).toBe(text);
          const body = text.slice(text.indexOf('\n---\n') + 5);
          expect(renderedOutline(body)).toEqual([
            `# ${body.split('\n')[1]!.slice(2)}`,
            '## Description',
            '## Impact',
            '## Remediation',
          ]);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
