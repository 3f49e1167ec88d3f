import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCANNER_RULE_PATTERN } from '@service/scanners';
import { afterEach, describe, expect, it } from 'vitest';
import { formatProblem, itemsOfKind, loadLibrary, readLibrary, SHIPPED_TRANSLATIONS, type Library } from './index.ts';
import { sampleLibraryFiles, writeLibraryTree } from './testing/library-tree.ts';
import { wordTemplateVariant } from './testing/word-template.ts';

const REPO_LIBRARY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../library');
const base = sampleLibraryFiles();
const FT = 'finding-templates/smb-signing-disabled.md';
const TR = 'finding-templates/translations/de/smb-signing-disabled.md';
const trees: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const t of trees.splice(0)) t.remove();
});

/** The sample library with one file changed: `to` replaces `from` (which must occur). */
function edit(file: string, from: string, to: string): Record<string, string> {
  expect(base[file], file).toContain(from);
  return { [file]: base[file]!.replace(from, to) };
}

async function problemsWith(overrides: Record<string, string | Uint8Array | null>): Promise<string[]> {
  const tree = writeLibraryTree({ ...base, ...overrides });
  trees.push(tree);
  const result = await readLibrary(tree.dir);
  return result.problems.map((p) => formatProblem(p));
}

describe('the shipped library', () => {
  it('passes every check', async () => {
    const result = await readLibrary(REPO_LIBRARY, { requiredTranslations: SHIPPED_TRANSLATIONS });
    expect(result.problems.filter((p) => p.level === 'error').map((p) => formatProblem(p))).toEqual([]);
    const library = result.library!;
    expect(itemsOfKind(library, 'report-template').length).toBeGreaterThanOrEqual(2);
    expect(itemsOfKind(library, 'report-style').length).toBeGreaterThanOrEqual(2);
    expect(itemsOfKind(library, 'narrative').length).toBeGreaterThanOrEqual(10);
    expect(itemsOfKind(library, 'scoping-template').length).toBeGreaterThanOrEqual(3);
    expect(itemsOfKind(library, 'project-type').length).toBeGreaterThanOrEqual(6);
  });

  it('has a scoping questionnaire for every project type', async () => {
    const library = await loadLibrary(REPO_LIBRARY);
    const without = itemsOfKind(library, 'project-type')
      .filter((t) => !t.content.scopingTemplate)
      .map((t) => t.key);
    expect(without).toEqual([]);
  });

  it('declares only scanner rules the API schema accepts (a template read through the API can be sent back)', async () => {
    const { library } = await readLibrary(REPO_LIBRARY);
    const rules = itemsOfKind(library!, 'finding-template').flatMap((t) => t.content.match.rules);
    expect(rules.length).toBeGreaterThan(100);
    const schema = new RegExp(SCANNER_RULE_PATTERN);
    expect(rules.filter((rule) => !schema.test(rule))).toEqual([]);
  });
});

