import { OPERATION_RETRIES } from './generated/operations.ts';

/**
 * What the service's document says of resending a request after its answer was lost:
 * - `safe`: send it again as it is (reads, deletes into the trash, replacing uploads);
 * - `keyed`: send it again with the same `Idempotency-Key` (creates, imports, restores);
 * - `unsafe`: never resend it (a permanent delete, a PATCH): the first may have been carried out.
 */
export type RetrySafety = 'safe' | 'keyed' | 'unsafe';

interface Template {
  segments: readonly string[];
  /** Segments that are not `{parameters}`: the most specific template wins (`/reports/import-markdown` over `/reports/{id}`). */
  literals: number;
  retry: RetrySafety;
}

const BY_METHOD = new Map<string, Template[]>();
for (const [operation, retry] of Object.entries(OPERATION_RETRIES)) {
  const [method = '', path = ''] = operation.split(' ');
  const segments = path.split('/');
  const templates = BY_METHOD.get(method) ?? [];
  templates.push({ segments, literals: segments.filter((s) => !s.startsWith('{')).length, retry });
  BY_METHOD.set(method, templates);
}
for (const templates of BY_METHOD.values()) templates.sort((a, b) => b.literals - a.literals);

function matches(template: Template, segments: readonly string[]): boolean {
  return (
    template.segments.length === segments.length &&
    template.segments.every((s, i) => s.startsWith('{') || s === segments[i])
  );
}

/** The retry safety of `METHOD /path` by the operation it calls; null for a path the document does not have. */
export function retrySafetyOf(method: string, pathname: string): RetrySafety | null {
  const segments = pathname.split('/');
  const templates = BY_METHOD.get(method === 'HEAD' ? 'GET' : method) ?? [];
  return templates.find((t) => matches(t, segments))?.retry ?? null;
}
