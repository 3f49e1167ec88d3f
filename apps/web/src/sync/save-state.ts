/** What the person sees about their edits: all saved, being saved, waiting (offline), or in conflict. */
export type SaveState = 'saved' | 'unsaved' | 'saving' | 'offline' | 'conflict' | 'error';
