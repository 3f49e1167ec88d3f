import {
  FINDING_FILE_SECTIONS,
  MarkdownFormatError,
  parseFindingFile,
  type ParsedFindingFile,
} from '@service/markdown';
import { cvssVersionOfVector, scoreCvssVector, type Cvss } from '@service/report-model';
import type { FindingTemplateContent } from './library-item.ts';
import type { ProblemList, SourcePosition } from './library-problem.ts';
import { readMatchRules, type PositionLookup } from './match-rules.ts';
import { checkItemKey, isLanguageCode, type ParsedItem } from './parsed-item.ts';
import { referenceIdentity, referenceProblem } from './reference-hosts.ts';
import {
  cweProblem,
  isPillar,
  placeholderProblem,
  severityBandProblem,
  supersededReference,
  vectorDisagreements,
  wordingProblem,
} from './template-content-checks.ts';

const EXTRA_KEYS = ['key', 'language', 'match', 'scoreFrom', 'cvssNote', 'cweNote'];

/** Position lookup over the markdown reader's positions (JSON Pointer -> position), nearest ancestor first. */
export function positionsLookup(positions: Map<string, SourcePosition>, fallback: SourcePosition): PositionLookup {
  const at = (pointer: string): SourcePosition => {
    for (let p = pointer; ; p = p.slice(0, p.lastIndexOf('/'))) {
      const found = positions.get(p);
      if (found) return found;
      if (p === '') return fallback;
    }
  };
  return { at, keyAt: at };
}

/** Reports a MarkdownFormatError (or a warning line of the reader) at its own line and column. */
export function reportMarkdownMessage(message: string, problems: ProblemList, shiftAfterLine?: number): void {
  const m = /^line (\d+), column (\d+): ([\s\S]*)$/.exec(message);
  let line = m ? Number(m[1]) : 1;
  // Why: translation files are read with one line added to their front matter (see read-finding-translation).
  if (shiftAfterLine !== undefined && line > shiftAfterLine) line -= 1;
  problems.error({ line, column: m ? Number(m[2]) : 1 }, m ? m[3]! : message);
}

/** 1-based lines of the `# title` and `## section` headings, for messages about them. */
export function headingLines(text: string, fromLine: number): { title: number; sections: Map<string, number> } {
  const lines = text.split('\n');
  let title = fromLine;
  const sections = new Map<string, number>();
  let seenTitle = false;
  for (let i = fromLine - 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (!seenTitle && /^# /.test(line)) {
      title = i + 1;
      seenTitle = true;
    }
    const s = /^##[ \t]+(.*?)[ \t]*#*[ \t]*$/.exec(line);
    const section = s ? FINDING_FILE_SECTIONS.find((f) => f.heading.toLowerCase() === s[1]!.toLowerCase()) : undefined;
    if (section && !sections.has(section.field)) sections.set(section.field, i + 1);
  }
  return { title, sections };
}

