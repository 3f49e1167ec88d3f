// The licence module of the auth package, imported by relative path until packages/auth has its
// public index; then this becomes `export * from '@service/auth';` and nothing else changes.
export * from '../../../packages/auth/src/license/index.ts';
