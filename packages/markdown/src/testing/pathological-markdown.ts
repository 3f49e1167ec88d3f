/**
 * Report files of about `n` characters built to hit the slow paths of a Markdown or YAML reader:
 * long runs that a regular expression retries from every position, markup runs (`<!--`, `[`, `*`,
 * backticks) that an inline parser rescans, deep nesting, many keys, many small parts. Used by the
 * tests (each completes, read or refused as `expect` says) and by the pathological-text bench
 * (times at several sizes).
 */
export interface PathologicalMarkdown {
  make: (n: number) => string;
  /** `read`, or what the refusal's message matches. */
  expect: 'read' | RegExp;
}

const HEAD = '---\nformat: service-report/1\ntitle: T\nclient: C\nproject:\n  name: P\n---\n\n';
const FINDING = '# Findings\n\n## A\n\n```yaml\nseverity: low\n```\n\n';
const SHA = 'a'.repeat(64);
const times = (unit: string, n: number) => unit.repeat(Math.max(1, Math.floor(n / unit.length)));
const lines = (n: number, line: (i: number) => string) => {
  const out: string[] = [];
  for (let size = 0, i = 0; size < n; i++) {
    const l = line(i);
    out.push(l);
    size += l.length + 1;
  }
  return out.join('\n');
};
/** A run of `unit` as a finding's description (capped at 1,000,000 characters). */
const description = (unit: string) => (n: number) =>
  `${HEAD}${FINDING}### Description\n\n${times(unit, Math.min(n, 990_000))}\n`;

const MB = 1_000_000;

/**
 * Texts of 1,000,000 characters (the longest description) made of runs a parser may rescan from every
 * position: PostgreSQL's text-search parser (tags, comments, entities), Markdown's inline rules
 * (brackets, emphasis, backticks) and regular expressions anchored at a line's end.
 */
