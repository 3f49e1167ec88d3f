import { Type } from 'typebox';
import { Uuid } from './text.ts';

const Hex = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'Colour as #RRGGBB.' });
const FontName = Type.String({ minLength: 1, maxLength: 100 });

export const PAGE_SIZES = ['A4', 'Letter'] as const;
export type PageSize = (typeof PAGE_SIZES)[number];

/**
 * How documents show scanner evidence of affected assets: `excerpt` (what matters of each asset's
 * evidence, in the finding), `full` (the whole evidence in the finding), `appendix` (excerpts in the
 * finding, the whole evidence in an appendix at the end, referred to from the finding) or `none`.
 */
export const EVIDENCE_MODES = ['excerpt', 'full', 'appendix', 'none'] as const;
export type EvidenceMode = (typeof EVIDENCE_MODES)[number];

/** What a report style sets for the DOCX export; every part is optional and has a default. */
export const ReportStyleProperties = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.String({ maxLength: 10_000 }),
  fonts: Type.Object(
    { heading: Type.Optional(FontName), body: Type.Optional(FontName), mono: Type.Optional(FontName) },
    { additionalProperties: false },
  ),
  colors: Type.Object(
    {
      primary: Type.Optional(Hex),
      secondary: Type.Optional(Hex),
      text: Type.Optional(Hex),
      tableHeader: Type.Optional(Hex),
    },
    { additionalProperties: false },
  ),
  severityColors: Type.Object(
    {
      critical: Type.Optional(Hex),
      high: Type.Optional(Hex),
      medium: Type.Optional(Hex),
      low: Type.Optional(Hex),
      info: Type.Optional(Hex),
    },
    { additionalProperties: false },
  ),
  coverPage: Type.Object(
    {
      title: Type.Optional(Type.String({ maxLength: 500 })),
      subtitle: Type.Optional(Type.String({ maxLength: 500 })),
      showLogo: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
  headerText: Type.String({ maxLength: 500 }),
  footerText: Type.String({ maxLength: 500 }),
  pageSize: Type.Enum([...PAGE_SIZES]),
  logoImageId: Type.Union([Uuid, Type.Null()], {
    description: 'An evidence image used as the logo on the cover page.',
  }),
  evidenceMode: Type.Enum([...EVIDENCE_MODES], {
    description:
      "How documents show scanner evidence of affected assets: `excerpt` (default: what matters of each asset's " +
      'evidence), `full`, `appendix` (excerpts in the finding, the whole evidence in an appendix) or `none`.',
  }),
};

export const ReportStyleSchema = Type.Object(
  {
    name: ReportStyleProperties.name,
    description: Type.Optional(ReportStyleProperties.description),
    fonts: Type.Optional(ReportStyleProperties.fonts),
    colors: Type.Optional(ReportStyleProperties.colors),
    severityColors: Type.Optional(ReportStyleProperties.severityColors),
    coverPage: Type.Optional(ReportStyleProperties.coverPage),
    headerText: Type.Optional(ReportStyleProperties.headerText),
    footerText: Type.Optional(ReportStyleProperties.footerText),
    pageSize: Type.Optional(ReportStyleProperties.pageSize),
    evidenceMode: Type.Optional(ReportStyleProperties.evidenceMode),
  },
  { additionalProperties: false },
);
export type ReportStyle = Type.Static<typeof ReportStyleSchema>;

/** A style with every default filled in: what renderers work from. */
export interface ResolvedReportStyle {
  name: string;
  fonts: { heading: string; body: string; mono: string };
  colors: { primary: string; secondary: string; text: string; tableHeader: string };
  severityColors: { critical: string; high: string; medium: string; low: string; info: string };
  coverPage: { title: string | null; subtitle: string | null; showLogo: boolean };
  headerText: string;
  footerText: string;
  pageSize: PageSize;
  evidenceMode: EvidenceMode;
}

export const DEFAULT_REPORT_STYLE: ResolvedReportStyle = {
  name: 'Default',
  fonts: { heading: 'Calibri', body: 'Calibri', mono: 'Consolas' },
  colors: { primary: '#1F3A5F', secondary: '#4A6FA5', text: '#1A1A1A', tableHeader: '#1F3A5F' },
  severityColors: { critical: '#7B1FA2', high: '#C62828', medium: '#EF6C00', low: '#F9A825', info: '#1565C0' },
  coverPage: { title: null, subtitle: null, showLogo: true },
  headerText: '',
  footerText: 'Confidential',
  pageSize: 'A4',
  evidenceMode: 'excerpt',
};

/** Fills the parts a style leaves out with the defaults. */
export function resolveReportStyle(style: ReportStyle | null | undefined): ResolvedReportStyle {
  const d = DEFAULT_REPORT_STYLE;
  if (!style) return d;
  return {
    name: style.name,
    fonts: { ...d.fonts, ...style.fonts },
    colors: { ...d.colors, ...style.colors },
    severityColors: { ...d.severityColors, ...style.severityColors },
    coverPage: {
      title: style.coverPage?.title ?? null,
      subtitle: style.coverPage?.subtitle ?? null,
      showLogo: style.coverPage?.showLogo ?? true,
    },
    headerText: style.headerText ?? d.headerText,
    footerText: style.footerText ?? d.footerText,
    pageSize: style.pageSize ?? d.pageSize,
    evidenceMode: style.evidenceMode ?? d.evidenceMode,
  };
}
