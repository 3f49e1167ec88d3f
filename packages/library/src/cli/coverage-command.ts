import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseScan, SCAN_FORMATS, type CompleteFinding, type ScanFormat } from '@service/scanners';
import { LibraryError } from '../library-error.ts';
import { itemsOfKind } from '../library-item.ts';
import { buildTemplateMatchIndex, matchableTemplatesOfLibrary } from '../match-templates.ts';
import { loadLibrary } from '../read-library.ts';
import { measureCoverage, percentOf, type CoverageReport } from '../scan-coverage.ts';
import type { LibraryCommand } from './library-command.ts';

/** Scanner exports larger than this are skipped: the fixtures are a few MB. */
const MAX_SCAN_BYTES = 256 * 1024 * 1024;

/**
 * `npm run library:coverage`: parses every scanner export under the fixtures folder and prints,
 * per scanner and overall, the share of distinct non-informational findings a template matches,
 * and the titles nothing matches yet.
 */
export const coverageCommand: LibraryCommand<{ fixtures?: string; library?: string; min?: string; matches?: boolean }> =
  {
    name: 'coverage',
    summary: 'Measure which scanner findings of the fixture scans the finding templates match',
    options: [
      {
        flags: '--fixtures <dir>',
        description:
          'folder with nessus/, burp/, nmap/, nuclei/ subfolders (default: ' +
          '../shared/fixtures/scans from the repository root)',
      },
      { flags: '--library <dir>', description: 'library folder (default: library/ of the repository)' },
      { flags: '--min <percent>', description: 'fail (exit 1) when overall coverage is below this percentage' },
      { flags: '--matches', description: 'also list every match: finding, template, how and how sure' },
    ],
    async run(ctx, options) {
      const fixtures = options.fixtures
        ? path.resolve(ctx.cwd, options.fixtures)
        : path.resolve(ctx.repoRoot, '../shared/fixtures/scans');
      const library = await loadLibrary(
        options.library ? path.resolve(ctx.cwd, options.library) : path.join(ctx.repoRoot, 'library'),
      );
      const findings: CompleteFinding[] = [];
      let files = 0;
      for (const format of SCAN_FORMATS) {
        const folder = path.join(fixtures, format);
        const names = await readdir(folder).catch(() => [] as string[]);
        for (const name of names.sort()) {
          const file = path.join(folder, name);
          const info = await stat(file);
          if (!info.isFile() || info.size > MAX_SCAN_BYTES) continue;
          try {
            findings.push(...parseScan(await readFile(file), { format: format as ScanFormat }).findings);
            files++;
          } catch (err) {
            ctx.print(`skipped ${path.relative(ctx.cwd, file)}: ${(err as Error).message}`);
          }
        }
      }
      if (files === 0)
        throw new LibraryError('invalid_argument', `No scanner exports found under ${fixtures}.`, {
          hint: 'Pass --fixtures <dir> with nessus/, burp/, nmap/ and nuclei/ subfolders.',
        });

      const index = buildTemplateMatchIndex(matchableTemplatesOfLibrary(library));
      const report = measureCoverage(findings, index);
      const informational = measureCoverage(findings, index, { informational: true });
      const templates = itemsOfKind(library, 'finding-template').length;
      const where = `${path.relative(ctx.cwd, fixtures) || '.'} (${files} files)`;
      printCoverage(
        ctx,
        `Coverage of distinct non-informational findings in ${where} by ${templates} finding templates (library ${library.version}):`,
        report,
        options.matches === true,
      );
      printCoverage(
        ctx,
        `Coverage of distinct informational findings in ${where}:`,
        informational,
        options.matches === true,
      );
      if (options.min !== undefined) {
        const min = Number(options.min);
        if (!Number.isFinite(min))
          throw new LibraryError('invalid_argument', `--min must be a percentage, found "${options.min}".`);
        if (report.percent < min)
          throw new LibraryError(
            'invalid_library',
            `Coverage ${report.percent.toFixed(1)}% is below the required ${min}%.`,
            { hint: 'Add match rules or templates for the unmatched findings listed above.' },
          );
      }
    },
  };

/** One coverage report: the table per scanner, the suspected wrong matches, optionally every match, the unmatched. */
function printCoverage(
  ctx: { print(line: string): void },
  heading: string,
  report: CoverageReport,
  all: boolean,
): void {
  ctx.print(heading);
  ctx.print(
    `  ${'scanner'.padEnd(8)} ${'findings'.padStart(9)} ${''.padStart(6)}  ${'rules'.padStart(7)} ${'matched'.padStart(7)} ` +
      `${'suspect'.padStart(7)}  how findings matched`,
  );
  const row = (
    name: string,
    matched: number,
    total: number,
    rules: { total: number; matched: number; suspect: number },
    how: string,
  ) =>
    ctx.print(
      `  ${name.padEnd(8)} ${`${matched}/${total}`.padStart(9)} ${`${percentOf(matched, total).toFixed(1)}%`.padStart(6)}  ` +
        `${`${rules.matched}/${rules.total}`.padStart(7)} ${`${percentOf(rules.matched, rules.total).toFixed(1)}%`.padStart(7)} ` +
        `${`${percentOf(rules.suspect, rules.total).toFixed(1)}%`.padStart(7)}  ${how}`,
    );
  for (const [scanner, s] of Object.entries(report.byScanner).sort()) {
    const how = Object.entries(s.byMatch)
      .filter(([, n]) => n > 0)
      .map(([kind, n]) => `${kind} ${n}`)
      .join(', ');
    row(scanner, s.matched, s.total, s.rules, how);
  }
  row('overall', report.matched, report.total, report.rules, '');
  ctx.print(
    `By distinct scanner rule: ${report.rules.matched} of ${report.rules.total} matched ` +
      `(${report.rules.percent.toFixed(1)}%), ${report.rules.suspect} suspected wrong ` +
      `(${report.rules.suspectPercent.toFixed(1)}%).`,
  );
  const suspects = report.matches.filter((m) => m.suspicions.length > 0);
  if (suspects.length > 0) {
    ctx.print(`Suspected wrong matches (${suspects.length}):`);
    for (const m of suspects)
      ctx.print(
        `  ${`${m.scanner}:${m.rule}`.padEnd(34)} ${m.severity.padEnd(8)} ${m.title}\n` +
          `      -> ${m.templateKey} (${m.templateSeverity ?? '?'}) by ${m.matchedOn} ${m.detail}: ${m.suspicions.join('; ')}`,
      );
  }
  if (all) {
    ctx.print(`Matches (${report.matches.length}):`);
    for (const m of report.matches)
      ctx.print(
        `  ${`${m.scanner}:${m.rule}`.padEnd(34)} ${m.severity.padEnd(8)} ${m.title}\n` +
          `      -> ${m.templateKey} (${m.templateSeverity ?? '?'}) by ${m.matchedOn}, ${m.confidence}: ${m.detail}`,
      );
  }
  const unmatched = Object.entries(report.byScanner).flatMap(([scanner, s]) =>
    s.unmatched.map((u) => ({ scanner, ...u })),
  );
  if (unmatched.length > 0) {
    ctx.print(`Unmatched (${unmatched.length}):`);
    for (const u of unmatched)
      ctx.print(`  ${`${u.scanner}:${u.ruleId}`.padEnd(34)} ${u.severity.padEnd(8)} ${u.title}`);
  }
}
