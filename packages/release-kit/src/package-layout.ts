// Names of the offline package and its parts, shared by tools/release (which writes them) and the
// installer (which reads them). INSTALLER.md "The package" is the description.

export const MANIFEST_FILE = 'manifest.json';
export const SUMS_FILE = 'SHA256SUMS';
/** Detached signatures: SHA256SUMS and manifest.json are each signed. */
export const SIGNATURE_SUFFIX = '.sig';
export const SIGNED_FILES = [SUMS_FILE, MANIFEST_FILE] as const;
export type SignedFile = (typeof SIGNED_FILES)[number];

/** Files of the package that SHA256SUMS cannot list: itself and the signatures. */
export const UNLISTED_FILES: readonly string[] = [SUMS_FILE, ...SIGNED_FILES.map((f) => `${f}${SIGNATURE_SUFFIX}`)];

export const RELEASE_NOTES_FILE = 'RELEASE_NOTES.md';
export const INSTALL_SCRIPT = 'install.sh';
export const COMPOSE_FILE = 'compose.yaml';
export const COMPOSE_OVERRIDE_FILE = 'compose.override.yaml';
export const ENV_FILE = '.env';
export const ENV_EXAMPLE_FILE = '.env.self-hosted.example';
export const DOCKER_DIR = 'docker';
/** The reverse proxy's configuration: operator-owned, never replaced. */
export const PROXY_CONFIG_FILE = 'docker/Caddyfile';
/** TLS certificates: operator-owned, never replaced. */
export const CERTS_DIR = 'docker/certs';
/** The installer itself (built JavaScript), run by install.sh. */
export const INSTALLER_DIR = 'installer';
export const INSTALLER_ENTRY = 'installer/installer.mjs';
export const IMAGES_DIR = 'images';
export const LIBRARY_DIR = 'library';

/**
 * What an upgrade copies from the package into the installation directory (replacing what is
 * there), in this order. `docker/` is copied without the proxy configuration and `certs/`,
 * which belong to the operator once installed.
 */
export const RELEASE_OWNED_PATHS: readonly string[] = [
  COMPOSE_FILE,
  DOCKER_DIR,
  ENV_EXAMPLE_FILE,
  INSTALL_SCRIPT,
  INSTALLER_DIR,
  LIBRARY_DIR,
  RELEASE_NOTES_FILE,
  MANIFEST_FILE,
  SUMS_FILE,
  ...UNLISTED_FILES.filter((f) => f !== SUMS_FILE),
];

/** Never written by upgrade or restore's file step (restore puts back the backed-up copies only). */
export const OPERATOR_OWNED_PATHS: readonly string[] = [ENV_FILE, COMPOSE_OVERRIDE_FILE, PROXY_CONFIG_FILE, CERTS_DIR];

export function packageDirName(version: string): string {
  return `service-${version}`;
}

export function packageFileName(version: string): string {
  return `service-${version}-offline.tar.gz`;
}
