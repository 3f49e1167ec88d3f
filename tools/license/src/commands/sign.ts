import { createPublicKey, randomUUID } from 'node:crypto';
import path from 'node:path';
import { defineCommand, OperatorError } from '@service/cli-kit';
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
import { helpHint, type LicenseContext } from '../license-context.ts';
import { readInputFile } from '../read-input-file.ts';
import { writeNewFile } from '../write-new-file.ts';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

interface SignInput {
  key: string;
  holder: string;
  edition: string;
  features: string;
  seats: string;
  expires: string;
  out?: string;
}

export const signCommand = defineCommand<LicenseContext, SignInput>({
  name: 'sign',
  summary: 'Issues a licence file signed with a private key from keygen; prints it, or writes it with --out.',
  options: [
    { flags: '--key <private.pem>', required: true, description: 'private key written by keygen' },
    { flags: '--holder <name>', required: true, description: 'customer the licence is issued to' },
    { flags: '--edition <edition>', required: true, description: `one of ${LICENSE_EDITIONS.join(', ')}` },
    {
      flags: '--features <list>',
      required: true,
      description: `comma-separated, from ${ALL_FEATURES.join(', ')}; or "all"`,
    },
    { flags: '--seats <n>', required: true, description: 'number of seats, at least 1' },
    {
      flags: '--expires <date>',
      required: true,
      description: 'YYYY-MM-DD (valid through the end of that day, UTC) or an ISO timestamp',
    },
    { flags: '--out <file>', description: 'write the licence here instead of printing it; never overwrites' },
  ],
  examples: [
    'npm run license -- sign --key ~/licence-keys/license-signing.key.pem --holder ' +
      '"Acme Ltd" --edition self-hosted --features api,docx-export --seats 10 --expires ' +
      '2027-12-31 --out acme.license',
  ],
  async run(ctx, input) {
    const keyFile = path.resolve(ctx.cwd, input.key);
    const now = ctx.now();
    const payload: LicensePayload = {
      id: randomUUID(),
      holder: input.holder.trim(),
      edition: parseEdition(input.edition),
      features: parseFeatures(input.features),
      seats: parseSeats(input.seats),
      issuedAt: now.toISOString(),
      expiresAt: parseExpiry(input.expires, now),
    };
    const keyHint = 'Pass the license-signing.key.pem written by `npm run license -- keygen`.';
    const privateKey = parseSigningKey(await readInputFile(keyFile, 'signing key', keyHint), keyFile);
    const text = signLicense(payload, privateKey);
    // Why verify what was just signed: a licence that fails at the customer is far costlier than
    // one refused here, and it yields the summary printed below.
    const publicKey = createPublicKey(privateKey);
    const license = verifyLicense(text, { trustedKeys: [{ keyId: keyIdOf(publicKey), publicKey }], now });

    const out = input.out;
    if (out === undefined) {
      ctx.out(text.trimEnd());
      return;
    }
    const outFile = path.resolve(ctx.cwd, out);
    await writeNewFile(outFile, text, 0o644);
    ctx.out(`Wrote licence ${license.id} (key ${license.keyId}) to ${outFile}: ${describeLicense(license, now)}`);
  },
});

function parseEdition(raw: string): LicenseEdition {
  if (!LICENSE_EDITIONS.includes(raw as LicenseEdition)) {
    throw new OperatorError(`--edition "${raw}" is not one of ${LICENSE_EDITIONS.join(', ')}`, {
      hint: helpHint('sign'),
    });
  }
  return raw as LicenseEdition;
}

// Why refuse unknown names here although the service tolerates them: in the vendor's hands an
// unknown name is a typo, and a licence with "apii" would silently lack the API.
function parseFeatures(raw: string): string[] {
  if (raw.trim() === 'all') return [...ALL_FEATURES];
  const names = [
    ...new Set(
      raw
        .split(',')
        .map((f) => f.trim())
        .filter((f) => f !== ''),
    ),
  ];
  const unknown = names.filter((f) => !(ALL_FEATURES as readonly string[]).includes(f));
  if (unknown.length > 0) {
    throw new OperatorError(
      `unknown feature ${unknown.map((f) => `"${f}"`).join(', ')}; known features: ${ALL_FEATURES.join(', ')}`,
      { hint: helpHint('sign') },
    );
  }
  if (names.length === 0)
    throw new OperatorError('--features lists no feature', {
      hint: `Name at least one of ${ALL_FEATURES.join(', ')}, or "all".`,
    });
  return names;
}

function parseSeats(raw: string): number {
  const seats = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(seats) || seats < 1) {
    throw new OperatorError(`--seats "${raw}" is not a whole number of at least 1`, { hint: helpHint('sign') });
  }
  return seats;
}

function parseExpiry(raw: string, now: Date): string {
  // Why the end of the day: "expires 2027-12-31" reads as "valid on 2027-12-31".
  const iso = DATE_ONLY.test(raw) ? `${raw}T23:59:59.999Z` : raw;
  const time = Date.parse(iso);
  if (!Number.isFinite(time) || !iso.includes('T')) {
    throw new OperatorError(`--expires "${raw}" is not a date`, {
      hint: 'Give a date as YYYY-MM-DD, e.g. --expires 2027-12-31.',
    });
  }
  if (time <= now.getTime()) {
    throw new OperatorError(`--expires ${raw} is not in the future (now is ${now.toISOString()})`, {
      hint: 'Give a later date.',
    });
  }
  return new Date(time).toISOString();
}
