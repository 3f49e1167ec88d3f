import {
  BorderStyle,
  ImageRun,
  Paragraph,
  ShadingType,
  Table,
  TableCell,
  TableLayoutType,
  TableRow,
  TextRun,
  WidthType,
  type FileChild,
} from 'docx';
import type { ReportDocument } from '@service/report-model';
import { fitImage, readEvidenceImage, isEvidenceImage } from '../evidence-images.ts';
import type { ReportLocale } from '../messages/report-locale.ts';
import { isRightToLeft } from '../text-direction.ts';
import { docxColour } from './colours.ts';
import type { LayoutContext } from './layout-context.ts';
import { STYLE } from './layout-styles.ts';
import { coverFacts } from './report-field-layout.ts';

const NONE = { style: BorderStyle.NONE, size: 0, color: 'FFFFFF' };
const NO_BORDERS = { top: NONE, bottom: NONE, left: NONE, right: NONE, insideHorizontal: NONE, insideVertical: NONE };

/** The first page: logo, the style's cover title, the report's title and subtitle, and who, what and when. */
export function coverPage(
  doc: ReportDocument,
  ctx: { style: LayoutContext['style']; geometry: LayoutContext['geometry']; locale: ReportLocale },
  logo: Uint8Array | null | undefined,
  now: Date,
): FileChild[] {
  const out: FileChild[] = [];
  const image = ctx.style.coverPage.showLogo && logo ? readEvidenceImage(logo) : null;
  if (image && isEvidenceImage(image)) {
    out.push(
      new Paragraph({
        spacing: { after: 600 },
        children: [
          new ImageRun({
            type: image.type,
            data: image.bytes,
            transformation: fitImage(image, 220, 90),
            altText: { name: 'Logo', title: 'Logo', description: 'Logo' },
          }),
        ],
      }),
    );
  } else {
    out.push(new Paragraph({ spacing: { after: 1400 } }));
  }
  out.push(new Paragraph({ spacing: { before: 1200, after: 0 } }));
  const subtitle = ctx.style.coverPage.subtitle;
  const band = [
    new Paragraph({
      style: STYLE.coverKicker,
      text: ctx.style.coverPage.title ?? ctx.locale.text('securityAssessmentReport'),
    }),
    new Paragraph({
      style: STYLE.coverTitle,
      bidirectional: isRightToLeft(doc.title) || undefined,
      children: [new TextRun(doc.title)],
    }),
    new Paragraph({
      style: STYLE.coverSubtitle,
      children: [new TextRun(subtitle ?? `${doc.client.name} · ${doc.project.name}`)],
    }),
  ];
  // Why a one-cell table: it is the one way to give a coloured block padding on every side that
  // Word and LibreOffice both draw the same.
  out.push(
    new Table({
      width: { size: ctx.geometry.textWidth, type: WidthType.DXA },
      columnWidths: [ctx.geometry.textWidth],
      layout: TableLayoutType.FIXED,
      borders: NO_BORDERS,
      rows: [
        new TableRow({
          children: [
            new TableCell({
              width: { size: ctx.geometry.textWidth, type: WidthType.DXA },
              shading: { type: ShadingType.CLEAR, fill: docxColour(ctx.style.colors.primary), color: 'auto' },
              margins: { top: 567, bottom: 567, left: 454, right: 454 },
              children: band,
            }),
          ],
        }),
      ],
    }),
  );
  out.push(new Paragraph({ spacing: { before: 0, after: 480 } }));
  const details = coverFacts(doc, ctx.locale, now);
  const labelWidth = 2400;
  const valueWidth = ctx.geometry.textWidth - labelWidth;
  out.push(
    new Table({
      width: { size: ctx.geometry.textWidth, type: WidthType.DXA },
      columnWidths: [labelWidth, valueWidth],
      layout: TableLayoutType.FIXED,
      borders: NO_BORDERS,
      rows: details.map(
        ([label, value]) =>
          new TableRow({
            children: [
              new TableCell({
                width: { size: labelWidth, type: WidthType.DXA },
                children: [
                  new Paragraph({
                    style: STYLE.coverMeta,
                    children: [new TextRun({ text: label, bold: true, color: docxColour(ctx.style.colors.primary) })],
                  }),
                ],
              }),
              new TableCell({
                width: { size: valueWidth, type: WidthType.DXA },
                children: [
                  new Paragraph({
                    style: STYLE.coverMeta,
                    bidirectional: isRightToLeft(value) || undefined,
                    children: [new TextRun(value)],
                  }),
                ],
              }),
            ],
          }),
      ),
    }),
  );
  return out;
}
