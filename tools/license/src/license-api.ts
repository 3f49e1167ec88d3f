// The licence API the commands use, from the auth package's public face.
export * from '@service/auth';
