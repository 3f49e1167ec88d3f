export { loadConfig, deriveDatabaseUrls } from './load-config.ts';
export type { Config, DatabaseUrls, Edition, LogLevel } from './load-config.ts';
export { ConfigError } from './config-error.ts';
export { ENV_KEY, parseEnvFile, type EnvProblem, type ParsedEnv } from './env-file.ts';
export type { FilesStoreConfig } from './files-store-settings.ts';
