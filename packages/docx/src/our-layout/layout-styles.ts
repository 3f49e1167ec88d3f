import { AlignmentType, BorderStyle, LineRuleType, ShadingType, type IStylesOptions } from 'docx';
import type { ResolvedReportStyle } from '@service/report-model';
import { docxColour, textColourOn, tint } from './colours.ts';

/**
 * The paragraph and character styles of our layout, all from the report style. Formatting lives
 * in these named styles, not on each run: the document stays small and quick to write, and a
 * reader who restyles it in Word changes one style, not every paragraph.
 */

/** Style ids used by the layout (Word shows the names). */
export const STYLE = {
  code: 'Code',
  inlineCode: 'InlineCode',
  caption: 'Caption',
  quote: 'Quote',
  tableText: 'TableText',
  tableHeader: 'TableHeaderText',
  compact: 'CompactText',
  hyperlink: 'Hyperlink',
  coverKicker: 'CoverKicker',
  coverTitle: 'CoverTitle',
  coverSubtitle: 'CoverSubtitle',
  coverMeta: 'CoverMeta',
  contentsHeading: 'ContentsHeading',
  headerFooter: 'HeaderFooterText',
  fieldLabel: 'FieldLabel',
  placeholder: 'Placeholder',
} as const;

const BODY_SIZE = 21; // half-points: 10.5 pt