describe('readLibrary on a valid library', () => {
  it('reads every kind, resolves narratives into tabs and attaches translations', async () => {
    const tree = writeLibraryTree(base);
    trees.push(tree);
    const result = await readLibrary(tree.dir);
    expect(result.problems).toEqual([]);
    const library = result.library as Library;
    expect(library.items.map((i) => `${i.kind}:${i.key}`)).toEqual([
      'report-style:plain',
      'narrative:scope-statement',
      'narrative:test-methodology',
      'report-template:pentest-report',
      'scoping-template:web-scoping',
      'project-type:web-test',
      'finding-template:outdated-php',
      'finding-template:smb-signing-disabled',
    ]);
    const report = itemsOfKind(library, 'report-template')[0]!;
    expect(report.content.tabs).toEqual([
      {
        title: 'Scope',
        narrative: 'scope-statement',
        content: 'The assessment covered the systems listed below.',
        placement: 'before',
      },
      {
        title: 'Methodology',
        narrative: 'test-methodology',
        content: 'We followed the OWASP Web Security Testing Guide.',
        placement: 'before',
      },
      { title: 'Notes', narrative: null, content: 'Anything else.', placement: 'before' },
    ]);
    const smb = itemsOfKind(library, 'finding-template').find((t) => t.key === 'smb-signing-disabled')!;
    expect(smb.content.match).toEqual({
      rules: ['nessus:57608', 'nmap:open-port:445/tcp'],
      cves: [],
      cwes: [],
      titlePatterns: {},
      fallback: false,
    });
    expect(smb.content.cvss).toEqual([
      { version: '3.1', vector: 'CVSS:3.1/AV:A/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:N', baseScore: 6.8 },
    ]);
    expect(smb.content.translations).toEqual({
      de: { title: 'SMB-Signierung nicht erzwungen', description: 'Der Server erzwingt keine SMB-Signierung.' },
    });
    expect(result.counts).toMatchObject({ 'finding-template': 2, narrative: 2, translations: 1 });
  });

  it(
    'gives the same revisions whatever the formatting, and a new revision and version ' + 'when a value changes',
    async () => {
      const first = writeLibraryTree(base);
      const reformatted = writeLibraryTree({
        ...base,
        ...edit(
          'report-styles/plain.yaml',
          'fonts: { heading: Calibri, body: Calibri }',
          'fonts:\n  body: "Calibri"\n  heading: Calibri   # same values, other layout',
        ),
      });
      const changed = writeLibraryTree({
        ...base,
        ...edit('narratives/scope-statement.md', 'listed below', 'listed in the appendix'),
      });
      trees.push(first, reformatted, changed);
      const [a, b, c] = await Promise.all([
        loadLibrary(first.dir),
        loadLibrary(reformatted.dir),
        loadLibrary(changed.dir),
      ]);
      expect(b.items.map((i) => i.revision)).toEqual(a.items.map((i) => i.revision));
      expect(b.version).toBe(a.version);
      const revisions = (l: Library) => Object.fromEntries(l.items.map((i) => [i.key, i.revision]));
      const changedKeys = Object.keys(revisions(a)).filter((k) => revisions(a)[k] !== revisions(c)[k]);
      // The report template holds the narrative's text, so it changes with it.
      expect(changedKeys.sort()).toEqual(['pentest-report', 'scope-statement']);
      expect(c.version).not.toBe(a.version);
    },
  );
});

