import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { ProblemList } from './library-problem.ts';
import type { YamlSource } from './yaml-source.ts';

interface RawIssue {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  message: string;
  params: Record<string, unknown>;
}

/** `/tabs/0/title` -> `tabs[0].title`: how a person names a field of a YAML file. */
export function fieldName(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    out += /^\d+$/.test(part) ? `[${part}]` : out === '' ? part : `.${part}`;
  }
  return out === '' ? 'the file' : out;
}

/** A compiled TypeBox schema whose failures are reported as positioned, readable problems. */
export class SchemaCheck {
  private readonly compiled: ReturnType<typeof Compile>;

  constructor(schema: TSchema) {
    this.compiled = Compile(schema);
  }

  /** Reports every problem of `value` against the schema; true when there were none. */
  report(value: unknown, source: YamlSource, problems: ProblemList, pointerPrefix = ''): boolean {
    if (this.compiled.Check(value)) return true;
    const issues = [...(this.compiled.Errors(value) as Iterable<RawIssue>)];
    // Why: a failed union reports one issue per branch at the same place; say them as one.
    const unionBranches = new Map<string, string[]>();
    const reported = new Set<string>();
    for (const issue of issues) {
      if (/\/anyOf\/\d+$/.test(issue.schemaPath)) {
        const list = unionBranches.get(issue.instancePath) ?? [];
        list.push(
          issue.message.replace(/^must be /, '').replace(/^must match pattern .*/, 'text of the required form'),
        );
        unionBranches.set(issue.instancePath, list);
      }
    }
    for (const issue of issues) {
      const pointer = `${pointerPrefix}${issue.instancePath}`;
      if (issue.keyword === 'additionalProperties' || issue.keyword === 'anyOf') continue;
      if (issue.keyword === 'boolean') {
        const key = issue.instancePath.slice(issue.instancePath.lastIndexOf('/') + 1);
        const parent = issue.instancePath.slice(0, issue.instancePath.lastIndexOf('/'));
        this.once(reported, pointer, () =>
          problems.error(
            source.keyAt(pointer),
            `unknown key \`${key}\`${parent ? ` in ${fieldName(`${pointerPrefix}${parent}`)}` : ''}`,
          ),
        );
        continue;
      }
      const branches = unionBranches.get(issue.instancePath);
      if (branches && /\/anyOf\/\d+$/.test(issue.schemaPath)) {
        this.once(reported, pointer, () =>
          problems.error(source.at(pointer), `${fieldName(pointer)} must be ${[...new Set(branches)].join(' or ')}`),
        );
        continue;
      }
      if (issue.keyword === 'required') {
        const names = (issue.params.requiredProperties as string[] | undefined) ?? [];
        for (const name of names) {
          const child = `${pointer}/${name}`;
          this.once(reported, child, () => problems.error(source.at(pointer), `${fieldName(child)} is required`));
        }
        continue;
      }
      this.once(reported, pointer, () =>
        problems.error(source.at(pointer), `${fieldName(pointer)} ${describeIssue(issue)}`),
      );
    }
    if (reported.size === 0) problems.error(source.at(pointerPrefix), `${fieldName(pointerPrefix)} is invalid`);
    return false;
  }

  private once(reported: Set<string>, pointer: string, report: () => void): void {
    if (reported.has(pointer)) return;
    reported.add(pointer);
    report();
  }
}

/** What a value of each pattern the library schemas use looks like, for messages. */
const PATTERN_FORMS: Record<string, string> = {
  '^#[0-9a-fA-F]{6}$': 'a colour written #RRGGBB, such as #1F3A5F',
  '^[a-z0-9]+(-[a-z0-9]+)*$': 'kebab-case (lower-case letters and digits separated by single hyphens)',
  '^[A-Za-z0-9][A-Za-z0-9._-]*\\.docx$': 'the name of a .docx file in report-styles/ (no folders)',
  '^[a-z]{2}(-[A-Z]{2})?$': 'a language code such as en, de or de-DE',
};

function describeIssue(issue: RawIssue): string {
  switch (issue.keyword) {
    case 'pattern': {
      const form = PATTERN_FORMS[String(issue.params.pattern)];
      return form ? `must be ${form}` : issue.message;
    }
    case 'enum':
      return `must be one of ${((issue.params.allowedValues as unknown[]) ?? []).join(', ')}`;
    case 'uniqueItems':
      return 'must not list the same value twice';
    case 'minItems':
      return `must list at least ${String(issue.params.limit)} item${issue.params.limit === 1 ? '' : 's'}`;
    case 'minLength':
      return issue.params.limit === 1
        ? 'must not be empty'
        : `must be at least ${String(issue.params.limit)} characters long`;
    case 'maxLength':
      return `must be at most ${String(issue.params.limit)} characters long`;
    case 'maxItems':
      return `must list at most ${String(issue.params.limit)} items`;
    default:
      return issue.message;
  }
}
