import { Type } from 'typebox';
import cvssCalculator from 'ae-cvss-calculator';

export const CVSS_VERSIONS = ['2.0', '3.0', '3.1', '4.0'] as const;
export type CvssVersion = (typeof CVSS_VERSIONS)[number];
export const CvssVersionSchema = Type.Enum([...CVSS_VERSIONS]);

const Score = Type.Number({ minimum: 0, maximum: 10 });

/**
 * One CVSS rating of a finding. Scanners give a vector and a score, sometimes only one of them
 * (Tenable WAS writes scores only), and sometimes a temporal vector and score (Nessus).
 */
export const CvssSchema = Type.Object(
  {
    version: CvssVersionSchema,
    vector: Type.Union([Type.String({ maxLength: 300 }), Type.Null()], {
      description: 'The vector (v2 without prefix, v3 and v4 with `CVSS:x.y/`); null when only a score is known.',
    }),
    baseScore: Type.Union([Score, Type.Null()], { description: 'null when only a vector is known.' }),
    temporalScore: Type.Optional(Type.Union([Score, Type.Null()])),
    temporalVector: Type.Optional(Type.Union([Type.String({ maxLength: 300 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type Cvss = Type.Static<typeof CvssSchema>;

/** Version of a CVSS vector from its prefix; null when it cannot be told. */
export function cvssVersionOfVector(vector: string): CvssVersion | null {
  const match = /^CVSS:(\d\.\d)\//.exec(vector);
  if (match !== null) {
    const version = match[1];
    return version === '3.0' || version === '3.1' || version === '4.0' ? version : null;
  }
  // Why: v2 vectors have no prefix (Nessus writes `CVSS2#`), but only v2 has the Au metric.
  if (vector.startsWith('CVSS2#') || /(^|\/)Au:[MSN]/.test(vector)) return '2.0';
  return null;
}

/** Strips Nessus' `CVSS2#` prefix; adds `CVSS:3.x/` to a v3 vector written without its prefix. */
export function normalizeCvssVector(vector: string, version: CvssVersion): string {
  let value = vector.trim();
  if (value.startsWith('CVSS2#')) value = value.slice(6);
  if ((version === '3.0' || version === '3.1') && !value.startsWith('CVSS:')) value = `CVSS:${version}/${value}`;
  return value;
}

/** A CVSS score between 0 and 10, or null for empty or nonsense text. */
export function parseCvssScore(text: string | number | undefined | null): number | null {
  if (text === undefined || text === null) return null;
  const value = typeof text === 'number' ? text : text.trim() === '' ? Number.NaN : Number(text);
  return Number.isFinite(value) && value >= 0 && value <= 10 ? value : null;
}

export interface CvssScores {
  version: CvssVersion;
  base: number;
  /** v2/v3 temporal or v4 threat score, when the vector carries those metrics. */
  temporal: number | null;
}

/**
 * Parses a vector and computes its scores with a maintained calculator (ae-cvss-calculator,
 * which implements the FIRST specifications of v2, v3.0, v3.1 and v4.0). Throws with a message
 * naming what is wrong when the vector does not parse.
 */
export function scoreCvssVector(vector: string): CvssScores {
  const version = cvssVersionOfVector(vector);
  if (version === null) throw new Error(`"${vector}" is not a CVSS v2, v3.0, v3.1 or v4.0 vector`);
  let scores: { base?: number; overall?: number; temporal?: number; threat?: number };
  const parsed = (() => {
    try {
      return cvssCalculator.fromVector(normalizeCvssVector(vector, version));
    } catch (err) {
      throw new Error(`"${vector}" is not a valid CVSS ${version} vector: ${(err as Error).message}`);
    }
  })();
  // Why: the calculator answers null, not an error, for a metric value it does not know.
  if (!parsed) throw new Error(`"${vector}" is not a valid CVSS ${version} vector: a metric or its value is unknown`);
  try {
    scores = parsed.calculateScores() as typeof scores;
  } catch (err) {
    throw new Error(`"${vector}" is not a valid CVSS ${version} vector: ${(err as Error).message}`);
  }
  if (typeof scores.base !== 'number' || Number.isNaN(scores.base))
    throw new Error(`"${vector}" lacks base metrics of CVSS ${version}`);
  const temporal =
    typeof scores.temporal === 'number' ? scores.temporal : typeof scores.threat === 'number' ? scores.threat : null;
  return { version, base: scores.base, temporal };
}
