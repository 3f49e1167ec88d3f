import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A temporary folder for one test, with a tree builder: `folder.write({ 'a/b.txt': 'x' })`. */
export interface TestFolder {
  dir: string;
  path(...parts: string[]): string;
  write(files: Record<string, string | Uint8Array>, mode?: number): void;
  remove(): void;
}

export function createTestFolder(prefix = 'release-kit-'): TestFolder {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return {
    dir,
    path: (...parts) => path.join(dir, ...parts),
    write(files, mode) {
      for (const [relative, content] of Object.entries(files)) {
        const file = path.join(dir, relative);
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, content, mode === undefined ? undefined : { mode });
      }
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
