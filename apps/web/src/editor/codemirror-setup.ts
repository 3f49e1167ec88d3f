import { defaultKeymap, history, historyKeymap, indentWithTab, redo, undo } from '@codemirror/commands';
import { markdown } from '@codemirror/lang-markdown';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { EditorSelection, EditorState } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';

export interface EditorOptions {
  doc: string;
  /** The accessible name of the text area. */
  label: string;
  placeholder?: string;
  readOnly?: boolean;
  onChange(text: string): void;
  /** Images pasted or dropped into the text: upload them, answer the Markdown to insert. */
  onImages?(files: File[]): Promise<string[]>;
  /** Ctrl+S / Cmd+S (the text is handed on first). */
  onSave?(): void;
}

export interface MarkdownEditorHandle {
  /** Puts `before` and `after` around the selection (or a placeholder word). */
  wrap(before: string, after: string, empty: string): void;
  /** Puts `prefix` before every selected line. */
  prefixLines(prefix: string): void;
  /** Inserts text at the cursor (on a line of its own when `block`). */
  insert(text: string, block?: boolean): void;
  undo(): void;
  redo(): void;
  focus(): void;
  /** Replaces the text with someone else's saved version, keeping the cursor where it can. */
  replace(text: string): void;
  text(): string;
  destroy(): void;
}

function imagesOf(list: DataTransferItemList | FileList | null | undefined): File[] {
  if (!list) return [];
  const files: File[] = [];
  for (const item of Array.from(list as ArrayLike<DataTransferItem | File>)) {
    const file = item instanceof File ? item : item.kind === 'file' ? item.getAsFile() : null;
    if (file?.type.startsWith('image/')) files.push(file);
  }
  return files;
}

/**
 * The Markdown editor: CodeMirror 6 with Markdown highlighting, undo history, the usual keys
 * (Ctrl+B bold, Ctrl+I italic, Ctrl+E code, Ctrl+K link, Ctrl+S save), and pasted or dropped
 * images uploaded as evidence and referenced at the cursor.
 */
/** How long the text may wait before it is handed on: keystrokes within it cost the editor only. */
const CHANGE_DELAY_MS = 120;

export function createMarkdownEditor(parent: HTMLElement, options: EditorOptions): MarkdownEditorHandle {
  let view: EditorView;
  let changeTimer = 0;
  // Why coalesced: copying a 100 KB text out of the editor on every key is most of a keystroke's cost.
  const emitChange = () => {
    window.clearTimeout(changeTimer);
    changeTimer = 0;
    options.onChange(view.state.doc.toString());
  };
  const flushChange = () => {
    if (changeTimer) emitChange();
  };
  const handle: MarkdownEditorHandle = {
    wrap(before, after, empty) {
      view.dispatch(
        view.state.changeByRange((range) => {
          const selected = view.state.sliceDoc(range.from, range.to) || empty;
          const text = `${before}${selected}${after}`;
          return {
            changes: { from: range.from, to: range.to, insert: text },
            range: EditorSelection.range(range.from + before.length, range.from + before.length + selected.length),
          };
        }),
      );
      view.focus();
    },
    prefixLines(prefix) {
      const changes = [];
      const { from, to } = view.state.selection.main;
      for (let pos = from; pos <= to; ) {
        const line = view.state.doc.lineAt(pos);
        changes.push({ from: line.from, insert: prefix });
        pos = line.to + 1;
      }
      view.dispatch({ changes });
      view.focus();
    },
    insert(text, block = false) {
      const { from, to } = view.state.selection.main;
      const line = view.state.doc.lineAt(from);
      const lead = block && from > line.from ? '\n\n' : '';
      const insert = `${lead}${text}${block ? '\n' : ''}`;
      view.dispatch({ changes: { from, to, insert }, selection: { anchor: from + insert.length } });
      view.focus();
    },
    undo: () => void undo(view),
    redo: () => void redo(view),
    focus: () => view.focus(),
    replace(text) {
      flushChange();
      if (text === view.state.doc.toString()) return;
      const head = Math.min(view.state.selection.main.head, text.length);
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, selection: { anchor: head } });
    },
    text: () => view.state.doc.toString(),
    destroy: () => {
      flushChange();
      window.removeEventListener('pagehide', flushChange);
      view.destroy();
    },
  };
  const run = (f: () => void) => () => {
    f();
    return true;
  };
  const uploadAndInsert = (files: File[], at: number | null) => {
    if (!options.onImages || files.length === 0) return false;
    void options.onImages(files).then((references) => {
      if (at !== null) view.dispatch({ selection: { anchor: at } });
      handle.insert(references.join('\n\n'), true);
    });
    return true;
  };
  view = new EditorView({
    parent,
    state: EditorState.create({
      doc: options.doc,
      extensions: [
        history(),
        markdown(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        EditorView.lineWrapping,
        // Why: the page's CSP allows style elements only with the nonce the service sent with it.
        EditorView.cspNonce.of(document.body.dataset.styleNonce ?? ''),
        EditorState.readOnly.of(options.readOnly ?? false),
        EditorView.editable.of(!options.readOnly),
        placeholder(options.placeholder ?? ''),
        EditorView.contentAttributes.of({ 'aria-label': options.label, 'aria-multiline': 'true' }),
        keymap.of([
          { key: 'Mod-b', run: run(() => handle.wrap('**', '**', 'bold')) },
          { key: 'Mod-i', run: run(() => handle.wrap('_', '_', 'italic')) },
          { key: 'Mod-e', run: run(() => handle.wrap('`', '`', 'code')) },
          { key: 'Mod-k', run: run(() => handle.wrap('[', '](https://)', 'link')) },
          {
            key: 'Mod-s',
            preventDefault: true,
            run: run(() => {
              flushChange();
              options.onSave?.();
            }),
          },
          ...historyKeymap,
          ...defaultKeymap,
          // Why Tab indents only with Escape-then-Tab available: CodeMirror's indentWithTab keeps Escape as the way out.
          indentWithTab,
        ]),
        EditorView.updateListener.of((update) => {
          if (update.docChanged && !changeTimer) changeTimer = window.setTimeout(emitChange, CHANGE_DELAY_MS);
        }),
        EditorView.domEventHandlers({
          paste(event) {
            const files = imagesOf(event.clipboardData?.items);
            if (files.length === 0) return false;
            event.preventDefault();
            return uploadAndInsert(files, null);
          },
          blur() {
            flushChange();
            return false;
          },
          drop(event, v) {
            const files = imagesOf(event.dataTransfer?.files);
            if (files.length === 0) return false;
            event.preventDefault();
            return uploadAndInsert(files, v.posAtCoords({ x: event.clientX, y: event.clientY }));
          },
        }),
      ],
    }),
  });
  window.addEventListener('pagehide', flushChange);
  return handle;
}
