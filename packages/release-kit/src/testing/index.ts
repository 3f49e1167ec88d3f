// Test helpers for the installer, the release tool and this package. Not for production code.
export { createTestFolder, type TestFolder } from './test-folder.ts';
export {
  createTestSigningKey,
  signTestPackage,
  testImages,
  writeTestPackage,
  type TestPackageOptions,
  type TestSigningKey,
} from './test-package.ts';
export {
  installStandInDocker,
  type DockerCall,
  type StandInAnswer,
  type StandInDocker,
} from './install-stand-in-docker.ts';
