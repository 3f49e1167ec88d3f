import { InvalidTemplateError, type TemplateProblem } from '../invalid-template-error.ts';
import { readZip, listZipEntries, ZipFormatError } from '../zip-archive.ts';

/**
 * Limits for an uploaded Word template, checked before anything in it is parsed. A firm's
 * template with its logo and fonts is well under a megabyte; these leave ample room.
 */
export const TEMPLATE_LIMITS = {
  /** The .docx file itself. */
  maxBytes: 10 * 1024 * 1024,
  maxEntries: 500,
  /** One part, unpacked. */
  maxEntryBytes: 25 * 1024 * 1024,
  /** All parts, unpacked (a zip bomb stops here, before inflating). */
  maxTotalBytes: 60 * 1024 * 1024,
} as const;

const MACRO_CONTENT_TYPES = /macroEnabled|vbaProject|vbaData|ms-office\.activeX/i;

function refuse(message: string, problems: string[] = [message]): never {
  const details: TemplateProblem[] = problems.map((m) => ({ tag: null, paragraph: '', message: m }));
  throw new InvalidTemplateError(message, details);
}

/**
 * The parts of an uploaded template, after every safety check: size, ZIP structure (entry count,
 * unpacked sizes, names), no DTDs or entities in any XML part, no macros, no external
 * relationships other than hyperlinks, and a main document part.
 */
export function readTemplatePackage(template: Uint8Array): Map<string, Uint8Array> {
  if (template.byteLength > TEMPLATE_LIMITS.maxBytes)
    refuse(
      `the template is ${(template.byteLength / 1048576).toFixed(1)} MB; at most ` +
        `${TEMPLATE_LIMITS.maxBytes / 1048576} MB are accepted`,
    );
  let files: Map<string, Uint8Array>;
  try {
    const names = listZipEntries(template, TEMPLATE_LIMITS).map((e) => e.name);
    const bad = names.filter(
      (n) =>
        n.startsWith('/') ||
        n.startsWith('\\') ||
        /^[a-zA-Z]:/.test(n) ||
        n.split(/[\\/]/).includes('..') ||
        n.includes('\0'),
    );
    if (bad.length > 0)
      refuse(
        'the template holds entries with absolute or parent paths',
        bad.map((n) => `entry "${n}" has an absolute path or ".."`),
      );
    files = readZip(template, TEMPLATE_LIMITS);
  } catch (err) {
    if (err instanceof ZipFormatError) refuse(`the template is not a usable .docx file: ${err.message}`);
    throw err;
  }
  if (!files.has('word/document.xml')) refuse('the template has no word/document.xml: it is not a Word document');
  if (!files.has('[Content_Types].xml')) refuse('the template has no [Content_Types].xml: it is not a Word document');
  const problems: string[] = [];
  for (const [name, data] of files) {
    if (/vbaProject\.bin$|vbaData\.xml$/i.test(name) || (/\.(bin)$/i.test(name) && /activeX|vba/i.test(name)))
      problems.push(`entry "${name}" is macro or ActiveX content; save the template as .docx, not .docm`);
    if (!/\.(xml|rels)$/i.test(name)) continue;
    // Why byte checks: a UTF-16 part would hide "<!DOCTYPE" from a UTF-8 search.
    if (
      data.length >= 2 &&
      ((data[0] === 0xfe && data[1] === 0xff) || (data[0] === 0xff && data[1] === 0xfe) || data.includes(0))
    ) {
      problems.push(`part "${name}" is not UTF-8 XML`);
      continue;
    }
    const text = new TextDecoder().decode(data);
    if (/<!DOCTYPE|<!ENTITY/i.test(text))
      problems.push(`part "${name}" declares a DOCTYPE or entities, which are never expanded; remove them`);
    if (name === '[Content_Types].xml' && MACRO_CONTENT_TYPES.test(text))
      problems.push('the template is macro-enabled (.docm content types); save it as a plain .docx');
    if (name.endsWith('.rels')) problems.push(...relationshipProblems(name, text));
  }
  if (problems.length > 0) refuse(`the template is not safe to use: ${problems[0]}`, problems);
  return files;
}

const WEB_LINK = /^(https?:\/\/|mailto:)/i;

/**
 * What is wrong with the relationships of one `.rels` part: an external target other than a web
 * or mail link (remote templates, linked images, OLE, `file:` links), or an internal target that
 * leaves the package (`../../../../etc/passwd`) or is not a part name at all (a URL, a UNC path).
 * Word calls a document with such a target corrupt, and nothing in it may reach outside the file.
 */
export function relationshipProblems(relsName: string, xml: string): string[] {
  const problems: string[] = [];
  // `word/_rels/document.xml.rels` describes `word/document.xml`: its targets are relative to `word/`.
  const base = relsName.replace(/_rels\/[^/]*\.rels$/, '');
  for (const m of xml.matchAll(/<Relationship\b[^>]*>/g)) {
    const rel = m[0];
    const target = decodeEntities(/\bTarget\s*=\s*"([^"]*)"/.exec(rel)?.[1] ?? '');
    const type = /\bType\s*=\s*"[^"]*\/([^"/]+)"/.exec(rel)?.[1] ?? 'unknown';
    const shown = target.length > 100 ? `${target.slice(0, 97)}...` : target;
    if (/\bTargetMode\s*=\s*"External"/i.test(rel)) {
      if (type !== 'hyperlink')
        problems.push(`part "${relsName}" links an external ${type} (${shown}); a template may link web pages only`);
      else if (!WEB_LINK.test(target.trim()) && !target.startsWith('#'))
        problems.push(
          `part "${relsName}" has a hyperlink to "${shown}"; only http, https and mailto links are allowed`,
        );
      continue;
    }
    let path: string;
    try {
      path = decodeURIComponent(target);
    } catch {
      path = target;
    }
    if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(path) || path.startsWith('//') || path.includes('\\')) {
      problems.push(`part "${relsName}" points its ${type} at "${shown}", which is not a part of the document`);
      continue;
    }
    const segments: string[] = [];
    let escapes = false;
    for (const segment of (path.startsWith('/') ? path.slice(1) : base + path).split('/')) {
      if (segment === '..') {
        if (segments.length === 0) escapes = true;
        else segments.pop();
      } else if (segment !== '.' && segment !== '') segments.push(segment);
    }
    if (escapes) problems.push(`part "${relsName}" points its ${type} at "${shown}", outside the document`);
  }
  return problems;
}

function decodeEntities(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|apos);/g,
    (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[e]!,
  );
}
