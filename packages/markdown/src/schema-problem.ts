import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';

interface RawIssue {
  keyword: string;
  instancePath: string;
  message: string;
  params: Record<string, unknown>;
}

export interface SchemaProblem {
  /** JSON Pointer of the offending value. */
  path: string;
  message: string;
}

/** A compiled schema that answers the first problem of a value in words a person reads. */
export class SchemaCheck {
  private readonly compiled: ReturnType<typeof Compile>;

  constructor(schema: TSchema) {
    this.compiled = Compile(schema);
  }

  firstProblem(value: unknown): SchemaProblem | null {
    if (this.compiled.Check(value)) return null;
    const all = [...(this.compiled.Errors(value) as Iterable<RawIssue>)];
    // Why: a failed enum or union reports one line per branch; the summary alone says it best.
    const unionPaths = new Set(all.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
    for (const e of all) {
      if (e.keyword === 'boolean' || (e.keyword === 'const' && unionPaths.has(e.instancePath))) continue;
      if (e.keyword === 'required') {
        const name = ((e.params.requiredProperties as string[]) ?? [])[0] ?? '';
        return { path: `${e.instancePath}/${name}`, message: 'is required' };
      }
      if (e.keyword === 'additionalProperties') {
        const name = ((e.params.additionalProperties as string[]) ?? [])[0] ?? '';
        return { path: `${e.instancePath}/${name}`, message: 'is not a known field' };
      }
      if (e.keyword === 'enum')
        return {
          path: e.instancePath,
          message: `must be one of: ${((e.params.allowedValues as unknown[]) ?? []).join(', ')}`,
        };
      if (e.keyword === 'anyOf') return { path: e.instancePath, message: 'does not match any allowed value or shape' };
      if (e.keyword === 'uniqueItems') return { path: e.instancePath, message: 'must not list the same value twice' };
      return { path: e.instancePath, message: e.message };
    }
    return { path: '', message: 'is invalid' };
  }
}
