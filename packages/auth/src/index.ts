export { API_KEY_PREFIX, generateApiKeySecret, hashApiKey, isWellFormedApiKey } from './api-key-secret.ts';
export {
  hashPassword,
  verifyPassword,
  generatePassword,
  MIN_PASSWORD_LENGTH,
  MAX_PASSWORD_LENGTH,
} from './password.ts';
export { SESSION_COOKIE, SESSION_IDLE_MS, SESSION_ABSOLUTE_MS } from './session-token.ts';
export { authorize, ACTIONS, ROLES, KEY_SCOPES } from './policy.ts';
export type { Action, Caller, Decision, DenialCode, Grant, KeyScope, Role, Target } from './policy.ts';
export { UserRepository, EmailTakenError, LastAdministratorError, toUser, USER_COLUMNS } from './user-repository.ts';
export type { User } from './user-repository.ts';
export {
  ApiKeyRepository,
  DEFAULT_KEY_LIFETIME_MS,
  MAX_ALLOWED_CLIENTS,
  MAX_KEY_LIFETIME_MS,
} from './api-key-repository.ts';
export type { ApiKey, BackgroundErrorLogger, KeyPrincipal } from './api-key-repository.ts';
export { SessionRepository } from './session-repository.ts';
export type { SessionPrincipal } from './session-repository.ts';
export { bootstrapOrganization } from './bootstrap-organization.ts';
export type { BootstrapResult } from './bootstrap-organization.ts';
export * from './license/index.ts';
