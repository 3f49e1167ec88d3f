import { GERMAN } from './german.ts';

/** The interface languages. The interface speaks the user's language; a report keeps its own. */
export const LANGUAGES = ['en', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];

const STORAGE_KEY = 'service.language';

function initialLanguage(): Language {
  try {
    const chosen = localStorage.getItem(STORAGE_KEY);
    if (chosen === 'en' || chosen === 'de') return chosen;
  } catch {
    // No storage: fall back to the browser's language.
  }
  return (globalThis.navigator?.language ?? 'en').toLowerCase().startsWith('de') ? 'de' : 'en';
}

let current: Language = initialLanguage();

export function language(): Language {
  return current;
}

export function setLanguage(next: Language): void {
  current = next;
  try {
    localStorage.setItem(STORAGE_KEY, next);
  } catch {
    // The choice lasts for this page only.
  }
  document.documentElement.lang = next;
}

/**
 * The interface text in the user's language. The English text is the key (what the code says is
 * what an English reader sees); german.ts holds every key in German, checked by a test that reads
 * the sources. `{name}` placeholders are filled from `params`.
 */
export function t(english: string, params: Record<string, string | number> = {}): string {
  const text = current === 'de' ? (GERMAN[english] ?? english) : english;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** A number the way the interface language writes it. */
export function formatNumber(value: number): string {
  return new Intl.NumberFormat(current).format(value);
}

/** A time the way the interface language writes it. */
export function formatTime(iso: string): string {
  return new Intl.DateTimeFormat(current, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}
