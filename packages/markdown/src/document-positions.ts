import type { SourcePosition } from './markdown-format-error.ts';
import type { YamlBlock } from './read-yaml-block.ts';

/**
 * Where each part of an imported document came from, so a schema problem found after reading
 * (`/findings/3/cves/1`) is reported at its line: explicit positions for headings, sections and
 * lines, and YAML blocks mounted at the document path they describe.
 */
export class DocumentPositions {
  private readonly explicit = new Map<string, SourcePosition>();
  private readonly blocks = new Map<string, { block: YamlBlock; rename?: (path: string) => string }>();

  set(path: string, at: SourcePosition): void {
    this.explicit.set(path, at);
  }

  /** Mounts a YAML block at `path`; `rename` maps a document path below it to the block's own path. */
  mount(path: string, block: YamlBlock, rename?: (path: string) => string): void {
    this.blocks.set(path, { block, rename });
  }

  find(path: string): SourcePosition {
    for (let p = path; ; p = p.slice(0, p.lastIndexOf('/'))) {
      const mounted = this.blocks.get(p);
      if (mounted) {
        const inner = mounted.rename ? mounted.rename(path.slice(p.length)) : path.slice(p.length);
        for (let q = inner; q !== ''; q = q.slice(0, q.lastIndexOf('/'))) {
          const at = mounted.block.positions.get(q);
          if (at) return at;
        }
      }
      const at = this.explicit.get(p);
      if (at) return at;
      if (p === '') return { line: 1, column: 1 };
    }
  }
}
