export {
  createTestDatabases,
  ensureTemplateDatabases,
  testDatabaseServerUrl,
  testDatabaseUse,
} from './create-test-databases.ts';
export type { TestDatabases } from './create-test-databases.ts';
export { waitUntil } from './wait-until.ts';
