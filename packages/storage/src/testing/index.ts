export { CEPH_HINT, CEPH_PACKAGES, missingCephBinaries, startCephRgw, stopCephRgw } from './ceph-rgw.ts';
export { s3Env, s3TestSettings, s3TestsRun, s3Unavailable } from './s3-test-store.ts';
