import { createPublicKey, randomUUID } from 'node:crypto';
import path from 'node:path';
import { CliError } from '../cli-error.ts';
import { helpHint, type Command } from '../command.ts';
import {
  ALL_FEATURES,
  LICENSE_EDITIONS,
  describeLicense,
  keyIdOf,
  parseSigningKey,
  signLicense,
  verifyLicense,
  type LicenseEdition,
  type LicensePayload,
} from '../license-api.ts';
import { readInputFile } from '../read-input-file.ts';
import { writeNewFile } from '../write-new-file.ts';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export const signCommand: Command = {
  name: 'sign',
  summary: 'Issues a licence file signed with a private key from keygen; prints it, or writes it with --out.',
  arguments: [],
  options: [
    { name: 'key', value: '<private.pem>', required: true, description: 'private key written by keygen' },
    { name: 'holder', value: '<name>', required: true, description: 'customer the licence is issued to' },
    { name: 'edition', value: '<edition>', required: true, description: `one of ${LICENSE_EDITIONS.join(', ')}` },
    { name: 'features', value: '<list>', required: true, description: `comma-separated, from ${ALL_FEATURES.join(', ')}; or "all"` },
    { name: 'seats', value: '<n>', required: true, description: 'number of seats, at least 1' },
    { name: 'expires', value: '<date>', required: true, description: 'YYYY-MM-DD (valid through the end of that day, UTC) or an ISO timestamp' },
    { name: 'out', value: '<file>', description: 'write the licence here instead of printing it; never overwrites' },
  ],
  examples: ['npm run license -- sign --key ~/licence-keys/license-signing.key.pem --holder "Acme Ltd" --edition self-hosted --features api,docx-export --seats 10 --expires 2027-12-31 --out acme.license'],
  async run(ctx, input) {
    const keyFile = path.resolve(ctx.cwd, input.required('key'));
    const now = ctx.now();
    const payload: LicensePayload = {
      id: randomUUID(),
      holder: input.required('holder').trim(),
      edition: parseEdition(input.required('edition')),
      features: parseFeatures(input.required('features')),
      seats: parseSeats(input.required('seats')),
      issuedAt: now.toISOString(),
      expiresAt: parseExpiry(input.required('expires'), now),
    };
    const keyHint = 'Pass the license-signing.key.pem written by `npm run license -- keygen`.';
    const privateKey = parseSigningKey(await readInputFile(keyFile, 'signing key', keyHint), keyFile);
    const text = signLicense(payload, privateKey);
    // Why verify what was just signed: a licence that fails at the customer is far costlier than
    // one refused here, and it yields the summary printed below.
    const publicKey = createPublicKey(privateKey);
    const license = verifyLicense(text, { trustedKeys: [{ keyId: keyIdOf(publicKey), publicKey }], now });

    const out = input.optional('out');
    if (out === undefined) {
      ctx.out(text.trimEnd());
      return;
    }
    const outFile = path.resolve(ctx.cwd, out);
    await writeNewFile(outFile, text, 0o644);
    ctx.out(`Wrote licence ${license.id} (key ${license.keyId}) to ${outFile}: ${describeLicense(license, now)}`);
  },
};

function parseEdition(raw: string): LicenseEdition {
  if (!LICENSE_EDITIONS.includes(raw as LicenseEdition)) {
    throw new CliError(`--edition "${raw}" is not one of ${LICENSE_EDITIONS.join(', ')}`, helpHint('sign'));
  }
  return raw as LicenseEdition;
}

// Why refuse unknown names here although the service tolerates them: in the vendor's hands an
// unknown name is a typo, and a licence with "apii" would silently lack the API.
function parseFeatures(raw: string): string[] {
  if (raw.trim() === 'all') return [...ALL_FEATURES];
  const names = [...new Set(raw.split(',').map((f) => f.trim()).filter((f) => f !== ''))];
  const unknown = names.filter((f) => !(ALL_FEATURES as readonly string[]).includes(f));
  if (unknown.length > 0) {
    throw new CliError(`unknown feature ${unknown.map((f) => `"${f}"`).join(', ')}; known features: ${ALL_FEATURES.join(', ')}`, helpHint('sign'));
  }
  if (names.length === 0) throw new CliError('--features lists no feature', `Name at least one of ${ALL_FEATURES.join(', ')}, or "all".`);
  return names;
}

function parseSeats(raw: string): number {
  const seats = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(seats) || seats < 1) {
    throw new CliError(`--seats "${raw}" is not a whole number of at least 1`, helpHint('sign'));
  }
  return seats;
}

function parseExpiry(raw: string, now: Date): string {
  // Why the end of the day: "expires 2027-12-31" reads as "valid on 2027-12-31".
  const iso = DATE_ONLY.test(raw) ? `${raw}T23:59:59.999Z` : raw;
  const time = Date.parse(iso);
  if (!Number.isFinite(time) || !iso.includes('T')) {
    throw new CliError(`--expires "${raw}" is not a date`, 'Give a date as YYYY-MM-DD, e.g. --expires 2027-12-31.');
  }
  if (time <= now.getTime()) {
    throw new CliError(`--expires ${raw} is not in the future (now is ${now.toISOString()})`, 'Give a later date.');
  }
  return new Date(time).toISOString();
}
