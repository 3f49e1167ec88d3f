import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { buildTrustedKeys, describeLicense, licenseAllows, verifyLicense } from '@service/auth';
import { LICENSE_DIR } from '../install-dir/install-layout.ts';

/**
 * The installation's licence, as status shows it: holder, expiry, whether the API feature is in
 * it. LICENSE_FILE names the file as the app sees it (/license/<name>, the installation's
 * license/ folder).
 */
export async function describeInstalledLicense(
  home: string,
  env: ReadonlyMap<string, string>,
  now: Date,
): Promise<string> {
  const setting = env.get('LICENSE_FILE')?.trim();
  if (!setting) return 'none installed (LICENSE_FILE is empty): the REST API answers 403 api_not_licensed';
  const file = setting.startsWith('/license/')
    ? path.join(home, LICENSE_DIR, setting.slice('/license/'.length))
    : setting;
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return `LICENSE_FILE=${setting}, but ${file} cannot be read: the service will not start`;
  try {
    const extra = (env.get('LICENSE_TRUSTED_KEYS') ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
    const license = verifyLicense(text, { trustedKeys: buildTrustedKeys(extra), now });
    return `${describeLicense(license, now)}; REST API feature: ${licenseAllows(license, 'api', now) ? 'yes' : 'no'}`;
  } catch (err) {
    return `${file} is not a valid licence: ${(err as Error).message}`;
  }
}
