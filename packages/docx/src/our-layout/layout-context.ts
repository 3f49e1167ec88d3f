import type { ResolvedReportStyle } from '@service/report-model';
import type { WordmlContext, WordStyles } from '../wordml/markdown-to-wordml.ts';
import { docxColour, textColourOn, tint } from './colours.ts';
import { STYLE } from './layout-styles.ts';
import type { PageGeometry } from './page-geometry.ts';

/** What rendering one document in our layout keeps track of: the Markdown writer's context plus the style. */
export interface LayoutContext extends WordmlContext {
  style: ResolvedReportStyle;
  geometry: PageGeometry;
}

/** Our layout's styles (defined in `layoutStyles`) as the Markdown writer uses them. */
export const LAYOUT_WORD_STYLES: WordStyles = {
  heading: ['Heading1', 'Heading2', 'Heading3', 'Heading4', 'Heading5', 'Heading6'],
  listBullet: 'ListParagraph',
  listNumber: 'ListParagraph',
  code: STYLE.code,
  caption: STYLE.caption,
  quote: STYLE.quote,
  table: null,
  tableText: STYLE.tableText,
  tableHeaderText: STYLE.tableHeader,
  placeholder: STYLE.placeholder,
  hyperlink: STYLE.hyperlink,
  inlineCode: STYLE.inlineCode,
};

export function tableLookOf(style: ResolvedReportStyle): WordmlContext['tableLook'] {
  return {
    headerFill: docxColour(style.colors.tableHeader),
    headerText: textColourOn(style.colors.tableHeader),
    stripe: tint(style.colors.secondary, 0.9),
    grid: 'D0D7DE',
  };
}
