/**
 * Caps on what the Markdown reader accepts, checked before and while parsing so a hostile or
 * broken file is refused early instead of filling memory. Counts mirror the report model's caps.
 */
export const MARKDOWN_LIMITS = {
  /** Largest report file, in UTF-8 bytes (64 MiB). The API answers 413 above it. */
  reportBytes: 64 * 1024 * 1024,
  /** Largest finding file of the library, in UTF-8 bytes (1 MiB). */
  findingFileBytes: 1024 * 1024,
  /**
   * Largest front matter or YAML block, in characters (8 MiB): a finding's block may legitimately
   * hold 1,000 references of 4,000 characters.
   */
  yamlBlockChars: 8 * 1024 * 1024,
  findings: 100_000,
  tabs: 1_000,
  links: 1_000,
  /** Evidence images per tab or finding. */
  evidence: 1_000,
  /** Affected assets per finding. */
  assets: 100_000,
} as const;