export function layoutStyles(style: ResolvedReportStyle): IStylesOptions {
  const primary = docxColour(style.colors.primary);
  const secondary = docxColour(style.colors.secondary);
  const text = docxColour(style.colors.text);
  const heading = { font: style.fonts.heading, bold: true };
  const headingParagraph = (before: number, after: number) => ({
    spacing: { before, after },
    keepNext: true,
    keepLines: true,
  });
  return {
    default: {
      document: {
        run: { font: style.fonts.body, size: BODY_SIZE, color: text },
        paragraph: { spacing: { after: 120, line: 264, lineRule: LineRuleType.AUTO } },
      },
      heading1: {
        run: { ...heading, size: 34, color: primary },
        paragraph: { ...headingParagraph(360, 160), outlineLevel: 0 },
      },
      heading2: {
        run: { ...heading, size: 27, color: primary },
        paragraph: { ...headingParagraph(300, 120), outlineLevel: 1 },
      },
      heading3: {
        run: { ...heading, size: 23, color: secondary },
        paragraph: { ...headingParagraph(220, 80), outlineLevel: 2 },
      },
      heading4: { run: { ...heading, size: 22, color: text }, paragraph: headingParagraph(180, 60) },
      heading5: { run: { ...heading, size: BODY_SIZE, color: text }, paragraph: headingParagraph(160, 40) },
      heading6: {
        run: { ...heading, size: BODY_SIZE, italics: true, color: secondary },
        paragraph: headingParagraph(160, 40),
      },
      caption: {
        run: { italics: true, size: 18, color: secondary },
        paragraph: { alignment: AlignmentType.CENTER, spacing: { before: 60, after: 240 } },
      },
      listParagraph: { paragraph: { spacing: { after: 60 } } },
    },
    paragraphStyles: [
      {
        id: STYLE.code,
        name: 'Code',
        basedOn: 'Normal',
        run: { font: style.fonts.mono, size: 17, color: '24292F' },
        paragraph: {
          spacing: { before: 0, after: 0, line: 240, lineRule: LineRuleType.AUTO },
          shading: { type: ShadingType.CLEAR, fill: 'F3F4F6', color: 'auto' },
          indent: { left: 113, right: 113 },
        },
      },
      {
        id: STYLE.quote,
        name: 'Quote',
        basedOn: 'Normal',
        run: { italics: true, color: secondary },
        paragraph: {
          indent: { left: 397 },
          border: { left: { style: BorderStyle.SINGLE, size: 18, color: tint(style.colors.secondary, 0.5), space: 8 } },
        },
      },
      {
        id: STYLE.tableText,
        name: 'Table Text',
        basedOn: 'Normal',
        run: { size: 18 },
        paragraph: { spacing: { before: 0, after: 0, line: 240, lineRule: LineRuleType.AUTO } },
      },
      {
        id: STYLE.tableHeader,
        name: 'Table Header Text',
        basedOn: STYLE.tableText,
        run: { bold: true, color: textColourOn(style.colors.tableHeader) },
        paragraph: { keepNext: true },
      },
      {
        id: STYLE.compact,
        name: 'Compact Text',
        basedOn: 'Normal',
        run: { size: 15 },
        paragraph: { spacing: { before: 0, after: 0, line: 228, lineRule: LineRuleType.AUTO } },
      },
      {
        id: STYLE.coverKicker,
        name: 'Cover Kicker',
        basedOn: 'Normal',
        run: {
          font: style.fonts.heading,
          size: 24,
          bold: true,
          color: tint(style.colors.primary, 0.7),
          allCaps: true,
          characterSpacing: 20,
        },
        paragraph: { spacing: { before: 0, after: 160 } },
      },
      {
        id: STYLE.coverTitle,
        name: 'Cover Title',
        basedOn: 'Normal',
        run: { font: style.fonts.heading, size: 56, bold: true, color: textColourOn(style.colors.primary) },
        paragraph: { spacing: { before: 0, after: 200, line: 240, lineRule: LineRuleType.AUTO } },
      },
      {
        id: STYLE.coverSubtitle,
        name: 'Cover Subtitle',
        basedOn: 'Normal',
        run: { font: style.fonts.heading, size: 28, color: tint(style.colors.primary, 0.8) },
        paragraph: { spacing: { before: 0, after: 0 } },
      },
      {
        id: STYLE.coverMeta,
        name: 'Cover Details',
        basedOn: 'Normal',
        run: { size: 22 },
        paragraph: { spacing: { before: 40, after: 40 } },
      },
      {
        id: STYLE.contentsHeading,
        name: 'Contents Heading',
        basedOn: 'Normal',
        run: { ...heading, size: 34, color: primary },
        paragraph: { spacing: { before: 0, after: 240 } },
      },
      {
        id: STYLE.headerFooter,
        name: 'Header and Footer Text',
        basedOn: 'Normal',
        run: { size: 16, color: secondary },
        paragraph: { spacing: { before: 0, after: 0 } },
      },
      { id: STYLE.fieldLabel, name: 'Field Label', basedOn: STYLE.tableText, run: { bold: true, color: primary } },
      {
        id: STYLE.placeholder,
        name: 'Image Placeholder',
        basedOn: 'Normal',
        run: { italics: true, color: '9A3412' },
        paragraph: {
          alignment: AlignmentType.CENTER,
          border: {
            top: { style: BorderStyle.DASHED, size: 4, color: 'C2410C', space: 4 },
            bottom: { style: BorderStyle.DASHED, size: 4, color: 'C2410C', space: 4 },
          },
        },
      },
      {
        id: 'TOC1',
        name: 'toc 1',
        basedOn: 'Normal',
        next: 'Normal',
        run: { bold: true, color: primary },
        paragraph: { spacing: { before: 120, after: 40 } },
      },
      {
        id: 'TOC2',
        name: 'toc 2',
        basedOn: 'Normal',
        next: 'Normal',
        paragraph: { indent: { left: 284 }, spacing: { before: 0, after: 20 } },
      },
    ],
    characterStyles: [
      {
        id: STYLE.inlineCode,
        name: 'Inline Code',
        basedOn: 'DefaultParagraphFont',
        run: { font: style.fonts.mono, shading: { type: ShadingType.CLEAR, fill: 'F3F4F6', color: 'auto' } },
      },
      {
        id: STYLE.hyperlink,
        name: 'Hyperlink',
        basedOn: 'DefaultParagraphFont',
        run: { color: secondary, underline: {} },
      },
    ],
  };
}
