/**
 * What people type for a weakness and what finding templates call it: `IDOR` is an insecure
 * direct object reference, `SQLi` an SQL injection. A search of the finding library also finds
 * the templates a query's abbreviations stand for (`searchAlternatives`).
 */
export const SEARCH_ALIASES: Readonly<Record<string, readonly string[]>> = {
  idor: ['insecure direct object reference', 'object level authorisation', 'object level authorization'],
  bola: ['object level authorisation', 'object level authorization', 'insecure direct object reference'],
  bfla: ['function level authorisation', 'function level authorization'],
  xss: ['cross site scripting'],
  sqli: ['sql injection'],
  csrf: ['cross site request forgery'],
  xsrf: ['cross site request forgery'],
  ssrf: ['server side request forgery'],
  rce: ['remote code execution', 'command injection', 'code injection'],
  lfi: ['local file inclusion', 'path traversal', 'file inclusion'],
  rfi: ['remote file inclusion', 'file inclusion'],
  xxe: ['xml external entity'],
  ssti: ['server side template injection'],
  csti: ['client side template injection'],
  cmdi: ['command injection'],
  hsts: ['strict transport security'],
  csp: ['content security policy'],
  cors: ['cross origin resource sharing'],
  dos: ['denial of service'],
  mfa: ['multi factor authentication', 'two factor authentication'],
  '2fa': ['two factor authentication', 'multi factor authentication'],
  eol: ['end of life', 'unsupported'],
  mitm: ['man in the middle', 'adversary in the middle'],
  jwt: ['json web token'],
  smb: ['server message block'],
  rdp: ['remote desktop'],
};

/** At most this many alternative queries: a query of many abbreviations does not multiply without bound. */
const MAX_ALTERNATIVES = 8;

/**
 * The queries a search also runs besides `q`: each abbreviation of `SEARCH_ALIASES` among its
 * words replaced by what it stands for (`idor access` -> `insecure direct object reference access`, ...).
 */
export function searchAlternatives(q: string): string[] {
  const words = q
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '');
  let variants: string[][] = [words];
  words.forEach((word, i) => {
    const expansions = SEARCH_ALIASES[word.toLowerCase().replace(/[^a-z0-9]/g, '')];
    if (!expansions) return;
    variants = variants.flatMap((v) => [v, ...expansions.map((e) => v.map((w, j) => (j === i ? e : w)))]);
  });
  return [...new Set(variants.slice(1).map((v) => v.join(' ')))].slice(0, MAX_ALTERNATIVES);
}
