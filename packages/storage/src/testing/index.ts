export { CEPH_HINT, CEPH_PACKAGES, missingCephBinaries, s3Env, startCephRgw, stopCephRgw } from './ceph-rgw.ts';
export { s3TestSettings, s3TestsRun, s3Unavailable } from './s3-test-store.ts';
