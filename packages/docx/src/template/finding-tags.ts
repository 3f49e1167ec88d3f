import {
  describeFindingSource,
  FINDING_MARKDOWN_FIELDS,
  FINDING,
  type AffectedAsset,
  type Cvss,
  type FindingFieldName,
  type FindingFieldShape,
  type FindingMarkdownFieldName,
  type FindingSource,
  type ReportDocumentFinding,
  type Severity,
  type FindingStatus,
  type EvidenceRef,
} from '@service/report-model';
import type { AssetEvidenceView, FindingEvidence } from '../evidence-plan.ts';
import { assetLocation, cvssRatings, primaryCvss } from '../report-labels.ts';
import { once, onceEach, oncePer } from './lazy-data.ts';
import { retestFindingData, retestFindingTags } from './retest-template-data.ts';
import type { RichText } from './rich-text.ts';
import { listTag, richTag, stringsTag, TagSet, textTag, type TagDefinitions } from './tag-set.ts';
import type { TemplateRender } from './template-render.ts';

/** One finding as its tags read it. */
export interface FindingItem {
  render: TemplateRender;
  f: ReportDocumentFinding;
  /** Its number in the report, from 1. */
  number: number;
  /** A Markdown field of the finding as paragraphs and text (built on first use, once). */
  markdown(name: FindingMarkdownFieldName): RichText;
  /** Images the finding's Markdown draws where the template shows it: the evidence list leaves them out. */
  shown(): Set<string>;
  /** What the finding shows of its assets' evidence. */
  evidence(): FindingEvidence;
  views(): Map<AffectedAsset, AssetEvidenceView>;
}

export function findingItem(render: TemplateRender, f: ReportDocumentFinding, index: number): FindingItem {
  const markdown = onceEach((name: FindingMarkdownFieldName) => render.rich(f[name], 3, name, `${name}Text`));
  const evidence = () => render.plan().findings[index]!;
  return {
    render,
    f,
    number: index + 1,
    markdown,
    shown: once(() => {
      const set = new Set<string>();
      for (const { name } of FINDING_MARKDOWN_FIELDS) markdown(name).figures(set);
      return set;
    }),
    evidence,
    views: once(() => new Map(evidence().assets.map((v) => [v.asset, v]))),
  };
}

/** One evidence image as its loop's tags read it (`evidence`, `retestEvidence`). */
export const EVIDENCE_TAGS = new TagSet<never>('evidence', {
  image: richTag(() => ''),
  caption: textTag(() => ''),
  fileName: textTag(() => ''),
  number: textTag(() => ''),
});

const CVSS_TAGS = new TagSet<never>('cvss', {
  version: textTag(() => ''),
  vector: textTag(() => ''),
  score: textTag(() => ''),
});

interface AssetItem {
  a: AffectedAsset;
  finding: FindingItem;
}

const optional = (v: string | number | null | undefined) => (v === undefined || v === null ? '' : String(v));

const ASSET_TAGS = new TagSet<AssetItem>('affectedAssets', {
  host: textTag(({ a }) => optional(a.host)),
  ip: textTag(({ a }) => optional(a.ip)),
  port: textTag(({ a }) => optional(a.port)),
  protocol: textTag(({ a }) => optional(a.protocol)),
  service: textTag(({ a }) => optional(a.service)),
  url: textTag(({ a }) => optional(a.url)),
  parameter: textTag(({ a }) => optional(a.parameter)),
  location: textTag(({ a }) => assetLocation(a), true),
  // The evidence as the style's evidence mode shows it in a finding; the excerpt and the whole evidence always.
  evidence: textTag(({ a, finding }) => finding.views().get(a)?.shown ?? '', true),
  excerpt: textTag(({ a, finding }) => finding.views().get(a)?.excerpt ?? '', true),
  fullEvidence: textTag(({ a }) => optional(a.evidence)),
  evidenceNumber: textTag(({ a, finding }) => finding.render.ref(finding.views().get(a)?.appendixNumber ?? null), true),
});

const capitalised = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
/** `cves` -> `cve`: the singular a list's joined tag is named by (`{cveList}`). */
const singular = (name: string) => name.replace(/s$/, '');

/**
 * The tags of one finding field, by its shape: the value itself under the field's name, and what a
 * template needs beside it (a label in the report's language, a colour, a joined list, a condition).
 * A new shape is a compile error here until it is decided what a template shows of it.
 */
