import type { TemplateProblem } from '../invalid-template-error.ts';
import { TEMPLATE_TAGS, type TagKind, type TagScope } from './template-data.ts';
import { paragraphAt, paragraphWith, type PartParagraphs } from './template-paragraphs.ts';

/** A tag as docxtemplater's inspection gives it. */
export interface TagPart {
  type: string;
  value: string;
  module?: string;
  inverted?: boolean;
  offset?: number | number[];
  subparsed?: TagPart[];
}

/** Parts Markdown and pictures may go into: their relationships live beside the main document. */
const RICH_PARTS = new Set(['word/document.xml']);

/**
 * Checks every tag of a part against the tag language (TEMPLATE_TAGS): unknown names, raw tags
 * on plain fields (which would put report text into the XML unescaped), plain tags on Markdown
 * fields, and loops over a list from an outer scope (`{#findings}` inside `{#findings}` would
 * multiply the document: the template language resolves names outwards).
 */
export function checkTemplateTags(parts: TagPart[], file: string, paragraphs: PartParagraphs): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  const where = (part: TagPart, shown: string) => {
    const offset = Array.isArray(part.offset) ? part.offset[0] : part.offset;
    return paragraphWith(paragraphs, `{${shown}}`) || (offset !== undefined ? paragraphAt(paragraphs, offset) : '');
  };
  const add = (part: TagPart, shown: string, message: string) =>
    problems.push({ tag: shown, paragraph: where(part, shown), message });
  const lookup = (scopes: TagScope[], name: string): { kind: TagKind; own: boolean; scope: TagScope } | null => {
    for (let i = scopes.length - 1; i >= 0; i--) {
      const kind = Object.hasOwn(scopes[i]!.tags, name) ? scopes[i]!.tags[name]! : undefined;
      if (kind !== undefined) return { kind, own: i === scopes.length - 1, scope: scopes[i]! };
    }
    return null;
  };
  const walk = (list: TagPart[], scopes: TagScope[], inStrings: boolean) => {
    for (const part of list) {
      if (part.type !== 'placeholder') continue;
      const name = part.value;
      const scopeName = scopes[scopes.length - 1]!.name;
      if (part.module === 'loop') {
        const shown = `${part.inverted ? '^' : '#'}${name}`;
        const found = lookup(scopes, name);
        if (found === null) {
          add(part, shown, `unknown tag "${name}" in the ${scopeName} scope: no such field`);
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
        if (found === null) add(part, shown, `unknown tag "${name}" in the ${scopeName} scope: no such field`);
        else if (found.kind !== 'rich')
          add(
            part,
            shown,
            `"${name}" is plain text: write {${name}}, not {@${name}} (raw tags are only for ` +
              `Markdown fields and pictures)`,
          );
        else if (!RICH_PARTS.has(file))
          add(part, shown, `{@${name}} can only be used in the document body, not in ${file}`);
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
      if (found === null) add(part, name, `unknown tag "${name}" in the ${scopeName} scope: no such field`);
      else if (found.kind === 'rich')
        add(
          part,
          name,
          `"${name}" is Markdown or a picture: write {@${name}} alone in its ` +
            `paragraph${name === 'image' || name === 'severityChart' ? '' : `, or {${name}Text} for plain text`}`,
        );
      else if (typeof found.kind === 'object' || found.kind === 'strings')
        add(part, name, `"${name}" is a list: loop over it with {#${name}}...{/${name}}`);
    }
  };
  walk(parts, [TEMPLATE_TAGS], false);
  return problems;
}
