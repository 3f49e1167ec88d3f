/**
 * Report variables in Markdown text: `{{name}}` stands for a value the report knows (its client,
 * dates, authors...: docs/library-authoring.md, "Report variables"). Filling is a text pass that
 * leaves code alone (fenced blocks and code spans keep `{{...}}` as written), writes inline values
 * as literal text (every Markdown character escaped) and puts a variable alone on its line in its
 * block form where it has one (a table, a list), as blocks of their own.
 */

/** A variable's value: plain text inline; optional Markdown blocks for a variable alone on a line. */
export interface VariableValue {
  inline: string;
  block?: string;
}

/** What filling did: the text, and the variables it could not fill, by name, in the order first met. */
export interface FilledMarkdown {
  markdown: string;
  /** Known variables without a value here. */
  missing: string[];
  /** Names no variable has. */
  unknown: string[];
  /** Variables written in their block form (alone on a line). */
  blocks: string[];
}

/** A variable where a text uses it: its name, line and column (from 1), and whether it is alone on its line. */
export interface VariableUse {
  name: string;
  line: number;
  column: number;
  alone: boolean;
}

// `{{name}}`: a letter, then letters and digits; with spaces inside it is not a variable (`{{ x }}` is Jinja).
const VARIABLE = /\{\{([A-Za-z][A-Za-z0-9]*)\}\}/g;
const ALONE = /^\s*\{\{([A-Za-z][A-Za-z0-9]*)\}\}\s*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/g;

/** Text as Markdown that shows exactly it: every ASCII punctuation escaped, line breaks as spaces. */
export function literalMarkdown(text: string): string {
  return text.replace(/\r\n|\r|\n/g, ' ').replace(ASCII_PUNCTUATION, (c) => `\\${c}`);
}

/**
 * A value as inline Markdown, before the character that follows the variable: a value ending in a
 * full stop (`ACME Corp.`) before one in the text loses its own, so a sentence ends once.
 */
function inlineText(value: string, next: string): string {
  return literalMarkdown(next === '.' && value.endsWith('.') ? value.slice(0, -1) : value);
}

/** The length of the run of backticks at `i`. */
function runAt(line: string, i: number): number {
  let n = 0;
  while (line[i + n] === '`') n++;
  return n;
}

/** Where the code span opened by `n` backticks before `from` closes (a run of exactly `n`), or -1. */
function closingRun(line: string, from: number, n: number): number {
  for (let j = line.indexOf('`', from); j >= 0; j = line.indexOf('`', j)) {
    const m = runAt(line, j);
    if (m === n) return j;
    j += m;
  }
  return -1;
}

/** A line cut into text and code spans (`` `code` ``), with where each starts. */
function splitCodeSpans(line: string): Array<{ text: string; at: number; code: boolean }> {
  const parts: Array<{ text: string; at: number; code: boolean }> = [];
  let at = 0;
  let i = line.indexOf('`');
  while (i >= 0) {
    const n = runAt(line, i);
    const close = closingRun(line, i + n, n);
    if (close < 0) break;
    if (i > at) parts.push({ text: line.slice(at, i), at, code: false });
    parts.push({ text: line.slice(i, close + n), at: i, code: true });
    at = close + n;
    i = line.indexOf('`', at);
  }
  if (at < line.length) parts.push({ text: line.slice(at), at, code: false });
  return parts;
}

/**
 * Every line with what is not code in it: `alone` when the line is one variable and nothing else,
 * `parts` the pieces outside code spans; fenced lines have neither.
 */
function* linesOutsideCode(markdown: string): Generator<{
  line: string;
  index: number;
  alone: string | null;
  parts: Array<{ text: string; at: number; code: boolean }> | null;
}> {
  let fence: string | null = null;
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const opening = FENCE.exec(line);
    if (fence !== null) {
      if (opening?.[1]?.startsWith(fence) && line.trim() === opening[1]) fence = null;
      yield { line, index, alone: null, parts: null };
    } else if (opening?.[1]) {
      fence = opening[1].charAt(0).repeat(opening[1].length);
      yield { line, index, alone: null, parts: null };
    } else yield { line, index, alone: ALONE.exec(line)?.[1] ?? null, parts: splitCodeSpans(line) };
  }
}

/** The text of a Markdown text outside code (fenced blocks, code spans), piece by piece, with where each starts. */
export function* textOutsideCode(markdown: string): Generator<{ text: string; line: number; column: number }> {
  for (const { index, parts } of linesOutsideCode(markdown))
    for (const part of parts ?? []) if (!part.code) yield { text: part.text, line: index + 1, column: part.at + 1 };
}

/** Every variable a Markdown text uses, outside code, in order. */
export function findVariables(markdown: string): VariableUse[] {
  const uses: VariableUse[] = [];
  if (!markdown.includes('{{')) return uses;
  for (const { index, alone, parts } of linesOutsideCode(markdown))
    for (const part of parts ?? []) {
      if (part.code) continue;
      for (const m of part.text.matchAll(VARIABLE))
        uses.push({ name: m[1] ?? '', line: index + 1, column: part.at + (m.index ?? 0) + 1, alone: alone !== null });
    }
  return uses;
}

/**
 * Fills the variables of a Markdown text. `value` gives a variable's value, `null` when it has
 * none here (it stays as written and is reported missing), `undefined` when no variable has the
 * name (it stays and is reported unknown).
 */
export function fillVariables(
  markdown: string,
  value: (name: string) => VariableValue | null | undefined,
): FilledMarkdown {
  const result: FilledMarkdown = { markdown, missing: [], unknown: [], blocks: [] };
  if (!markdown.includes('{{')) return result;
  const note = (list: string[], name: string) => {
    if (!list.includes(name)) list.push(name);
  };
  const lookup = (name: string) => {
    const v = value(name);
    if (v === undefined) note(result.unknown, name);
    else if (v === null) note(result.missing, name);
    return v ?? null;
  };
  const out: string[] = [];
  for (const { line, alone, parts } of linesOutsideCode(markdown)) {
    const v = alone === null ? null : lookup(alone);
    if (alone !== null && v?.block !== undefined) {
      note(result.blocks, alone);
      out.push('', v.block, '');
    } else if (alone !== null) out.push(v ? line.replace(VARIABLE, () => literalMarkdown(v.inline)) : line);
    else if (parts === null) out.push(line);
    else
      out.push(
        parts
          .map((part) =>
            part.code
              ? part.text
              : part.text.replace(VARIABLE, (whole: string, name: string, at: number, all: string) => {
                  const found = lookup(name);
                  return found ? inlineText(found.inline, all.charAt(at + whole.length)) : whole;
                }),
          )
          .join(''),
      );
  }
  result.markdown = out.join('\n');
  return result;
}
