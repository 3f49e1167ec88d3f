import type { EvidenceImage } from '../evidence-image-shape.ts';
import { escapeXml } from '../xml-text.ts';

const REL = {
  hyperlink: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink',
  image: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/image',
  numbering: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering',
} as const;
const NUMBERING_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml';
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

const IMAGE_TYPES = {
  png: { ext: 'png', mime: 'image/png' },
  jpg: { ext: 'jpeg', mime: 'image/jpeg' },
  gif: { ext: 'gif', mime: 'image/gif' },
} as const;

const BULLETS = ['•', '◦', '▪'];
const NUMBER_FORMATS = ['decimal', 'lowerLetter', 'lowerRoman'];

/**
 * What written body XML needs beside it in the package: relationships (hyperlinks, images), the
 * image files, and list numbering. Collected while writing, then added to the document's parts in
 * one step (`applyTo`), for our layout's package and for a customer's template alike.
 */
export class PackageAdditions {
  private readonly rels: string[] = [];
  private readonly hyperlinks = new Map<string, string>();
  private readonly images = new Map<
    string,
    { rId: string; path: string; bytes: Uint8Array; ext: string; mime: string }
  >();
  private readonly nums: string[] = [];
  private bulletNumId: number | null = null;
  private nextRel = 1;
  private nextNumId: number;
  private readonly abstractBase: number;
  private nextDrawing = 10_000;
  private nextBookmark = 100_000;
  /** Whether any numbering was asked for (so the numbering part must exist). */
  private usedNumbering = false;

  /** `existingNumbering` is the document's numbering.xml, if any, so new ids do not collide with its own. */
  constructor(existingNumbering: string | null) {
    const ids = (re: RegExp) => [...(existingNumbering ?? '').matchAll(re)].map((m) => Number(m[1]));
    this.nextNumId = Math.max(0, ...ids(/<w:num\b[^>]*\bw:numId="(\d+)"/g)) + 1;
    this.abstractBase = Math.max(0, ...ids(/<w:abstractNum\b[^>]*\bw:abstractNumId="(\d+)"/g)) + 1;
  }

  private rel(type: string, target: string, external: boolean): string {
    const id = `rIdSvc${this.nextRel++}`;
    this.rels.push(
      `<Relationship Id="${id}" Type="${type}" ` +
        `Target="${escapeXml(target)}"${external ? ' TargetMode="External"' : ''}/>`,
    );
    return id;
  }

  hyperlink(url: string): string {
    let id = this.hyperlinks.get(url);
    if (!id) {
      id = this.rel(REL.hyperlink, url, true);
      this.hyperlinks.set(url, id);
    }
    return id;
  }

  /** The relationship of an image, added once per distinct key (its SHA-256). */
  image(key: string, img: EvidenceImage): string {
    const known = this.images.get(key);
    if (known) return known.rId;
    const { ext, mime } = IMAGE_TYPES[img.type];
    // Why the number: keys can share their first characters (the parts of one tall image do).
    const path = `media/svc-${this.images.size + 1}-${key.replace(/[^0-9a-zA-Z]/g, '').slice(0, 16)}.${ext}`;
    const rId = this.rel(REL.image, path, false);
    this.images.set(key, { rId, path, bytes: img.bytes, ext, mime });
    return rId;
  }

  drawingId(): number {
    return this.nextDrawing++;
  }

  bookmarkId(): number {
    return this.nextBookmark++;
  }

  /** The numbering of a new list: bullets share one; each numbered list gets its own, so it restarts at `start`. */
  list(ordered: boolean, start: number): number {
    this.usedNumbering = true;
    if (!ordered) {
      if (this.bulletNumId === null) {
        this.bulletNumId = this.nextNumId++;
        this.nums.push(`<w:num w:numId="${this.bulletNumId}"><w:abstractNumId w:val="${this.abstractBase}"/></w:num>`);
      }
      return this.bulletNumId;
    }
    const id = this.nextNumId++;
    const overrides = Array.from(
      { length: 9 },
      (_, l) => `<w:lvlOverride w:ilvl="${l}"><w:startOverride w:val="${l === 0 ? start : 1}"/></w:lvlOverride>`,
    ).join('');
    this.nums.push(`<w:num w:numId="${id}"><w:abstractNumId w:val="${this.abstractBase + 1}"/>${overrides}</w:num>`);
    return id;
  }

