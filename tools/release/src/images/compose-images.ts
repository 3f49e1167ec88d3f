import { OperatorError } from '@service/cli-kit';
import type { ImageRole } from '@service/release-kit';
import { parse } from 'yaml';

/** Which compose service runs which image role. */
export const SERVICE_ROLES: Record<string, ImageRole> = { app: 'app', db: 'database', files: 'files', proxy: 'proxy' };

export interface ComposeImage {
  role: ImageRole;
  service: string;
  name: string;
  tag: string;
}

/**
 * The images the release's compose.yaml runs, so the package ships exactly those: the third-party
 * ones pinned by tag there, the app's tag being the release version.
 */
export function composeImages(composeText: string, version: string): ComposeImage[] {
  const doc = parse(composeText) as { services?: Record<string, { image?: string }> };
  const images: ComposeImage[] = [];
  for (const [service, role] of Object.entries(SERVICE_ROLES)) {
    const image = doc.services?.[service]?.image;
    if (!image)
      throw new OperatorError(`release/compose.yaml has no image for the ${service} service`, {
        hint: 'Every service of the release runs a pinned image.',
      });
    const reference = role === 'app' ? image.replace(/\$\{SERVICE_VERSION[^}]*\}/, version) : image;
    const match = /^([a-z0-9][a-z0-9._/-]*):([A-Za-z0-9_][A-Za-z0-9_.-]*)$/.exec(reference);
    if (!match || reference.includes('$')) {
      throw new OperatorError(
        `release/compose.yaml service ${service} runs "${image}", which is not name:tag with a fixed tag`,
        { hint: 'Pin third-party images by tag (postgres:17.10-bookworm), never latest or a variable.' },
      );
    }
    if (match[2] === 'latest')
      throw new OperatorError(
        `release/compose.yaml service ${service} runs ${reference}; "latest" is not a pinned version`,
        { hint: 'Pin a version tag.' },
      );
    images.push({ role, service, name: match[1]!, tag: match[2]! });
  }
  return images;
}
