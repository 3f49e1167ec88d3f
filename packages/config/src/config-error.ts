/** A setting that is missing or invalid. The message names the setting, never its value. */
export class ConfigError extends Error {
  readonly setting: string;

  constructor(setting: string, reason: string) {
    super(`Invalid setting ${setting}: ${reason}`);
    this.name = 'ConfigError';
    this.setting = setting;
  }
}