/** Reads one English finding template (`finding-templates/<key>.md`) and checks it on its own. */
export function readFindingTemplate(
  text: string,
  file: string,
  fileKey: string,
  problems: ProblemList,
): ParsedItem<'finding-template'> | null {
  let parsed: ParsedFindingFile;
  try {
    parsed = parseFindingFile(text);
  } catch (err) {
    if (!(err instanceof MarkdownFormatError)) throw err;
    reportMarkdownMessage(err.message, problems);
    return null;
  }
  for (const warning of parsed.warnings) reportMarkdownMessage(warning, problems);
  const start = { line: 1, column: 1 };
  const where = positionsLookup(parsed.positions, start);
  // Why: a missing list is reported on the severity line, the one key every template has.
  const listAt = (name: string) => where.at(parsed.positions.has(`/${name}`) ? `/${name}` : '/severity');
  const { finding, extra } = parsed;

  for (const key of Object.keys(extra)) {
    if (!EXTRA_KEYS.includes(key))
      problems.error(
        where.at(`/${key}`),
        `unknown key \`${key}\` in the front matter (a finding template has key, ` +
          `language, severity, cvss, scoreFrom, cvssNote, cwes, cweNote, cves, references, match)`,
      );
  }
  const key = checkItemKey(extra.key, fileKey, where.at('/key'), problems);
  let language = 'en';
  if (extra.language !== undefined) {
    if (typeof extra.language !== 'string' || !isLanguageCode(extra.language))
      problems.error(
        where.at('/language'),
        `\`language\` must be a language code such as en or de, found ${JSON.stringify(extra.language)}`,
      );
    else language = extra.language;
  }

  const scoreFromScanner = readScoreFrom(extra.scoreFrom, where, problems);
  const cvss = checkCvss(finding.cvss, finding.severity, scoreFromScanner, where, listAt('cvss'), problems);
  checkScoreCoherence(finding.severity, cvss, extra.cvssNote, where, listAt('cvss'), problems);
  if (finding.cwes.length === 0)
    problems.error(listAt('cwes'), '`cwes` must list at least one CWE number, such as `cwes: [89]`');
  checkCwes(finding.cwes, extra.cweNote, where, problems);
  const wording = wordingProblem(
    finding.severity,
    [finding.title, finding.description, finding.impact, finding.remediation].join('\n'),
  );
  if (wording) problems.error(where.at('/severity'), wording);
  const placeholder = placeholderProblem(
    [finding.title, finding.description, finding.impact, finding.remediation].join('\n'),
  );
  if (placeholder) problems.error(where.at('/severity'), placeholder);
  if (finding.references.length === 0)
    problems.error(
      listAt('references'),
      '`references` must list at least one reference (a URL of a standard, advisory or vendor guide)',
    );
  const seenReferences = new Map<string, number>();
  finding.references.forEach((reference, i) => {
    const problem = referenceProblem(reference) ?? supersededReference(reference);
    if (problem) problems.error(where.at(`/references/${i}`), problem);
    const identity = referenceIdentity(reference);
    const first = seenReferences.get(identity);
    if (first !== undefined)
      problems.error(
        where.at(`/references/${i}`),
        `the reference ${reference} is listed twice (also entry ${first + 1})`,
      );
    else seenReferences.set(identity, i);
  });

  const headings = headingLines(text, 1);
  for (const { field, heading } of FINDING_FILE_SECTIONS) {
    if (finding[field].trim() === '') {
      const line = headings.sections.get(field);
      problems.error(
        line ? { line, column: 1 } : { line: headings.title, column: 1 },
        line
          ? `the \`## ${heading}\` section is empty`
          : `the template has no \`## ${heading}\` section; add one after the title`,
      );
    }
  }

  const matchAt = new Map<string, SourcePosition>();
  const match = readMatchRules(extra.match, '/match', where, problems);
  collectMatchPositions(extra.match, where, matchAt);
  if (key === null) return null;
  const content: FindingTemplateContent = { ...finding, cvss, language, match, translations: {} };
  return { kind: 'finding-template', key, file, content, keyAt: where.at('/key'), references: [], matchAt };
}

/** Where each rule id, match CVE and match CWE is declared, keyed as the index keys them. */
function collectMatchPositions(match: unknown, where: PositionLookup, out: Map<string, SourcePosition>): void {
  if (match === null || typeof match !== 'object' || Array.isArray(match)) return;
  for (const [list, values] of Object.entries(match as Record<string, unknown>)) {
    if (!Array.isArray(values) || list === 'titlePatterns') continue;
    values.forEach((v, i) => {
      const id =
        list === 'cves'
          ? String(v).trim().toUpperCase()
          : list === 'cwes'
            ? `CWE-${String(v).replace(/^CWE-/i, '')}`
            : `${list}:${String(v)}`;
      if (!out.has(id)) out.set(id, where.at(`/match/${list}/${i}`));
    });
  }
}

/**
 * The library's CVSS rules: every entry has a vector that parses, of version 3.1 or 4.0, at most
 * one per version; a written base score must be the computed one (scores are computed, so they
 * cannot drift from the vector); a template above `info` has a 3.1 vector.
 */
/** Weakness-level CWEs: no category; a pillar only with `cweNote` saying that nothing narrower fits. */
function checkCwes(cwes: readonly number[], note: unknown, where: PositionLookup, problems: ProblemList): void {
  if (note !== undefined && (typeof note !== 'string' || note.trim() === ''))
    problems.error(where.at('/cweNote'), '`cweNote` is a sentence saying why no narrower CWE than the pillar fits');
  let pillar = false;
  cwes.forEach((cwe, i) => {
    const problem = cweProblem(cwe);
    if (problem === null) return;
    if (isPillar(cwe)) {
      pillar = true;
      if (typeof note === 'string') return;
    }
    problems.error(where.at(`/cwes/${i}`), isPillar(cwe) ? `${problem}, or say in \`cweNote\` why none fits` : problem);
  });
  if (note !== undefined && !pillar)
    problems.error(where.at('/cweNote'), '`cweNote` explains a pillar the template does not name; remove it');
}

