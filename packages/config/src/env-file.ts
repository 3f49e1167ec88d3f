// The one reader of `.env` files: the service's configuration and the installer both use it, so a
// file means the same to both (and to docker compose, whose reading it follows).

/** A line of `.env` that is not a setting, with its number (1-based). */
export interface EnvProblem {
  line: number;
  message: string;
}

export interface ParsedEnv {
  values: Map<string, string>;
  problems: EnvProblem[];
}

/** A setting's name. */
export const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ASSIGNMENT = /^\s*(?:export\s+)?([^=\s]+)\s*=(.*)$/;

/**
 * Reads `.env` as docker compose does: `KEY=value` lines, `#` comments, blank lines,
 * optional `export`, values bare (a ` #` starts a comment), in single quotes (literal) or double
 * quotes (`\n` escapes). A later line wins. Every line that is none of these is a problem with its
 * number, so "malformed .env" names the line instead of guessing.
 */
export function parseEnvFile(text: string): ParsedEnv {
  const values = new Map<string, string>();
  const problems: EnvProblem[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = ASSIGNMENT.exec(raw);
    if (!match) {
      problems.push({ line: i + 1, message: 'is not KEY=value' });
      return;
    }
    const [, key = '', rawValue = ''] = match;
    if (!ENV_KEY.test(key)) {
      problems.push({ line: i + 1, message: `has the invalid name "${key}" (letters, digits and _ only)` });
      return;
    }
    const value = readValue(rawValue.trim());
    if (value === null) {
      problems.push({ line: i + 1, message: `has an unterminated quote in the value of ${key}` });
      return;
    }
    values.set(key, value);
  });
  return { values, problems };
}

function readValue(raw: string): string | null {
  if (raw.startsWith('"')) {
    const end = findClosingQuote(raw, '"');
    if (end < 0) return null;
    return raw
      .slice(1, end)
      .replace(/\\n/g, '\n')
      .replace(/\\(["\\])/g, '$1');
  }
  if (raw.startsWith("'")) {
    const end = raw.indexOf("'", 1);
    if (end < 0) return null;
    return raw.slice(1, end);
  }
  const comment = raw.search(/\s#/);
  return (comment >= 0 ? raw.slice(0, comment) : raw).trim();
}

function findClosingQuote(raw: string, quote: string): number {
  for (let i = 1; i < raw.length; i++) {
    if (raw[i] === '\\') i++;
    else if (raw[i] === quote) return i;
  }
  return -1;
}
