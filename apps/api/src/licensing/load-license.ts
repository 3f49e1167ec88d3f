import { readFile } from 'node:fs/promises';
import type { Knex } from 'knex';
import {
  buildTrustedKeys,
  createEvaluationLicense,
  evaluationLicenseFromRecord,
  LicenseError,
  verifyLicense,
  type License,
} from '@service/auth';

export class LicenseLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LicenseLoadError';
  }
}

/**
 * The licence this installation runs on:
 * - `LICENSE_FILE` set: that file, verified against the vendor key and `LICENSE_TRUSTED_KEYS`
 *   (a broken file stops the start; an expired one loads and the API answers `api_not_licensed`);
 * - otherwise, on the embedded evaluation database: a 30-day evaluation licence, issued once on
 *   first start and stored, so restarts do not extend it;
 * - otherwise none: real database URLs never get an evaluation licence.
 */
export async function loadLicense(options: {
  licenseFile: string | null;
  trustedKeys: string[];
  embedded: boolean;
  controlPlane: Knex;
  now?: Date;
}): Promise<License | null> {
  const now = options.now ?? new Date();
  if (options.licenseFile) {
    let text: string;
    try {
      text = await readFile(options.licenseFile, 'utf8');
    } catch {
      throw new LicenseLoadError(
        `Cannot read the licence file ${options.licenseFile} (LICENSE_FILE); check the path and its permissions.`,
      );
    }
    try {
      return verifyLicense(text, { trustedKeys: buildTrustedKeys(options.trustedKeys), now });
    } catch (err) {
      if (err instanceof LicenseError)
        throw new LicenseLoadError(`The licence file ${options.licenseFile} is not valid: ${err.message}`);
      throw err;
    }
  }
  if (!options.embedded) return null;
  return options.controlPlane.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(727002)');
    const stored = await trx('licenses').where({ kind: 'evaluation' }).first();
    if (stored) return evaluationLicenseFromRecord(stored.license, now);
    const license = createEvaluationLicense(now);
    await trx('licenses').insert({
      id: license.id,
      kind: 'evaluation',
      license: JSON.stringify({ id: license.id, issuedAt: license.issuedAt, expiresAt: license.expiresAt }),
    });
    return license;
  });
}
