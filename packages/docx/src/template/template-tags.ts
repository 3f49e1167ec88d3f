import type { TemplateProblem } from '../invalid-template-error.ts';
import type { TagKind, TagScope } from './tag-set.ts';
import { TEMPLATE_TAGS } from './template-data.ts';
import { problemAt, type TagPart, type TemplateLocation } from './template-scan.ts';

/** Parts Markdown and pictures may go into: their relationships live beside the main document. */
const RICH_PARTS = new Set(['word/document.xml']);

/** Edit distance with swapped neighbours counting as one edit (`titel` is one from `title`), for "did you mean". */
function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 99;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

const squash = (name: string) => name.toLowerCase().replace(/[\s_\-.]/g, '');

/**
 * The known name closest to an unknown one: the same but for case, spaces, `_` or `-`
 * (`cvss_score`, ` title `), a plural or singular (`finding`), or one or two letters off.
 */
export function nearestName(name: string, known: Iterable<string>): string | null {
  const wanted = squash(name);
  if (wanted === '') return null;
  let best: string | null = null;
  // One edit for short names, two from eight letters on (`findngs`, `remidiation`).
  let bestDistance = wanted.length >= 8 ? 2 : 1;
  for (const candidate of known) {
    const c = squash(candidate);
    if (c === wanted) return candidate;
    const d = distance(wanted, c);
    if (d < bestDistance || (d === bestDistance && best === null)) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * Checks every tag of a part against the tag language (TEMPLATE_TAGS): unknown names (with the
 * nearest known one), raw tags on plain fields (which would put report text into the XML
 * unescaped), plain tags on Markdown fields, and loops over a list from an outer scope
 * (`{#findings}` inside `{#findings}` would multiply the document: names resolve outwards).
 * `unknown` receives each unknown name instead of a problem, when the caller sums them up.
 */
export function checkTemplateTags(
  parts: TagPart[],
  file: string,
  locate: (offset: number) => TemplateLocation,
  unknown?: (name: string, shown: string, location: TemplateLocation) => void,
): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  const where = (part: TagPart) => locate((Array.isArray(part.offset) ? part.offset[0] : part.offset) ?? 0);
  const add = (part: TagPart, shown: string, message: string) => problems.push(problemAt(shown, where(part), message));
  const lookup = (scopes: TagScope[], name: string): { kind: TagKind; own: boolean; scope: TagScope } | null => {
    for (let i = scopes.length - 1; i >= 0; i--) {
      const kind = Object.hasOwn(scopes[i]!.tags, name) ? scopes[i]!.tags[name]! : undefined;
      if (kind !== undefined) return { kind, own: i === scopes.length - 1, scope: scopes[i]! };
    }
    return null;
  };
  const notFound = (part: TagPart, shown: string, name: string, scopes: TagScope[], prefix: string) => {
    if (unknown) return unknown(name, shown, where(part));
    const scopeName = scopes[scopes.length - 1]!.name;
    const near = nearestName(
      name,
      scopes.flatMap((s) => Object.keys(s.tags)),
    );
    const elsewhere = near === null ? nearestName(name, allNames()) : null;
    add(
      part,
      shown,
      `unknown tag "${name}" in the ${scopeName} scope: no such field` +
        (near !== null
          ? `; did you mean {${prefix}${near}}?`
          : elsewhere !== null
            ? `; {${prefix}${elsewhere}} exists, but inside another loop`
            : ''),
    );
  };
  const walk = (list: TagPart[], scopes: TagScope[], inStrings: boolean) => {
    for (const part of list) {
      if (part.type !== 'placeholder') continue;
      const name = part.value;
      const scopeName = scopes[scopes.length - 1]!.name;
      if (part.module === 'loop') {
        const prefix = part.inverted ? '^' : '#';
        const shown = `${prefix}${name}`;
        const found = lookup(scopes, name);
        if (found === null) {
          notFound(part, shown, name, scopes, prefix);
          walk(part.subparsed ?? [], scopes, inStrings);
        } else if (typeof found.kind === 'object') {
          if (found.own) walk(part.subparsed ?? [], part.inverted ? scopes : [...scopes, found.kind.list], false);
          else if (part.inverted) walk(part.subparsed ?? [], scopes, inStrings);
          else
            add(
              part,
              shown,
              `the loop over "${name}" belongs to the ${found.scope.name} level and cannot run ` +
                `inside {#${scopeName}}; close {/${scopeName}} first`,
            );
        } else if (found.kind === 'strings') {
          if (!found.own && !part.inverted)
            add(
              part,
              shown,
              `the loop over "${name}" belongs to the ${found.scope.name} level and cannot run inside {#${scopeName}}`,
            );
          else walk(part.subparsed ?? [], scopes, !part.inverted);
        } else {
          walk(part.subparsed ?? [], scopes, inStrings);
        }
        continue;
      }
      if (part.module === 'rawxml') {
        const shown = `@${name}`;
        const found = lookup(scopes, name);
        if (found === null) notFound(part, shown, name, scopes, '@');
        else if (found.kind !== 'rich')
          add(
            part,
            shown,
            `"${name}" is plain text: write {${name}}, not {@${name}} (raw tags are only for ` +
              `Markdown fields and pictures)`,
          );
        else if (!RICH_PARTS.has(file))
          add(part, shown, `{@${name}} can only be used in the document body, not in a header or footer`);
        continue;
      }
      if (part.module !== undefined && part.module !== 'placeholder') {
        add(part, name, `tag kind "${part.module}" is not part of the tag language`);
        continue;
      }
      if (name === '.') {
        if (!inStrings)
          add(
            part,
            '.',
            '{.} shows the current item only inside a loop over a list of values ({#cves}, {#cwes}, {#references})',
          );
        continue;
      }
      const found = lookup(scopes, name);
      if (found === null) notFound(part, name, name, scopes, '');
      else if (found.kind === 'rich')
        add(
          part,
          name,
          `"${name}" is Markdown or a picture: write {@${name}} alone in its ` +
            `paragraph${name === 'image' || name.endsWith('Chart') ? '' : `, or {${name}Text} for plain text`}`,
        );
      else if (typeof found.kind === 'object' || found.kind === 'strings')
        add(part, name, `"${name}" is a list: loop over it with {#${name}}...{/${name}}`);
    }
  };
  walk(parts, [TEMPLATE_TAGS], false);
  return problems;
}

let names: string[] | null = null;

/** Every name of the tag language, in any scope. */
function allNames(): string[] {
  if (names) return names;
  const out = new Set<string>();
  const visit = (scope: TagScope) => {
    for (const [name, kind] of Object.entries(scope.tags)) {
      out.add(name);
      if (typeof kind === 'object') visit(kind.list);
    }
  };
  visit(TEMPLATE_TAGS);
  names = [...out];
  return names;
}
