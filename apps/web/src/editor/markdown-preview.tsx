import { parseMarkdownBlocks, type Block, type Inline } from '@service/markdown';
import { useMemo } from 'preact/hooks';
import type { EvidenceImage } from '../api/api-types.ts';
import { t } from '../i18n/i18n.ts';
import { evidenceUrl } from './evidence-reference.ts';

type Images = ReadonlyMap<string, EvidenceImage>;

function InlineView({ inline, images }: { inline: Inline; images: Images }) {
  if (inline.kind === 'break') return <br />;
  if (inline.kind === 'image') return <ImageView image={inline} images={images} />;
  let node: preact.ComponentChild = inline.text;
  if (inline.marks.code) node = <code>{node}</code>;
  if (inline.marks.bold) node = <strong>{node}</strong>;
  if (inline.marks.italic) node = <em>{node}</em>;
  if (inline.marks.strike) node = <s>{node}</s>;
  if (inline.link)
    node = (
      <a href={inline.link} rel="noreferrer noopener" target="_blank">
        {node}
      </a>
    );
  return <>{node}</>;
}

function ImageView({ image, images }: { image: Extract<Inline, { kind: 'image' }>; images: Images }) {
  const found = image.evidence ? images.get(image.evidence.sha256) : undefined;
  if (!found)
    return (
      <span class="missing-image">
        {image.evidence ? t('[evidence image not found: {name}]', { name: image.alt }) : `[${image.alt}]`}
      </span>
    );
  return <img src={evidenceUrl(found)} alt={image.alt} title={image.title ?? undefined} />;
}

function Inlines({ inlines, images }: { inlines: Inline[]; images: Images }) {
  return (
    <>
      {inlines.map((inline, i) => (
        <InlineView key={i} inline={inline} images={images} />
      ))}
    </>
  );
}

function BlockView({ block, images }: { block: Block; images: Images }) {
  switch (block.kind) {
    case 'heading': {
      const level = Math.min(6, block.level + 2);
      const Tag = `h${level}` as 'h3';
      return (
        <Tag>
          <Inlines inlines={block.inlines} images={images} />
        </Tag>
      );
    }
    case 'paragraph':
      return (
        <p>
          <Inlines inlines={block.inlines} images={images} />
        </p>
      );
    case 'list': {
      const items = block.items.map((item, i) => (
        <li key={i}>
          <Blocks blocks={item} images={images} />
        </li>
      ));
      return block.ordered ? <ol start={block.start}>{items}</ol> : <ul>{items}</ul>;
    }
    case 'code':
      return (
        <pre>
          <code>{block.text}</code>
        </pre>
      );
    case 'table':
      return (
        <table class="table">
          <thead>
            <tr>
              {block.header.map((cell, i) => (
                <th key={i} scope="col" class={block.align[i] ? `align-${block.align[i]}` : undefined}>
                  <Inlines inlines={cell} images={images} />
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {block.rows.map((row, r) => (
              <tr key={r}>
                {row.map((cell, i) => (
                  <td key={i} class={block.align[i] ? `align-${block.align[i]}` : undefined}>
                    <Inlines inlines={cell} images={images} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      );
    case 'quote':
      return (
        <blockquote>
          <Blocks blocks={block.blocks} images={images} />
        </blockquote>
      );
    case 'rule':
      return <hr />;
    case 'figure':
      return (
        <figure>
          <ImageView image={block.image} images={images} />
          {block.image.alt ? <figcaption>{block.image.alt}</figcaption> : null}
        </figure>
      );
  }
}

function Blocks({ blocks, images }: { blocks: Block[]; images: Images }) {
  return (
    <>
      {blocks.map((block, i) => (
        <BlockView key={i} block={block} images={images} />
      ))}
    </>
  );
}

/**
 * The preview: the text read by the documents' own Markdown reader (`@service/markdown`, the block
 * tree both DOCX renderers draw), so it shows what the client will read: the same tables, figures
 * with captions, evidence images by content, and links only where the document makes them links.
 */
export function MarkdownPreview({ markdown, evidence }: { markdown: string; evidence: readonly EvidenceImage[] }) {
  const images = useMemo(() => new Map(evidence.map((e) => [e.sha256, e])), [evidence]);
  // Why memoized: the preview of a long tab is the costly part of a render; typing must not redo it.
  const view = useMemo(() => {
    const blocks = parseMarkdownBlocks(markdown);
    if (blocks.length === 0) return <p class="hint">{t('Nothing to preview yet.')}</p>;
    return <Blocks blocks={blocks} images={images} />;
  }, [markdown, images]);
  return view;
}
