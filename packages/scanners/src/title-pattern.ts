/** Longest title pattern: patterns run against every finding of an import. */
export const TITLE_PATTERN_MAX_CHARS = 300;

/** What titlePatternProblem checks, in words (for the API document: no JSON Schema can say it). */
export const TITLE_PATTERN_RULE =
  `a JavaScript regular expression of 1 to ${TITLE_PATTERN_MAX_CHARS} characters that compiles, matched ` +
  'case-insensitively, with no back-references (`\\1`, `\\k<name>`) and no repeated group that itself ' +
  'repeats without bound (`(a+)+`)';

/**
 * Why a title pattern cannot be used, or null when it can. Patterns run against every scanner
 * finding of an import, and workspace users may write their own, so besides compiling a pattern
 * must not be able to take exponential time: no back-references and no quantified group that
 * itself holds an unbounded quantifier (`(a+)+`, `(\w*\s?)*`), the shapes behind catastrophic
 * backtracking.
 */
export function titlePatternProblem(pattern: string): string | null {
  if (pattern.length === 0) return 'a title pattern must not be empty';
  if (pattern.length > TITLE_PATTERN_MAX_CHARS)
    return `a title pattern may be at most ${TITLE_PATTERN_MAX_CHARS} characters long`;
  try {
    new RegExp(pattern, 'i');
  } catch (err) {
    return (
      `the title pattern does not compile: ` +
      `${(err as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '')}`
    );
  }
  return nestingProblem(pattern);
}

/** Compiles a title pattern as matching uses it: case-insensitive. */
export function compileTitlePattern(pattern: string): RegExp {
  return new RegExp(pattern, 'i');
}

function nestingProblem(source: string): string | null {
  // Each open group records whether it holds an unbounded quantifier.
  const groups: boolean[] = [false];
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && source[i + 2] === '<'))
        return 'title patterns may not use back-references (\\1, \\k<name>)';
      i++;
      continue;
    }
    if (c === '[') {
      // Skip the character class; `]` right after `[` or `[^` is a literal.
      let j = i + 1;
      if (source[j] === '^') j++;
      if (source[j] === ']') j++;
      while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
      i = j;
      continue;
    }
    if (c === '(') {
      groups.push(false);
      continue;
    }
    if (c === ')') {
      const inner = groups.length > 1 ? groups.pop()! : false;
      const unbounded = unboundedQuantifierAt(source, i + 1);
      if (unbounded && inner)
        return (
          'title patterns may not repeat a group that itself repeats without bound (such as ' +
          '`(a+)+`): it can take exponential time'
        );
      if (unbounded || inner) groups[groups.length - 1] = true;
      continue;
    }
    if (unboundedQuantifierAt(source, i)) groups[groups.length - 1] = true;
  }
  return null;
}

/** True when an unbounded quantifier (`*`, `+`, `{n,}`, `{n,m}` with m > 1) starts at `at`. */
function unboundedQuantifierAt(source: string, at: number): boolean {
  const c = source[at];
  if (c === '*' || c === '+') return true;
  if (c !== '{') return false;
  const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at));
  if (!m) return false;
  if (m[2] === undefined) return Number(m[1]) > 1;
  return m[3] === '' || Number(m[3]) > 1;
}
