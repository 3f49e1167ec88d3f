export interface WebManifest {
  digest: string;
  files: string[];
  script: string;
  stylesheet: string | null;
  /** The scripts the first page loads before it shows anything, with their sizes. */
  firstPage: Array<{ file: string; bytes: number; gzipBytes: number }>;
}
export const WEB_DIST: string;
export function buildWebApp(options?: { force?: boolean; log?: (line: string) => void }): Promise<WebManifest>;
