import { useEffect, useRef, useState } from 'preact/hooks';
import type { EvidenceImage } from '../api/api-types.ts';
import { t } from '../i18n/i18n.ts';
import type { MarkdownEditorHandle } from './codemirror-setup.ts';
import { MarkdownPreview } from './markdown-preview.tsx';

export interface MarkdownEditorProps {
  /** Names the editor (a tab's title, a finding field). */
  label: string;
  value: string;
  onChange(text: string): void;
  /** The evidence images the text may reference, for the preview. */
  evidence: readonly EvidenceImage[];
  /** Uploads images as evidence; answers their Markdown references. */
  onImages?(files: File[]): Promise<string[]>;
  onSave?(): void;
  readOnly?: boolean;
  /**
   * Changes when the text changed elsewhere (someone else's save taken, a conflict resolved): only
   * then does the editor take `value`; otherwise it holds what is being typed.
   */
  revision?: number;
  /** Rows of text the editor is tall (at least). */
  rows?: number;
}

type Mode = 'write' | 'preview' | 'both';

/** Why a pause: the preview reads the whole text, and typing must stay instant in a long tab. */
const PREVIEW_DELAY_MS = 250;

/**
 * A Markdown field: toolbar, CodeMirror (loaded on first use), and the preview drawn by the
 * documents' renderer. Someone else's saved text replaces the editor's only while nothing is typed.
 */
export function MarkdownEditor(props: MarkdownEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<MarkdownEditorHandle | null>(null);
  const latest = useRef(props);
  latest.current = props;
  const [mode, setMode] = useState<Mode>('both');
  const [previewText, setPreviewText] = useState(props.value);
  const [ready, setReady] = useState(false);
  const [uploading, setUploading] = useState(0);
  const fileInput = useRef<HTMLInputElement>(null);
  const id = useRef(`md-${Math.random().toString(36).slice(2)}`).current;

  useEffect(() => {
    let cancelled = false;
    void import('./codemirror-setup.ts').then(({ createMarkdownEditor }) => {
      if (cancelled || !host.current) return;
      editor.current = createMarkdownEditor(host.current, {
        doc: latest.current.value,
        label: latest.current.label,
        readOnly: latest.current.readOnly,
        onChange: (text) => latest.current.onChange(text),
        onImages: async (files) => upload(files),
        onSave: () => latest.current.onSave?.(),
      });
      setReady(true);
    });
    return () => {
      cancelled = true;
      editor.current?.destroy();
      editor.current = null;
    };
  }, []);

  // Someone else's text, or a conflict resolved: the editor shows the value it is given.
  // Why only on a new revision: renders lag behind typing, so a value of our own may be older than
  // the keystrokes in the editor and must never overwrite them.
  useEffect(() => {
    if (editor.current && editor.current.text() !== latest.current.value) editor.current.replace(latest.current.value);
  }, [props.revision]);

  useEffect(() => {
    const timer = window.setTimeout(() => setPreviewText(props.value), PREVIEW_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [props.value]);

  const upload = async (files: File[]): Promise<string[]> => {
    const images = latest.current.onImages;
    if (!images) return [];
    setUploading((n) => n + files.length);
    try {
      return await images(files);
    } finally {
      setUploading((n) => n - files.length);
    }
  };

  const tools: Array<{ label: string; keys?: string; act(e: MarkdownEditorHandle): void }> = [
    { label: t('Bold'), keys: 'Ctrl+B', act: (e) => e.wrap('**', '**', t('bold')) },
    { label: t('Italic'), keys: 'Ctrl+I', act: (e) => e.wrap('_', '_', t('italic')) },
    { label: t('Code'), keys: 'Ctrl+E', act: (e) => e.wrap('`', '`', 'code') },
    { label: t('Link'), keys: 'Ctrl+K', act: (e) => e.wrap('[', '](https://)', t('link')) },
    { label: t('List'), act: (e) => e.prefixLines('- ') },
    {
      label: t('Table'),
      act: (e) => e.insert(`| ${t('Column')} | ${t('Column')} |\n| --- | --- |\n| | |`, true),
    },
    { label: t('Undo'), keys: 'Ctrl+Z', act: (e) => e.undo() },
    { label: t('Redo'), keys: 'Ctrl+Shift+Z', act: (e) => e.redo() },
  ];

  return (
    <section class={`md-editor mode-${mode}`} aria-labelledby={`${id}-label`}>
      <div class="md-head">
        <span id={`${id}-label`} class="md-label">
          {props.label}
        </span>
        <div class="md-modes" role="radiogroup" aria-label={t('View')}>
          {(['write', 'both', 'preview'] as const).map((m) => (
            <label key={m} class="mode">
              <input type="radio" name={`${id}-mode`} checked={mode === m} onChange={() => setMode(m)} />
              {t({ write: 'Write', both: 'Write and preview', preview: 'Preview' }[m])}
            </label>
          ))}
        </div>
      </div>
      {!props.readOnly ? (
        <div class="md-toolbar" role="toolbar" aria-label={t('Formatting of {name}', { name: props.label })}>
          {tools.map((tool) => (
            <button
              key={tool.label}
              type="button"
              class="tool"
              disabled={!ready}
              title={tool.keys ? `${tool.label} (${tool.keys})` : tool.label}
              aria-keyshortcuts={tool.keys?.replace('Ctrl', 'Control')}
              onClick={() => editor.current && tool.act(editor.current)}
            >
              {tool.label}
            </button>
          ))}
          {props.onImages ? (
            <>
              <button type="button" class="tool" disabled={!ready} onClick={() => fileInput.current?.click()}>
                {t('Image')}
              </button>
              <input
                ref={fileInput}
                type="file"
                accept="image/png,image/jpeg,image/gif,image/webp"
                multiple
                class="visually-hidden"
                tabIndex={-1}
                aria-label={t('Image')}
                onChange={(e) => {
                  const files = Array.from(e.currentTarget.files ?? []);
                  e.currentTarget.value = '';
                  void upload(files).then((refs) => editor.current?.insert(refs.join('\n\n'), true));
                }}
              />
            </>
          ) : null}
          {uploading > 0 ? (
            <span role="status" class="hint">
              {t('Uploading {count} image(s)…', { count: uploading })}
            </span>
          ) : null}
        </div>
      ) : null}
      <div class="md-panes">
        <div class={`md-source rows-${props.rows ?? 8}`} ref={host}>
          {!ready ? <p class="hint">{t('Loading the editor…')}</p> : null}
        </div>
        {mode !== 'write' ? (
          <section
            class="md-preview document"
            aria-label={t('Preview of {name}', { name: props.label })}
            // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
            tabIndex={0}
          >
            <MarkdownPreview markdown={previewText} evidence={props.evidence} />
          </section>
        ) : null}
      </div>
    </section>
  );
}
