import { describe, expect, it } from 'vitest';
import { parseMarkdownBlocks } from './document-blocks.ts';
import { fillVariables, findVariables, literalMarkdown, type VariableValue } from './fill-variables.ts';

const VALUES: Record<string, VariableValue | null> = {
  client: { inline: 'ACME *Corp* [EU] | 1. <b>' },
  authors: { inline: 'Ann (Lead)', block: '- **Ann**, Lead' },
  reviewers: null,
};
const value = (name: string) => (name in VALUES ? VALUES[name] : undefined);

describe('report variables in Markdown', () => {
  it('fill inline as literal text, whatever Markdown the value holds', () => {
    const filled = fillVariables('Prepared for {{client}}.', value);
    expect(filled.missing).toEqual([]);
    const [paragraph] = parseMarkdownBlocks(filled.markdown);
    expect(paragraph).toMatchObject({
      kind: 'paragraph',
      inlines: [{ kind: 'text', text: 'Prepared for ACME *Corp* [EU] | 1. <b>.' }],
    });
  });

  it('take their block form alone on a line, and their inline form in a sentence', () => {
    const filled = fillVariables('Authors:\n{{authors}}\nand {{authors}} again', value);
    expect(filled.markdown).toBe('Authors:\n\n- **Ann**, Lead\n\nand Ann \\(Lead\\) again');
    expect(filled.blocks).toEqual(['authors']);
  });

  it('leave code alone: fenced blocks and code spans keep the braces', () => {
    const text = 'Use `{{client}}` here.\n\n```\n{{client}}\n```\n\n~~~~\n{{client}}\n~~~~\n{{client}}';
    const filled = fillVariables(text, value);
    expect(filled.markdown.split('\n').slice(0, 9).join('\n')).toBe(text.split('\n').slice(0, 9).join('\n'));
    expect(filled.markdown.split('\n').at(-1)).toBe(literalMarkdown('ACME *Corp* [EU] | 1. <b>'));
    expect(findVariables(text).map((u) => [u.line, u.column, u.alone])).toEqual([[10, 1, true]]);
  });

  it('stay as written and are named when they have no value, or no variable has their name', () => {
    const filled = fillVariables('By {{reviewers}} and {{reviewrs}}; {{ client }} is Jinja, {{7*7}} is text.', value);
    expect(filled.markdown).toBe('By {{reviewers}} and {{reviewrs}}; {{ client }} is Jinja, {{7*7}} is text.');
    expect(filled.missing).toEqual(['reviewers']);
    expect(filled.unknown).toEqual(['reviewrs']);
  });

  it('end a sentence once: a value ending in a full stop before one in the text loses its own', () => {
    const value = (name: string) => (name === 'client' ? { inline: 'ACME Corp.' } : undefined);
    expect(fillVariables('Ask {{client}}. Or {{client}} staff.', value).markdown).toBe(
      'Ask ACME Corp. Or ACME Corp\\. staff.',
    );
  });

  it('are found with their line and column', () => {
    expect(findVariables('a\n  b {{client}} c {{x1}}')).toEqual([
      { name: 'client', line: 2, column: 5, alone: false },
      { name: 'x1', line: 2, column: 18, alone: false },
    ]);
  });
});
