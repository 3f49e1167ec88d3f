import { ruleIdProblem, SCAN_FORMATS, type ScanFormat } from '@service/scanners';
import type { TemplateMatchRules } from './library-item.ts';
import type { ProblemList, SourcePosition } from './library-problem.ts';
import { titlePatternProblem } from './title-pattern.ts';

/** Where parts of a parsed file are, by JSON Pointer. */
export interface PositionLookup {
  at(pointer: string): SourcePosition;
  keyAt(pointer: string): SourcePosition;
}

const MATCH_KEYS = [...SCAN_FORMATS, 'cves', 'cwes', 'titlePatterns', 'fallback'] as const;
const CVE = /^CVE-\d{4}-\d{4,}$/;

const isMapping = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** An empty rule set: a template that only matches when picked by hand. */
export const noMatchRules = (): TemplateMatchRules => ({
  rules: [],
  cves: [],
  cwes: [],
  titlePatterns: {},
  fallback: false,
});

/**
 * Reads a finding template's `match` block into normalised rules, reporting every malformed
 * entry at its position. `pointer` is where the block is (`/match`).
 */
export function readMatchRules(
  value: unknown,
  pointer: string,
  where: PositionLookup,
  problems: ProblemList,
): TemplateMatchRules {
  const rules = noMatchRules();
  if (value === undefined || value === null) return rules;
  if (!isMapping(value)) {
    problems.error(where.at(pointer), `\`match\` must be a mapping with any of the keys ${MATCH_KEYS.join(', ')}`);
    return rules;
  }
  for (const key of Object.keys(value)) {
    if (!(MATCH_KEYS as readonly string[]).includes(key))
      problems.error(
        where.keyAt(`${pointer}/${key}`),
        `unknown key \`${key}\` in \`match\` (known keys: ${MATCH_KEYS.join(', ')})`,
      );
  }
  const list = (key: string): Array<{ value: unknown; at: string }> => {
    const v = value[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      problems.error(
        where.at(`${pointer}/${key}`),
        `\`match.${key}\` must be a list, such as \`${key}: ` +
          `[${key === 'cves' ? 'CVE-2021-44228' : key === 'cwes' ? '89' : '...'}]\``,
      );
      return [];
    }
    return v.map((item, i) => ({ value: item, at: `${pointer}/${key}/${i}` }));
  };
  const seen = new Set<string>();
  const once = (id: string, at: string, what: string): boolean => {
    if (seen.has(id)) {
      problems.error(where.at(at), `${what} is listed twice in \`match\``);
      return false;
    }
    seen.add(id);
    return true;
  };

  for (const scanner of SCAN_FORMATS) {
    for (const item of list(scanner)) {
      const id = typeof item.value === 'number' && Number.isInteger(item.value) ? String(item.value) : item.value;
      if (typeof id !== 'string') {
        problems.error(
          where.at(item.at),
          `\`match.${scanner}\` entries must be rule ids or conditions (text or whole numbers), found ${JSON.stringify(item.value)}`,
        );
        continue;
      }
      const problem = ruleIdProblem(scanner, id);
      if (problem) problems.error(where.at(item.at), `match.${scanner}: ${problem}`);
      else if (once(`${scanner}:${id}`, item.at, `${scanner}:${id}`)) rules.rules.push(`${scanner}:${id}`);
    }
  }
  for (const item of list('cves')) {
    const cve = typeof item.value === 'string' ? item.value.trim().toUpperCase() : '';
    if (!CVE.test(cve))
      problems.error(
        where.at(item.at),
        `\`match.cves\` entries must be CVE ids such as CVE-2021-44228, found ${JSON.stringify(item.value)}`,
      );
    else if (once(cve, item.at, cve)) rules.cves.push(cve);
  }
  for (const item of list('cwes')) {
    const m =
      typeof item.value === 'number'
        ? Number.isInteger(item.value) && item.value > 0
          ? [String(item.value), String(item.value)]
          : null
        : typeof item.value === 'string'
          ? /^(?:CWE-)?(\d{1,6})$/i.exec(item.value.trim())
          : null;
    if (!m)
      problems.error(
        where.at(item.at),
        `\`match.cwes\` entries must be CWE numbers such as 89 or "CWE-89", found ${JSON.stringify(item.value)}`,
      );
    else if (once(`CWE-${Number(m[1])}`, item.at, `CWE-${Number(m[1])}`)) rules.cwes.push(Number(m[1]));
  }
  if (value.fallback !== undefined && value.fallback !== null) {
    if (typeof value.fallback !== 'boolean')
      problems.error(
        where.at(`${pointer}/fallback`),
        `\`match.fallback\` is true or false, found ${JSON.stringify(value.fallback)}`,
      );
    else rules.fallback = value.fallback;
  }
  const patterns = value.titlePatterns;
  if (patterns !== undefined && patterns !== null) {
    if (!isMapping(patterns)) {
      problems.error(
        where.at(`${pointer}/titlePatterns`),
        `\`match.titlePatterns\` must be a mapping of scanner (${SCAN_FORMATS.join(', ')}) to a list of patterns`,
      );
    } else {
      for (const [scanner, entries] of Object.entries(patterns)) {
        const at = `${pointer}/titlePatterns/${scanner}`;
        if (!(SCAN_FORMATS as readonly string[]).includes(scanner)) {
          problems.error(
            where.keyAt(at),
            `unknown scanner \`${scanner}\` in \`match.titlePatterns\` (known: ${SCAN_FORMATS.join(', ')})`,
          );
          continue;
        }
        if (entries === null) continue;
        if (!Array.isArray(entries)) {
          problems.error(where.at(at), `\`match.titlePatterns.${scanner}\` must be a list of regular expressions`);
          continue;
        }
        const kept: string[] = [];
        entries.forEach((entry, i) => {
          if (typeof entry !== 'string') {
            problems.error(
              where.at(`${at}/${i}`),
              `title patterns must be text (a regular expression in quotes), found ${JSON.stringify(entry)}`,
            );
            return;
          }
          const problem = titlePatternProblem(entry);
          if (problem) problems.error(where.at(`${at}/${i}`), `match.titlePatterns.${scanner}: ${problem}: /${entry}/`);
          else if (kept.includes(entry))
            problems.error(where.at(`${at}/${i}`), `the title pattern /${entry}/ is listed twice`);
          else kept.push(entry);
        });
        if (kept.length > 0) rules.titlePatterns[scanner as ScanFormat] = kept;
      }
    }
  }
  return rules;
}
