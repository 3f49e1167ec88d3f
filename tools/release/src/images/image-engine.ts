/** The container engine as the release tool needs it: build, find, pull and save images. */
export interface ImageEngine {
  /** The program that is run, resolved on PATH, for the report ("images came from ..."). */
  readonly program: string;
  serverVersion(): Promise<string>;
  build(options: {
    contextDir: string;
    dockerfile: string;
    tag: string;
    buildArgs: Record<string, string>;
  }): Promise<void>;
  /** The image id (`sha256:...`), or null when the engine does not have the image. */
  imageId(reference: string): Promise<string | null>;
  pull(reference: string): Promise<void>;
  save(reference: string, file: string): Promise<void>;
}
