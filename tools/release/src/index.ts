// The release tool's programmatic face, for the installer's end-to-end test and the benchmark.
export { buildRelease, formatBytes, type BuildReleaseOptions, type BuiltRelease } from './build-release.ts';
export { buildApp, APP_ENTRIES, type BuildAppOptions, type BuiltApp } from './build/build-app.ts';
export { buildInstaller } from './build/build-installer.ts';
export { DockerCli } from './images/docker-cli.ts';
export type { ImageEngine } from './images/image-engine.ts';
export { cutReleaseNotes, changelogVersions } from './changelog/release-notes.ts';