export const PATHOLOGICAL_TEXTS: Record<string, string> = {
  '<!--': '<!--'.repeat(MB / 4),
  '[': '['.repeat(MB),
  '[[ ]]': `${'[['.repeat(MB / 4)}${']]'.repeat(MB / 4)}`,
  '*_': '*_'.repeat(MB / 2),
  backticks: Array.from({ length: MB / 5 }, (_, i) => `${'`'.repeat(1 + (i % 8))}a`)
    .join('')
    .slice(0, MB),
  '<a href="': '<a href="'.repeat(MB / 9),
  '&#x': '&#x'.repeat(Math.floor(MB / 3)),
  '\\': '\\'.repeat(MB),
  'spaces then a letter': `${' '.repeat(MB - 1)}a`,
  'indented lines': Array.from({ length: MB / 100 }, (_, i) => `${' '.repeat(90 - (i % 80))}- a`.padEnd(99))
    .join('\n')
    .slice(0, MB),
  'one long word': 'a'.repeat(MB),
  'dotted names': 'a.'.repeat(MB / 2),
};

const TOO_LONG = /must not have more than/;

export const PATHOLOGICAL_MARKDOWN: Record<string, PathologicalMarkdown> = {
  'summary of <!--': { make: (n) => `${HEAD}# Summary\n\n${times('<!--', Math.min(n, 990_000))}\n`, expect: 'read' },
  'description of <!--': { make: description('<!--'), expect: 'read' },
  'description of [': { make: description('['), expect: 'read' },
  'description of [[]]': {
    make: (n) => description('')(0).replace(/\n$/, `${'[['.repeat(n / 4)}${']]'.repeat(n / 4)}\n`),
    expect: 'read',
  },
  'description of ![': { make: description('!['), expect: 'read' },
  'description of [a](': { make: description('[a]('), expect: 'read' },
  'description of *a': { make: description('*a'), expect: 'read' },
  'description of _a': { make: description('_a'), expect: 'read' },
  'description of ** and __': { make: description('**__'), expect: 'read' },
  'description of `a': { make: description('`a'), expect: 'read' },
  'description of <a': { make: description('<a'), expect: 'read' },
  'description of &#': { make: description('&#'), expect: 'read' },
  'description of \\': { make: description('\\'), expect: 'read' },
  'description of >': { make: description('>'), expect: 'read' },
  'description of indented lists': {
    make: (n) =>
      description('')(0).replace(/\n$/, `${lines(Math.min(n, 980_000), (i) => `${'  '.repeat(i % 100)}- a`)}\n`),
    expect: 'read',
  },
  'description of spaces then a letter': {
    make: (n) => description('')(0).replace(/\n$/, `a${' '.repeat(n)}b\n`),
    expect: TOO_LONG,
  },
  'heading with spaces before its end': {
    make: (n) => `${HEAD}# Findings\n\n## a${' '.repeat(n)}b\n\n\`\`\`yaml\nseverity: low\n\`\`\`\n`,
    expect: /title/,
  },
  'heading closed by a long # run': {
    make: (n) => `${HEAD}# Findings\n\n## a${' #'.repeat(n / 2)}\n\n\`\`\`yaml\nseverity: low\n\`\`\`\n`,
    expect: /title/,
  },
  'fence opening with spaces': {
    make: (n) => `${HEAD}# Summary\n\n\`\`\`markdown a${' '.repeat(n)}b\nx\n\`\`\`\n`,
    expect: /fence option/,
  },
  'link line with spaces': {
    make: (n) => `${HEAD}# Links\n\n- [a](b)${' '.repeat(n)}x\n`,
    expect: /one link per line/,
  },
  'evidence line with escapes': {
    make: (n) =>
      `${HEAD}${FINDING}### Evidence\n\n![${times('\\[', Math.min(n, 990_000))}](evidence:sha256:${SHA} "f.png")\n`,
    expect: /caption/,
  },
  'many headings': { make: (n) => `${HEAD}# Summary\n\nx\n${times('####### x\n', n)}`, expect: TOO_LONG },
  'many findings': {
    make: (n) => `${HEAD}# Findings\n\n${times('## a\n\n```yaml\nseverity: low\n```\n\n', n)}`,
    expect: 'read',
  },
  'many fences': { make: (n) => `${HEAD}# Summary\n\n${times('```\n', n)}`, expect: 'read' },
  'fence never closed': { make: (n) => `${HEAD}# Summary\n\n\`\`\`markdown\n${times('x\n', n)}`, expect: /never/ },
  'many blank lines': { make: (n) => `${HEAD}# Summary\n\n${'\n'.repeat(n)}x\n`, expect: 'read' },
  'lines of spaces': { make: (n) => `${HEAD}# Summary\n\nx\n${times(' \n', n)}x\n`, expect: TOO_LONG },
  'CR line ends': { make: (n) => `${HEAD}# Summary\n\n${times('x\r', Math.min(n, 990_000))}`, expect: 'read' },
  'YAML nested [': {
    make: (n) => `${HEAD}${FINDING.replace('severity: low', `severity: low\ncves: ${'['.repeat(n)}`)}`,
    expect: /longer than/,
  },
  'YAML nested [ in a small block': {
    make: (n) =>
      `${HEAD}${FINDING.replace('severity: low', `severity: low\ncves: ${'['.repeat(100_000)}`)}`.padEnd(n, '\n'),
    expect: /nested more than 64 levels/,
  },
  'YAML many keys': {
    make: (n) => `${HEAD}${FINDING.replace('severity: low', `severity: low\n${lines(n, (i) => `k${i}: v`)}`)}`,
    expect: 'read',
  },
  // Single quotes are outside the fast reader's subset: these blocks go to the general YAML reader.
  'YAML many small hand-written blocks': {
    make: (n) => `${HEAD}# Findings\n\n${times("## a\n\n```yaml\nseverity: 'low'\ncves: [CVE-2024-1234]\n```\n\n", n)}`,
    expect: 'read',
  },
  'YAML many small commented blocks': {
    make: (n) =>
      `${HEAD}# Findings\n\n${times('## a\n\n```yaml\n# by hand\nseverity: low # checked\ncves: [CVE-2024-1234]\n```\n\n', n)}`,
    expect: 'read',
  },
  'YAML flow list of many items': {
    make: (n) => `${HEAD}${FINDING.replace('severity: low', `severity: low\nreferences: [${times('a, ', n)}a]`)}`,
    expect: /more than 1000 items/,
  },
  'YAML many aliases': {
    make: (n) =>
      `${HEAD}${FINDING.replace('severity: low', `severity: low\nx: &a v\n${lines(Math.min(n, 100_000), (i) => `k${i}: *a`)}`)}`.padEnd(
        n,
        '\n',
      ),
    expect: /anchors/,
  },
  'YAML many keys, hand-written': {
    make: (n) =>
      `${HEAD}${FINDING.replace('severity: low', `severity: 'low'\n${lines(120_000, (i) => `k${i}: v`)}`)}`.padEnd(
        n,
        '\n',
      ),
    expect: 'read',
  },
  'YAML many assets blocks': {
    make: (n) => `${HEAD}${FINDING}### Affected assets\n\n${times('```yaml\nhost: a\n```\n\n', n)}`,
    expect: 'read',
  },
};
