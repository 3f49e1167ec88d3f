import { BadRequestError } from './http-error.ts';

/**
 * Deepest nesting of objects and arrays a JSON body may have. The deepest body the API defines
 * (a report with its findings, their assets and CVSS) is under ten levels; the limit matches the
 * Markdown reader's YAML limit.
 */
export const MAX_JSON_DEPTH = 64;

const escapePointer = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * The JSON Pointer of the first object or array nested deeper than `max` levels (the body itself
 * is level 1), or null. Iterative, with a stack of its own: a body of 100,000 levels must never
 * reach a recursive walk (the U+0000 check, validation, hashing, logging), which would overflow
 * the call stack.
 */
export function tooDeepAt(value: unknown, max = MAX_JSON_DEPTH): string | null {
  if (value === null || typeof value !== 'object') return null;
  const stack: Visit[] = [{ node: value, depth: 1, key: '', parent: null }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    if (visit.depth > max) return pointerOf(visit);
    const entries = Array.isArray(visit.node)
      ? visit.node.map((v, i) => [String(i), v] as const)
      : Object.entries(visit.node);
    for (const [key, child] of entries)
      if (child !== null && typeof child === 'object')
        stack.push({ node: child, depth: visit.depth + 1, key, parent: visit });
  }
  return null;
}

/** A container on the walk's stack; its pointer is built from the parents only when it is too deep. */
interface Visit {
  node: object;
  depth: number;
  key: string;
  parent: Visit | null;
}

function pointerOf(visit: Visit): string {
  const keys: string[] = [];
  for (let v: Visit | null = visit; v?.parent; v = v.parent) keys.push(escapePointer(v.key));
  return keys.length === 0 ? '/' : `/${keys.reverse().join('/')}`;
}

/** Answers 400 `json_too_deep` naming where a body nests deeper than `MAX_JSON_DEPTH`. */
export function assertJsonDepth(value: unknown): void {
  const at = tooDeepAt(value);
  if (at === null) return;
  throw new BadRequestError(
    `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep (objects and arrays), at ${at}.`,
    'json_too_deep',
    [{ path: at, message: `is nested more than ${MAX_JSON_DEPTH} levels deep` }],
  );
}
