import { describe, expect, it } from 'vitest';
import { decodeHtmlEntities, extractLinks, htmlToText } from './html-to-text.ts';

describe('htmlToText', () => {
  it('renders paragraphs, lists, line breaks and links as plain text', () => {
    const html =
      '<p>Intro <b>bold</b>.</p>\n<ul>\n<li>First</li>\n<li><a ' +
      'href="https://x.example/a?b=1&amp;c=2">Link</a></li>\n</ul>Line<br>break';
    expect(htmlToText(html)).toBe('Intro bold.\n\n- First\n- Link (https://x.example/a?b=1&c=2)\n\nLine\nbreak');
  });

  it('shows a bare link once and tolerates broken markup', () => {
    expect(htmlToText('<a href="https://x.example">https://x.example</a>')).toBe('https://x.example');
    expect(htmlToText('a < b and <unclosed')).toBe('a < b and <unclosed');
    expect(htmlToText('<!-- c --><p>t</p>')).toBe('t');
  });
});

describe('extractLinks', () => {
  it('returns each href once, in order', () => {
    expect(extractLinks('<a href="u1">1</a><a class="x" href=\'u2\'>2</a><a href="u1">again</a>')).toEqual([
      'u1',
      'u2',
    ]);
  });
});

describe('decodeHtmlEntities', () => {
  it('decodes named and numeric entities and leaves unknown ones', () => {
    expect(decodeHtmlEntities('&lt;&#39;&#x41;&nbsp;&bogus;&#xD800;')).toBe("<'A &bogus;&#xD800;");
  });
});