/** `scoreFrom: scanner`: the template has no fixed score, the instance's (the scanner's) is used. */
function readScoreFrom(value: unknown, where: PositionLookup, problems: ProblemList): boolean {
  if (value === undefined) return false;
  if (value !== 'scanner') {
    problems.error(
      where.at('/scoreFrom'),
      `\`scoreFrom\` is \`scanner\` (the score depends on the instance), found ${JSON.stringify(value)}`,
    );
    return false;
  }
  return true;
}

/**
 * The severity is in the band of the newest vector's score (the rule REST writes apply), and the
 * 3.1 and 4.0 vectors agree on the metrics they share unless `cvssNote` says why they differ.
 */
function checkScoreCoherence(
  severity: string,
  cvss: readonly Cvss[],
  note: unknown,
  where: PositionLookup,
  listAt: SourcePosition,
  problems: ProblemList,
): void {
  const band = severityBandProblem(severity, cvss);
  if (band) problems.error(where.at('/severity'), band);
  if (note !== undefined && (typeof note !== 'string' || note.trim() === ''))
    problems.error(where.at('/cvssNote'), '`cvssNote` is a sentence saying why the CVSS 3.1 and 4.0 vectors differ');
  const differences = vectorDisagreements(cvss);
  if (differences.length > 0 && note === undefined)
    problems.error(
      listAt,
      `the CVSS 3.1 and 4.0 vectors describe different attacks: ${differences.join(', ')}; make them agree, ` +
        'or say why in `cvssNote`',
    );
  if (differences.length === 0 && typeof note === 'string')
    problems.error(where.at('/cvssNote'), '`cvssNote` explains a difference the vectors do not have; remove it');
}

function checkCvss(
  entries: Cvss[],
  severity: string,
  scoreFromScanner: boolean,
  where: PositionLookup,
  listAt: SourcePosition,
  problems: ProblemList,
): Cvss[] {
  const out: Cvss[] = [];
  const versions = new Set<string>();
  entries.forEach((entry, i) => {
    const at = where.at(`/cvss/${i}`);
    if (entry.vector === null) {
      problems.error(
        at,
        'every CVSS entry needs a vector; write the vector alone, such as `- ' +
          'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H`',
      );
      return;
    }
    const version = cvssVersionOfVector(entry.vector);
    if (version !== '3.1' && version !== '4.0') {
      problems.error(
        at,
        `library templates use CVSS 3.1 and 4.0 vectors; "${entry.vector}" is ` +
          `${version ? `CVSS ${version}` : 'not a CVSS vector'}`,
      );
      return;
    }
    if (entry.version !== version)
      problems.error(at, `\`version: ${entry.version}\` does not match the vector, which is CVSS ${version}`);
    let base: number;
    try {
      base = scoreCvssVector(entry.vector).base;
    } catch (err) {
      problems.error(at, (err as Error).message);
      return;
    }
    if (entry.baseScore !== null && entry.baseScore !== base)
      problems.error(
        at,
        `baseScore ${entry.baseScore} differs from the score the vector computes to ` +
          `(${base}); leave the score out, it is computed`,
      );
    if (entry.temporalScore !== undefined || entry.temporalVector !== undefined)
      problems.error(at, 'library templates carry base vectors only; remove temporalScore and temporalVector');
    if (versions.has(version))
      problems.error(at, `a second CVSS ${version} vector; a template has at most one vector per CVSS version`);
    versions.add(version);
    out.push({ version, vector: entry.vector, baseScore: base });
  });
  if (scoreFromScanner && out.length > 0)
    problems.error(listAt, '`scoreFrom: scanner` takes the score from the instance: leave `cvss` empty');
  if (severity !== 'info' && !versions.has('3.1') && !scoreFromScanner)
    problems.error(
      listAt,
      `a template of severity ${severity} needs a CVSS 3.1 vector in \`cvss\`, or \`scoreFrom: scanner\` ` +
        'when its score depends on the instance',
    );
  return out;
}
