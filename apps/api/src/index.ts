// The public face of the API app, for the benchmarks, the installer's local runtime and tests
// outside this app: build the Koa app from its dependencies, and prepare the databases before it.
export { createApp, type App } from './app.ts';
export type { AppDeps } from './app-context.ts';
export { prepareService } from './prepare-service.ts';
export { openStoredFiles } from './files/open-stored-files.ts';
export { readBuildInfo, type BuildInfo } from './build-info.ts';
export { buildOpenApiDocument } from './system/openapi-document.ts';
export type { WorkspaceRepositories } from './resources/workspace-repositories.ts';
