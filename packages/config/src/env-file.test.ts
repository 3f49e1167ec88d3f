// The one reader of `.env` (the service's configuration and the installer use it): every form the
// installer's documentation, the README and the example file use, read as docker compose reads it.
import { describe, expect, it } from 'vitest';
import { parseEnvFile } from './env-file.ts';

const FORMS: Array<[string, string, Record<string, string>]> = [
  ['a bare value', 'PORT=3000', { PORT: '3000' }],
  ['spaces around the value', 'HOST =  0.0.0.0  ', { HOST: '0.0.0.0' }],
  ['an empty value', 'SMTP_PASSWORD=', { SMTP_PASSWORD: '' }],
  ['empty double quotes', 'SMTP_PASSWORD=""', { SMTP_PASSWORD: '' }],
  ['empty single quotes', "SMTP_PASSWORD=''", { SMTP_PASSWORD: '' }],
  [
    '= in a bare value',
    'DATABASE_URL=postgres://u:p@db:5432/service?sslmode=require&a=b',
    { DATABASE_URL: 'postgres://u:p@db:5432/service?sslmode=require&a=b' },
  ],
  ['= in a quoted value', 'TOKEN="a=b=c"', { TOKEN: 'a=b=c' }],
  ['an export prefix', 'export SERVICE_VERSION=1.2.3', { SERVICE_VERSION: '1.2.3' }],
  [
    'comment lines and blank lines',
    '# set by the installer\n\n   \nSERVICE_VERSION=1.2.3\n# end',
    { SERVICE_VERSION: '1.2.3' },
  ],
  ['a comment after a bare value', 'LOG_LEVEL=info # debug for more', { LOG_LEVEL: 'info' }],
  ['# inside a bare value (compose keeps it)', 'SMTP_PASSWORD=abc#123', { SMTP_PASSWORD: 'abc#123' }],
  ['# inside double quotes', 'NOTE="not # a comment"', { NOTE: 'not # a comment' }],
  ['# inside single quotes', "NOTE='not # a comment'", { NOTE: 'not # a comment' }],
  ['a comment after a quoted value', 'NOTE="kept" # dropped', { NOTE: 'kept' }],
  ['single quotes, literal', 'SECRET=\'a\\nb $HOME "q"\'', { SECRET: 'a\\nb $HOME "q"' }],
  ['double quotes with \\n', 'MOTD="line one\\nline two"', { MOTD: 'line one\nline two' }],
  ['spaces inside quotes', 'NAME="  padded  "', { NAME: '  padded  ' }],
  [
    'CRLF line endings',
    'A=1\r\nB="two"\r\nC=\'three\'\r\n# c\r\n\r\nD=four # note\r\n',
    { A: '1', B: 'two', C: 'three', D: 'four' },
  ],
  ['a later line winning', 'A=first\nA=second', { A: 'second' }],
  ['a byte order mark', '\uFEFFA=1\nB=2', { A: '1', B: '2' }],
  ['a password with symbols', 'POSTGRES_PASSWORD=Xy9-_.~+/@:,Zq', { POSTGRES_PASSWORD: 'Xy9-_.~+/@:,Zq' }],
];

describe('parseEnvFile', () => {
  it.each(FORMS)('reads %s', (_form, text, expected) => {
    const parsed = parseEnvFile(text);
    expect(parsed.problems).toEqual([]);
    expect(Object.fromEntries(parsed.values)).toEqual(expected);
  });

  it('names each line that is not a setting, and reads the others', () => {
    const parsed = parseEnvFile('A=1\nnot a setting\n1BAD=x\nB="open\nC=3');
    expect(parsed.problems).toEqual([
      { line: 2, message: 'is not KEY=value' },
      { line: 3, message: 'has the invalid name "1BAD" (letters, digits and _ only)' },
      { line: 4, message: 'has an unterminated quote in the value of B' },
    ]);
    expect(Object.fromEntries(parsed.values)).toEqual({ A: '1', C: '3' });
  });
});