function fieldTags(name: FindingFieldName, shape: FindingFieldShape): TagDefinitions<FindingItem> {
  const value = (item: FindingItem) => item.f[name];
  switch (shape) {
    case 'title':
    case 'note':
      return { [name]: textTag((i) => value(i) as string) };
    case 'severity': {
      const colour = (i: FindingItem) => i.render.style.severityColors[value(i) as Severity];
      return {
        [name]: textTag((i) => i.render.locale.severity(value(i) as Severity)),
        [`${name}Key`]: textTag((i) => value(i) as Severity),
        [`${name}Color`]: textTag((i) => colour(i).replace('#', '')),
        // Directive tags that print nothing and colour what they are in by the finding's severity.
        shadeCell: textTag((i) => i.render.colours(colour(i)).shadeCell),
        shadeParagraph: textTag((i) => i.render.colours(colour(i)).shadeParagraph),
        colorText: textTag((i) => i.render.colours(colour(i)).colorText),
      };
    }
    case 'status':
      return { [name]: textTag((i) => i.render.locale.findingStatus(value(i) as FindingStatus)) };
    case 'cvss': {
      const primary = (i: FindingItem) => primaryCvss(value(i) as Cvss[]);
      return {
        [`${name}Score`]: textTag((i) => {
          const c = primary(i);
          return c ? i.render.locale.score(c.score) : '';
        }),
        [`${name}Vector`]: textTag((i) => primary(i)?.vector ?? ''),
        [`${name}Version`]: textTag((i) => primary(i)?.version ?? ''),
        [name]: listTag(CVSS_TAGS, (i) =>
          cvssRatings(value(i) as Cvss[]).map((c) => ({
            version: c.version,
            vector: c.vector ?? '',
            score: i.render.locale.score(c.score),
          })),
        ),
      };
    }
    case 'cveList':
    case 'referenceList':
      return {
        [name]: stringsTag((i) => value(i) as string[]),
        [`${singular(name)}List`]: textTag((i) => (value(i) as string[]).join(', ')),
        [`has${capitalised(name)}`]: textTag((i) => (value(i) as string[]).length > 0),
      };
    case 'cweList': {
      const names = (i: FindingItem) => (value(i) as number[]).map((c) => `CWE-${c}`);
      return {
        [name]: stringsTag(names, true),
        [`${singular(name)}List`]: textTag((i) => names(i).join(', '), true),
        [`has${capitalised(name)}`]: textTag((i) => (value(i) as number[]).length > 0),
      };
    }
    case 'markdown':
      // `{@name}` as paragraphs, `{nameText}` as plain text.
      return {
        [name]: richTag((i) => i.markdown(name as FindingMarkdownFieldName).xml()),
        [`${name}Text`]: textTag((i) => i.markdown(name as FindingMarkdownFieldName).text(), true),
      };
    case 'assets':
      return {
        [name]: listTag(ASSET_TAGS, (i) =>
          (value(i) as AffectedAsset[]).map((a) => ASSET_TAGS.data({ a, finding: i }, i.render.uses)),
        ),
        assetCount: textTag((i) => i.render.locale.integer((value(i) as AffectedAsset[]).length)),
        hasAssets: textTag((i) => (value(i) as AffectedAsset[]).length > 0),
        hasAssetEvidence: textTag((i) => i.evidence().assets.some((v) => v.shown !== ''), true),
        evidenceLeftOut: textTag((i) => i.render.leftOutNote(i.evidence()), true),
      };
    case 'source':
      return { [name]: textTag((i) => describeFindingSource(value(i) as FindingSource)) };
    default:
      return shape satisfies never;
  }
}

/** A finding's retest tags, built when one of them is first read; its notes as any Markdown field. */
function retestTags(): TagDefinitions<FindingItem> {
  const kinds = retestFindingTags(EVIDENCE_TAGS.scope);
  const of = oncePer((i: FindingItem) => {
    const notes = i.render.rich(i.f.retest?.notes ?? '', 4, 'retestNotes', 'retestNotesText');
    // The retest's evidence list leaves out what the finding's and the notes' Markdown draws.
    const shown = once(() => {
      const set = new Set(i.shown());
      notes.figures(set);
      return set;
    });
    const data = once(() =>
      retestFindingData(
        i.f,
        i.render.ctx,
        () => ({ xml: '', text: '' }),
        (list: readonly EvidenceRef[]) => i.render.evidenceItems(list, shown()),
      ),
    );
    return { notes, data };
  });
  return Object.fromEntries(
    Object.entries(kinds).map(([key, kind]) => [
      key,
      {
        kind,
        lazy: true,
        value: (i: FindingItem) => {
          if (key === 'retestNotes') return i.f.retest ? of(i).notes.xml() : '';
          if (key === 'retestNotesText') return i.f.retest ? of(i).notes.text() : '';
          return of(i).data()[key];
        },
      },
    ]),
  );
}

/** Every tag of a finding: its number, each field's tags by shape, its evidence images and its retest tags. */
export const FINDING_TAGS = new TagSet<FindingItem>('findings', {
  number: textTag((i) => String(i.number)),
  ...Object.assign({}, ...FINDING.entries.map(([name, f]) => fieldTags(name, f.shape))),
  evidence: listTag(EVIDENCE_TAGS, (i) => i.render.evidenceItems(i.f.evidence, i.shown())),
  hasEvidence: textTag((i) => i.f.evidence.some((e) => !i.shown().has(e.sha256)), true),
  ...retestTags(),
});