  private abstractNums(): string {
    const level = (l: number, fmt: string, text: string) =>
      `<w:lvl w:ilvl="${l}"><w:start w:val="1"/><w:numFmt w:val="${fmt}"/><w:lvlText ` +
      `w:val="${text}"/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="${397 * (l + 1)}" ` +
      `w:hanging="284"/></w:pPr></w:lvl>`;
    const bullets = Array.from({ length: 9 }, (_, l) => level(l, 'bullet', BULLETS[l % 3]!)).join('');
    const numbers = Array.from({ length: 9 }, (_, l) => level(l, NUMBER_FORMATS[l % 3]!, `%${l + 1}.`)).join('');
    return (
      `<w:abstractNum w:abstractNumId="${this.abstractBase}"><w:multiLevelType ` +
      `w:val="hybridMultilevel"/>${bullets}</w:abstractNum><w:abstractNum ` +
      `w:abstractNumId="${this.abstractBase + 1}"><w:multiLevelType ` +
      `w:val="hybridMultilevel"/>${numbers}</w:abstractNum>`
    );
  }

  /**
   * Adds everything collected to a package's parts (`files`, by path). `documentPart` is the part
   * the body XML went into (its relationships file gets the new relationships).
   */
  applyTo(files: Map<string, Uint8Array | string>, documentPart = 'word/document.xml'): void {
    const text = (path: string) => {
      const v = files.get(path);
      return v === undefined ? null : typeof v === 'string' ? v : new TextDecoder().decode(v);
    };
    const dir = documentPart.slice(0, documentPart.lastIndexOf('/') + 1);
    const relsPath = `${dir}_rels/${documentPart.slice(dir.length)}.rels`;
    let types = text('[Content_Types].xml') ?? '';
    const rels = [...this.rels];

    if (this.usedNumbering) {
      let numbering = text(`${dir}numbering.xml`);
      if (numbering === null) {
        numbering = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:numbering xmlns:w="${W}"></w:numbering>`;
        rels.push(`<Relationship Id="rIdSvcNumbering" Type="${REL.numbering}" Target="numbering.xml"/>`);
        if (!types.includes(`PartName="/${dir}numbering.xml"`))
          types = types.replace(
            '</Types>',
            `<Override PartName="/${dir}numbering.xml" ContentType="${NUMBERING_CONTENT_TYPE}"/></Types>`,
          );
      }
      // Why the split: the schema wants every abstractNum before the first num.
      const firstNum = numbering.search(/<w:num\b/);
      const abstracts = this.abstractNums();
      numbering =
        firstNum >= 0
          ? numbering.slice(0, firstNum) + abstracts + numbering.slice(firstNum)
          : numbering.replace('</w:numbering>', `${abstracts}</w:numbering>`);
      numbering = numbering.replace(/<\/w:numbering>\s*$/, `${this.nums.join('')}</w:numbering>`);
      if (!numbering.includes('</w:numbering>'))
        numbering = numbering.replace(
          /<w:numbering([^>]*)\/>/,
          `<w:numbering$1>${abstracts}${this.nums.join('')}</w:numbering>`,
        );
      files.set(`${dir}numbering.xml`, numbering);
    }

    for (const img of this.images.values()) {
      files.set(`${dir}${img.path}`, img.bytes);
      if (!new RegExp(`<Default[^>]*Extension="${img.ext}"`, 'i').test(types))
        types = types.replace('</Types>', `<Default Extension="${img.ext}" ContentType="${img.mime}"/></Types>`);
    }
    if (rels.length > 0) {
      const existing =
        text(relsPath) ??
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships ' +
          'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';
      files.set(
        relsPath,
        existing.includes('</Relationships>')
          ? existing.replace('</Relationships>', `${rels.join('')}</Relationships>`)
          : existing.replace(/<Relationships([^>]*)\/>/, `<Relationships$1>${rels.join('')}</Relationships>`),
      );
    }
    files.set('[Content_Types].xml', types);
  }
}
