import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { budgetMs, laneSize } from '@service/test-lanes';
import { readYamlSubset } from './read-yaml-subset.ts';
import { FINDING_YAML_LAYOUT, findingYamlEntries } from './finding-fields.ts';
import { anyText, findingArb } from './testing/report-document-arbitraries.ts';
import { yamlMappingText, type YamlValue } from './write-yaml.ts';

/** Property runs: the full count in CI, a quarter elsewhere. */
const runs = (full: number) => laneSize(full, full / 4);

/** What `yaml` reads, as the reader configures it; `undefined` when it reports an error. */
function readWithYaml(text: string): unknown {
  const doc = parseDocument(text, { version: '1.2', schema: 'core', uniqueKeys: true, strict: true });
  return doc.errors.length > 0 ? undefined : doc.toJS({ maxAliasCount: 0 });
}

const key = fc.stringMatching(/^[a-z][A-Za-z0-9]{0,8}$/);
const scalar: fc.Arbitrary<YamlValue> = fc.oneof(
  anyText(4),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom('CVSS:3.1/AV:N', '3.1', 'null', 'true', '2024-03-04', '-', 'a: b', 'x #y', "it's"),
);
const value: fc.Arbitrary<YamlValue> = fc.letrec<{ v: YamlValue }>((tie) => ({
  v: fc.oneof(
    { arbitrary: scalar, weight: 5 },
    { arbitrary: fc.array(tie('v'), { maxLength: 3 }), weight: 1 },
    {
      arbitrary: fc
        .array(fc.tuple(key, tie('v')), { maxLength: 3 })
        .map((entries) => Object.fromEntries(entries) as YamlValue),
      weight: 1,
    },
  ),
})).v;
const entries = fc.uniqueArray(fc.tuple(key, value), { selector: ([k]) => k, maxLength: 6 });
const layout = { flowLists: new Set(['cves', 'cwes', 'a', 'b']) };

describe('readYamlSubset', () => {
  it('reads what write-yaml writes exactly as `yaml` does', { timeout: budgetMs(runs(1000), 30) }, () => {
    fc.assert(
      fc.property(entries, (list) => {
        const text = yamlMappingText(list, layout);
        const expected = readWithYaml(text);
        expect(expected).not.toBeUndefined();
        const fast = readYamlSubset(text);
        // Why undefined is allowed: lists nested in flow lists are left to `yaml`; the writer never makes them.
        if (fast !== undefined) expect(fast).toEqual(expected);
      }),
      { numRuns: runs(1000) },
    );
  });

  it('reads the YAML of every generated finding itself', { timeout: budgetMs(runs(500), 100) }, () => {
    fc.assert(
      fc.property(findingArb, (finding) => {
        for (const text of [
          yamlMappingText(findingYamlEntries(finding, true), FINDING_YAML_LAYOUT),
          ...finding.affectedAssets.map((a) => yamlMappingText(Object.entries({ ...a, evidence: undefined }))),
        ]) {
          const fast = readYamlSubset(text);
          expect(fast).not.toBeUndefined();
          expect(fast).toEqual(readWithYaml(text));
        }
      }),
      { numRuns: runs(500) },
    );
  });

  it('whatever it accepts after a person edits the text, `yaml` reads to the same value', {
    timeout: budgetMs(runs(3000), 30),
  }, () => {
    const edit = fc.tuple(
      fc.nat(),
      fc.constantFrom(
        '',
        ' ',
        '  ',
        '\t',
        '#',
        ' # c',
        '\t# c "',
        '\n# c',
        '\n  # c: d',
        '\n\n',
        '"#',
        ': ',
        '- ',
        '"',
        "'",
        '[',
        ']',
        '{',
        '}',
        ',',
        '\n',
        '\n  ',
        '&a ',
        '*a',
        '!',
        '|',
        '>',
        '~',
        '\\',
        'x',
        '0',
        '.',
        '-',
      ),
      fc.nat({ max: 3 }),
    );
    fc.assert(
      fc.property(entries, fc.array(edit, { minLength: 1, maxLength: 3 }), (list, edits) => {
        let text = yamlMappingText(list, layout);
        for (const [at, insert, remove] of edits) {
          const i = at % (text.length + 1);
          text = text.slice(0, i) + insert + text.slice(i + remove);
        }
        const fast = readYamlSubset(text);
        if (fast !== undefined) expect(fast).toEqual(readWithYaml(text));
      }),
      { numRuns: runs(3000) },
    );
  });

  it.each([
    'a: 1\na: 2',
    "a: 'b'",
    'a: |\n  b',
    'a: &x 1',
    'a: 01',
    'a: 1_000',
    'a:\n\tb: 1',
    'a: "\u0085"',
    'a: b ',
    '',
    'a: [b, c',
    'a: "b # c',
    "a: 'b # c'",
    'a: [b # c]',
    'a:\n  - b\n \t\n  - c',
  ])('leaves %j to `yaml`', (text) => {
    expect(readYamlSubset(text)).toBeUndefined();
  });

  it.each([
    ['a: b # c', { a: 'b' }],
    ['# head\na: b\n\n  # indented\nc: "d # e" # f', { a: 'b', c: 'd # e' }],
    ['a: # c\n  # d\n  - b #e\n\n  - "#"', { a: ['b', '#'] }],
    ['a: b#c', { a: 'b#c' }],
  ])('reads comments and blank lines in %j as `yaml` does', (text, value) => {
    expect(readYamlSubset(text)).toEqual(value);
    expect(readWithYaml(text)).toEqual(value);
  });
});
