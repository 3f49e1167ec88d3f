import path from 'node:path';
import { LibraryError } from '../library-error.ts';
import { LIBRARY_KINDS, type LibraryKind } from '../library-item.ts';
import { formatProblem } from '../library-problem.ts';
import { kindLabel, readLibrary, SHIPPED_TRANSLATIONS } from '../read-library.ts';
import type { LibraryCommand } from './library-command.ts';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `npm run library:check`: every problem as `library/file:line:column: message`, or a summary. */
export const checkCommand: LibraryCommand<{ library?: string; translations?: string }> = {
  name: 'check',
  summary: 'Validate every file of the library folder and the references between them',
  options: [
    { flags: '--library <dir>', description: 'library folder (default: library/ of the repository)' },
    {
      flags: '--translations <languages>',
      description:
        `comma-separated languages every finding template must be completely translated into ` +
        `(default: ${SHIPPED_TRANSLATIONS.join(',')}; "" for none)`,
    },
  ],
  async run(ctx, options) {
    const dir = options.library ? path.resolve(ctx.cwd, options.library) : path.join(ctx.repoRoot, 'library');
    const displayRoot = path.relative(ctx.cwd, dir).split(path.sep).join('/') || '.';
    const requiredTranslations =
      options.translations === undefined
        ? SHIPPED_TRANSLATIONS
        : options.translations
            .split(',')
            .map((l) => l.trim())
            .filter((l) => l !== '');
    const result = await readLibrary(dir, { requiredTranslations });
    for (const problem of result.problems) ctx.print(formatProblem(problem, displayRoot));
    const errors = result.problems.filter((p) => p.level === 'error').length;
    if (!result.library) {
      throw new LibraryError('invalid_library', `${plural(errors, 'problem')} in ${displayRoot}/.`, {
        hint: 'Fix each file at the line and column shown, then run `npm run library:check` again.',
      });
    }
    const byKind = (kind: LibraryKind) => result.library!.items.filter((i) => i.kind === kind).length;
    const parts = LIBRARY_KINDS.map((kind) => {
      const text = plural(byKind(kind), kindLabel(kind));
      return kind === 'finding-template' ? `${text} (${plural(result.counts.translations, 'translation')})` : text;
    });
    const warnings = result.problems.length - errors;
    ctx.print(
      `${displayRoot}/ is valid: ${parts.join(', ')}${warnings > 0 ? `; ${plural(warnings, 'warning')}` : ''}.`,
    );
    ctx.print(`Library version ${result.library.version}.`);
  },
};