describe('readLibrary names file, line and column of each mistake', () => {
  const cases: Array<[string, Record<string, string | Uint8Array | null>, string]> = [
    [
      'a severity out of its list',
      edit(FT, 'severity: medium', 'severity: hgih'),
      `library/${FT}:3:11: \`severity\` must be one of critical, high, medium, low, info; found "hgih"`,
    ],
    [
      'a CVSS vector that does not parse',
      edit(FT, 'AV:A/AC:H', 'AV:Q/AC:H'),
      `library/${FT}:5:5: "CVSS:3.1/AV:Q/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:N" is not a valid CVSS 3.1 vector`,
    ],
    [
      'a written base score that is not the computed one',
      edit(
        FT,
        '  - CVSS:3.1/AV:A/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:N',
        '  - version: "3.1"\n    vector: CVSS:3.1/AV:A/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:N\n    baseScore: 7.5',
      ),
      `library/${FT}:5:5: baseScore 7.5 differs from the score the vector computes to ` +
        `(6.8); leave the score out, it is computed`,
    ],
    [
      'no CVSS 3.1 vector above info',
      edit(FT, 'cvss:\n  - CVSS:3.1/AV:A/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:N\n', ''),
      `library/${FT}:3:11: a template of severity medium needs a CVSS 3.1 vector in \`cvss\``,
    ],
    [
      'a severity outside the band of the newest CVSS vector',
      edit(FT, 'severity: medium', 'severity: critical'),
      `library/${FT}:3:11: the severity critical is outside the band of the newest CVSS vector (CVSS 3.1 6.8 is ` +
        'medium); change the severity or the vector',
    ],
    [
      'a CVSS 4.0 vector newer than the 3.1 one whose band the severity is not',
      edit(
        FT,
        '  - CVSS:3.1/AV:A/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:N\n',
        '  - CVSS:3.1/AV:A/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:N\n  - CVSS:4.0/AV:A/AC:H/AT:P/PR:N/UI:N/VC:H/VI:H/VA:N/SC:N/SI:N/SA:N\n',
      ),
      `library/${FT}:3:11: the severity medium is outside the band of the newest CVSS vector (CVSS 4.0 7.6 is ` +
        'high); change the severity or the vector',
    ],
    [
      '3.1 and 4.0 vectors that describe different attacks',
      edit(
        FT,
        '  - CVSS:3.1/AV:A/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:N\n',
        '  - CVSS:3.1/AV:A/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:N\n  - CVSS:4.0/AV:N/AC:L/AT:N/PR:L/UI:P/VC:L/VI:N/VA:N/SC:N/SI:N/SA:N\n',
      ),
      `library/${FT}:4:1: the CVSS 3.1 and 4.0 vectors describe different attacks: AV (A in 3.1, N in 4.0), PR (N in ` +
        '3.1, L in 4.0), UI (N in 3.1, P in 4.0), attack complexity (AC:H in 3.1, AC:L/AT:N in 4.0); make them agree, ' +
        'or say why in `cvssNote`',
    ],
    [
      'a CVSS score on a template whose score comes from the scanner',
      edit(FT, 'severity: medium', 'severity: medium\nscoreFrom: scanner'),
      `library/${FT}:5:1: \`scoreFrom: scanner\` takes the score from the instance: leave \`cvss\` empty`,
    ],
    [
      'informational wording on a template above info',
      edit(FT, 'The server does not require SMB signing.', 'This is an informational finding.'),
      `library/${FT}:3:11: a medium template says "This is an informational": wording for informational findings only`,
    ],
    [
      'informational wording in the translation of a template above info',
      edit(TR, 'Der Server erzwingt keine SMB-Signierung.', 'Es handelt sich um einen informativen Befund.'),
      `library/${TR}:2:6: a medium template says "Es handelt sich um einen informativen Befund": wording for ` +
        'informational findings only',
    ],
    [
      'another German word than Befund for a finding',
      edit(TR, 'Der Server erzwingt keine SMB-Signierung.', 'Diese Feststellung betrifft den Server.'),
      `library/${TR}:2:6: German text calls a finding "Befund" throughout, found "Feststellung"`,
    ],
    [
      'a CWE category',
      edit(FT, 'cwes: [347]', 'cwes: [347, 840]'),
      `library/${FT}:6:13: CWE-840 is a category or view, not a weakness; map the weakness itself`,
    ],
    [
      'a pillar CWE without a note',
      edit(FT, 'cwes: [347]', 'cwes: [693]'),
      `library/${FT}:6:8: CWE-693 is a pillar (the most abstract level); map the narrower weakness the finding is ` +
        '(a class, base or variant), or say in `cweNote` why none fits',
    ],
    [
      'a superseded reference',
      edit(
        FT,
        '  - https://learn.microsoft.com',
        '  - https://owasp.org/Top10/A05_2021-Security_Misconfiguration/\n  - https://learn.microsoft.com',
      ),
      `library/${FT}:8:5: https://owasp.org/Top10/A05_2021-Security_Misconfiguration/ is superseded: cite the OWASP ` +
        'Top 10:2025 category (https://owasp.org/Top10/2025/...)',
    ],
    [
      'an unknown front-matter key',
      edit(FT, 'match:', 'matchs:'),
      `library/${FT}:9:1: unknown key \`matchs\` in the front matter`,
    ],
    [
      'a key that is not the file name',
      edit(FT, 'key: smb-signing-disabled', 'key: smb-signing'),
      `library/${FT}:2:6: \`key: smb-signing\` must equal the file name`,
    ],
    [
      'a malformed Nessus plugin id',
      edit(FT, 'nessus: [57608]', 'nessus: [57608, abc]'),
      `library/${FT}:10:19: match.nessus: "abc" is not a Nessus plugin id (digits, such as 57608)`,
    ],
    [
      'the shared Burp extension type',
      edit(FT, 'nessus: [57608]', 'burp: [134217728]'),
      `library/${FT}:10:10: match.burp: burp type 134217728 is shared by every extension-generated issue`,
    ],
    [
      'a malformed Nmap port rule',
      edit(FT, '"open-port:445/tcp"', '"open-port:445"'),
      `library/${FT}:11:10: match.nmap: "open-port:445" is not of the form open-port:<port 1-65535>/<tcp|udp|sctp>`,
    ],
    [
      'a title pattern that does not compile',
      edit(FT, 'nessus: [57608]', 'titlePatterns: { burp: ["[unclosed"] }'),
      `library/${FT}:10:27: match.titlePatterns.burp: the title pattern does not ` +
        `compile: Unterminated character class: /[unclosed/`,
    ],
    [
      'a title pattern that can backtrack exponentially',
      edit(FT, 'nessus: [57608]', 'titlePatterns: { nessus: ["^(a+)+$"] }'),
      `library/${FT}:10:29: match.titlePatterns.nessus: title patterns may not repeat a ` +
        `group that itself repeats without bound`,
    ],
    [
      'a rule id two templates declare',
      edit(
        'finding-templates/outdated-php.md',
        'cwes: [1104]\n  titlePatterns',
        'cwes: [1104]\n  nessus: [57608]\n  titlePatterns',
      ),
      `library/${FT}:10:12: nessus:57608 is already matched by outdated-php (finding-templates/outdated-php.md:11)`,
    ],
    [
      'a malformed condition rule',
      edit(FT, 'nessus: [57608]', 'nessus: [57608, "family=Windows & tag=x"]'),
      `library/${FT}:10:19: match.nessus: Nessus rules cannot test \`tag\``,
    ],
    [
      'a fallback flag that is not true or false',
      edit(FT, 'nessus: [57608]', 'nessus: [57608]\n  fallback: yes please'),
      `library/${FT}:11:13: \`match.fallback\` is true or false, found "yes please"`,
    ],
    [
      'a reference that is not https',
      edit(FT, '  - https://learn.microsoft.com', '  - http://learn.microsoft.com'),
      `library/${FT}:8:5: "http://learn.microsoft.com/en-us/troubleshoot/windows-server/networking/overview-server-message-block-signing" is not an https URL`,
    ],
    [
      'a reference on a host that is not authoritative',
      edit(
        FT,
        '  - https://learn.microsoft.com',
        '  - https://example.blogspot.com/x\n  - https://learn.microsoft.com',
      ),
      `library/${FT}:8:5: example.blogspot.com is not on the list of authoritative reference hosts`,
    ],
    [
      'a reference listed twice',
      edit(
        FT,
        '  - https://learn.microsoft.com/en-us/troubleshoot/windows-server/networking/overview-server-message-block-signing',
        '  - https://learn.microsoft.com/en-us/a/\n  - https://learn.microsoft.com/en-us/a#part',
      ),
      `library/${FT}:9:5: the reference https://learn.microsoft.com/en-us/a#part is listed twice (also entry 1)`,
    ],
    [
      'a missing section',
      edit(FT, '## Remediation\n\nRequire SMB signing on every host.\n', ''),
      `library/${FT}:14:1: the template has no \`## Remediation\` section; add one after the title`,
    ],
    [
      'a translated field that cannot be translated',
      edit(TR, 'language: de', 'language: de\nseverity: high'),
      `library/${TR}:4:1: \`severity\` cannot be translated`,
    ],
    [
      'a translation of no template',
      {
        [TR]: null,
        'finding-templates/translations/de/nope.md': base[TR]!.replace('key: smb-signing-disabled', 'key: nope'),
      },
      'library/finding-templates/translations/de/nope.md:2:6: `key: nope` names no ' +
        'finding template; a translation needs finding-templates/nope.md',
    ],
    [
      'a translation in the wrong folder',
      edit(TR, 'language: de', 'language: fr'),
      `library/${TR}:3:11: \`language: fr\` must equal the folder name (translations/de/)`,
    ],
    [
      'a translated section heading',
      edit(TR, '## Description', '## Beschreibung'),
      `library/${TR}:8:1: expected a section heading \`## Description\`, \`## Impact\` ` +
        `or \`## Remediation\`, found \`## Beschreibung\``,
    ],
    [
      'a report template naming no style',
      edit('report-templates/pentest-report.yaml', 'style: plain', 'style: fancy'),
      'library/report-templates/pentest-report.yaml:3:8: `style: fancy` names no report style (known: plain)',
    ],
    [
      'a tab naming an item of another kind',
      edit('report-templates/pentest-report.yaml', 'narrative: test-methodology', 'narrative: plain'),
      'library/report-templates/pentest-report.yaml:8:16: `tabs[1].narrative: plain` ' +
        'names a report style (report-styles/plain.yaml), not a narrative',
    ],
    [
      'a misspelt key in YAML',
      edit('report-templates/pentest-report.yaml', 'style: plain', 'sytle: plain'),
      'library/report-templates/pentest-report.yaml:3:1: unknown key `sytle`',
    ],
    [
      'a colour that is not #RRGGBB',
      edit('report-styles/plain.yaml', '#1F3A5F', '#1F3A5'),
      'library/report-styles/plain.yaml:5:20: colors.primary must be a colour written #RRGGBB, such as #1F3A5F',
    ],
    [
      'a Word template that is not there',
      edit('report-styles/plain.yaml', 'pageSize: A4', 'pageSize: A4\nwordTemplate: missing.docx'),
      'library/report-styles/plain.yaml:7:15: `wordTemplate: missing.docx`: there is no ' +
        'file report-styles/missing.docx',
    ],
    [
      'a Word template that is not a DOCX',
      {
        ...edit('report-styles/plain.yaml', 'pageSize: A4', 'pageSize: A4\nwordTemplate: fake.docx'),
        'report-styles/fake.docx': 'not a zip',
      },
      'library/report-styles/plain.yaml:7:15: `wordTemplate: fake.docx` is not a Word ' +
        'document (.docx is a ZIP archive holding word/document.xml)',
    ],
    [
      'a Word template whose tags do not work',
      {
        ...edit('report-styles/plain.yaml', 'pageSize: A4', 'pageSize: A4\nwordTemplate: broken.docx'),
        'report-styles/broken.docx': wordTemplateVariant({ '{title}': '{nosuchfield}' }),
      },
      'library/report-styles/plain.yaml:7:15: `wordTemplate: broken.docx`: {nosuchfield}: ',
    ],
    [
      'a narrative category out of its list',
      edit('narratives/scope-statement.md', 'category: scope', 'category: scoping'),
      'library/narratives/scope-statement.md:4:11: category must be one of executive-summary, scope, methodology',
    ],
    [
      'a narrative without text',
      { 'narratives/scope-statement.md': '---\nkey: scope-statement\ntitle: Scope\ncategory: scope\n---\n' },
      'library/narratives/scope-statement.md:5:1: the narrative has no text',
    ],
    [
      'a question id used twice',
      edit('scoping-templates/web-scoping.yaml', 'id: auth', 'id: app-url'),
      'library/scoping-templates/web-scoping.yaml:10:13: question id `app-url` is ' +
        'already used by sections[0].questions[0]; ids must be unique within a scoping ' +
        'template',
    ],
    [
      'a choice question without options',
      edit('scoping-templates/web-scoping.yaml', '        options: [Password, SSO, Client certificates]\n', ''),
      'library/scoping-templates/web-scoping.yaml:10:9: a question of type multi-choice needs `options`',
    ],
    [
      'a project type naming no report template',
      edit('project-types/web-test.yaml', 'reportTemplate: pentest-report', 'reportTemplate: pentest'),
      'library/project-types/web-test.yaml:3:17: `reportTemplate: pentest` names no ' +
        'report template (known: pentest-report)',
    ],
    [
      'estimated days the wrong way round',
      edit('project-types/web-test.yaml', 'min: 3', 'min: 30'),
      'library/project-types/web-test.yaml:5:16: estimatedDays.min (30) is larger than estimatedDays.max (10)',
    ],
    [
      'a key used by two kinds',
      { 'narratives/plain.md': '---\nkey: plain\ntitle: Plain\ncategory: other\n---\n\nText.\n' },
      'library/narratives/plain.md:2:6: key `plain` is already used by ' +
        'report-styles/plain.yaml (a report style); keys are unique across the whole ' +
        'library',
    ],
    [
      'a YAML syntax error',
      edit('project-types/web-test.yaml', 'standards: [OWASP WSTG]', 'standards: [OWASP WSTG'),
      'library/project-types/web-test.yaml:7:1: the file is not valid YAML',
    ],
    [
      'a file of the wrong kind',
      { 'narratives/notes.txt': 'x' },
      'library/narratives/notes.txt:1:1: unexpected file: narratives/ holds one .md file per narrative',
    ],
    [
      'U+0000 in a file',
      edit('narratives/scope-statement.md', 'covered', 'cov\u0000ered'),
      'library/narratives/scope-statement.md:7:19: the file holds the character U+0000',
    ],
    [
      'a file that is not UTF-8',
      { 'narratives/scope-statement.md': new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a]) },
      'library/narratives/scope-statement.md:1:1: the file is not valid UTF-8',
    ],
  ];

  it.each(cases)('%s', async (_name, overrides, expected) => {
    const problems = await problemsWith(overrides);
    // Exactly one problem: the one made, at its place; nothing cascades into files naming the broken item.
    expect(problems).toHaveLength(1);
    expect(problems[0]!.startsWith(expected), `${problems[0]}\n  should start with\n${expected}`).toBe(true);
  });

  it('reports missing and partial translations when the languages are required', async () => {
    const tree = writeLibraryTree(base);
    trees.push(tree);
    const result = await readLibrary(tree.dir, { requiredTranslations: ['de'] });
    expect(result.problems.map((p) => formatProblem(p))).toEqual([
      'library/finding-templates/outdated-php.md:2:6: the template has no de translation; add ' +
        'finding-templates/translations/de/outdated-php.md with the title and every section',
      `library/${TR}:1:1: the de translation lacks the impact section, the remediation section; every ` +
        'section the template has must be translated',
    ]);
    expect((await readLibrary(tree.dir)).problems).toEqual([]);
  });

  it('reports every problem of a file, not only the first', async () => {
    const problems = await problemsWith(
      edit('report-styles/plain.yaml', 'pageSize: A4', 'pageSize: A5\nheaderText: 42\nshade: dark'),
    );
    expect(problems).toEqual([
      'library/report-styles/plain.yaml:6:11: pageSize must be one of A4, Letter',
      'library/report-styles/plain.yaml:7:13: headerText must be string',
      'library/report-styles/plain.yaml:8:1: unknown key `shade`',
    ]);
  });

  it('refuses a library it cannot load, naming the problems', async () => {
    const tree = writeLibraryTree({ ...base, ...edit(FT, 'severity: medium', 'severity: hgih') });
    trees.push(tree);
    await expect(loadLibrary(tree.dir)).rejects.toMatchObject({
      code: 'invalid_library',
      message: expect.stringContaining(`library/${FT}:3:11:`),
    });
  });
});
