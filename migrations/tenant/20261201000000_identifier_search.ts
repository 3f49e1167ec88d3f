import type { Knex } from 'knex';

/**
 * Search that finds identifiers as typed (CVE and CWE ids, scanner rule ids, host names, IP
 * addresses, URL paths) besides words, and costs time linear in the text whatever it holds.
 *
 * Why not `to_tsvector('simple', text)` any more: PostgreSQL's default text-search parser splits
 * `CVE-2024-1007` into `cve`, `-2024` and `-1007` (signed numbers), keeps `app.example.com` or a
 * URL path as one token that no word prefix matches, and takes quadratic time on runs of what
 * could start a tag, comment or entity (1 MB of `<!--` ran into the statement timeout).
 *
 * Each searchable table's `search` column is now `search_document(identifiers, text)`:
 * - `search_words`: the whole text, lower-cased (ICU, so every script), with everything that is
 *   not a letter or digit turned into a space by one linear regular-expression pass, then given to
 *   `to_tsvector('simple')`, whose parser is linear on plain words. The first 64,000 characters
 *   keep word positions (so `CVE-2024-1007` is found as the phrase `cve <-> 2024 <-> 1007`); the
 *   words after them are added without positions, at most 6,000 distinct ones of at most 40 bytes,
 *   so the vector stays below PostgreSQL's 1 MB limit for any text.
 * - `search_identifiers`: the short identifier-bearing columns (titles, CVEs, CWEs, scanner rules,
 *   hosts, URLs, references: at most 64 KB) as whole identifiers. Each whitespace-separated token
 *   has its punctuation runs turned into `.`, and every suffix starting at a `.` (at most 32 per
 *   token, at most 64 characters each, 1,000 in all) is a lexeme: `app.example/api/v1/search`
 *   gives `app.example.api.v1.search`, `example.api.v1.search`, `api.v1.search`, ..., so any
 *   part of it from a separator on matches as a prefix (`/api/v1`, `example.com`, `10.0.0.5`).
 * `search_query(q)` builds the matching query: each whitespace-separated term (at most 16) is a
 * word, or for a term with punctuation, the phrase of its parts or the identifier lexeme; a term's
 * last part matches as a prefix unless it is a number (numbers match whole). Both sides fold case
 * the same way in the database, so they always agree.
 */

/** Identifier columns and text columns of each table's search document; `before` is the previous expression. */
const SEARCH: Record<string, { identifiers: string; text: string; before: string }> = {
  clients: {
    identifiers: "coalesce(name, '') || ' ' || coalesce(short_name, '') || ' ' || coalesce(website, '')",
    text: "coalesce(description, '')",
    before: "coalesce(name, '') || ' ' || coalesce(short_name, '') || ' ' || coalesce(description, '')",
  },
  projects: {
    identifiers: "coalesce(name, '') || ' ' || coalesce(project_type, '')",
    text: "coalesce(description, '')",
    before: "coalesce(name, '') || ' ' || coalesce(description, '') || ' ' || coalesce(project_type, '')",
  },
  report_styles: {
    identifiers: "coalesce(name, '')",
    text: "coalesce(description, '')",
    before: "coalesce(name, '') || ' ' || coalesce(description, '')",
  },
  reports: {
    identifiers: "coalesce(title, '')",
    text: "coalesce(summary, '')",
    before: "coalesce(title, '') || ' ' || coalesce(summary, '')",
  },
  report_tabs: {
    identifiers: "coalesce(title, '')",
    text: "coalesce(content, '')",
    before: "coalesce(title, '') || ' ' || coalesce(content, '')",
  },
  findings: {
    identifiers:
      "coalesce(title, '') || ' ' || search_text(cves) || ' ' || search_cwes(cwes) || ' ' || " +
      "search_source(source) || ' ' || search_assets(affected_assets) || ' ' || search_text(\"references\")",
    text: "coalesce(description, '') || ' ' || coalesce(impact, '') || ' ' || coalesce(remediation, '')",
    before:
      "coalesce(title, '') || ' ' || coalesce(description, '') || ' ' || " +
      "coalesce(remediation, '') || ' ' || search_text(cves)",
  },
  report_links: {
    identifiers: "coalesce(title, '') || ' ' || coalesce(url, '')",
    text: "''",
    before: "coalesce(title, '') || ' ' || coalesce(url, '')",
  },
  finding_templates: {
    identifiers:
      "coalesce(title, '') || ' ' || search_text(cves) || ' ' || search_cwes(cwes) || ' ' || " +
      "search_text(scanner_rules) || ' ' || coalesce(global_key, '')",
    text: "coalesce(description, '')",
    before: "coalesce(title, '') || ' ' || coalesce(description, '') || ' ' || search_text(cves)",
  },
  evidence_images: {
    identifiers: "coalesce(file_name, '')",
    text: "coalesce(caption, '')",
    before: "coalesce(file_name, '') || ' ' || coalesce(caption, '')",
  },
  narratives: {
    identifiers: "coalesce(title, '')",
    text: "coalesce(description, '') || ' ' || coalesce(content, '')",
    before: "coalesce(title, '') || ' ' || coalesce(description, '') || ' ' || coalesce(content, '')",
  },
  scoping_templates: {
    identifiers: "coalesce(name, '')",
    text: "coalesce(description, '')",
    before: "coalesce(name, '') || ' ' || coalesce(description, '')",
  },
  project_types: {
    identifiers: "coalesce(name, '')",
    text: "coalesce(description, '')",
    before: "coalesce(name, '') || ' ' || coalesce(description, '')",
  },
};

/**
 * The functions, with `fold` the case folding both the document and the query use. A function that
 * calls another names its schema: a restore (pg_restore) computes the generated columns with an
 * empty search path.
 */
function functions(fold: (expr: string) => string): string[] {
  return [
    // Why immutable: generated columns need it; each reads only its argument.
    `create function search_cwes(integer[]) returns text language sql immutable parallel safe as $$
       select coalesce(string_agg('CWE-' || c, ' '), '') from unnest($1) c $$`,
    `create function search_source(jsonb) returns text language sql immutable parallel safe as $$
       select concat_ws(' ', concat_ws(':', $1->>'scanner', $1->>'ruleId'), $1->>'templateKey') $$`,
    // The places of the first 1,000 affected assets: host, address, port, service, URL, parameter.
    `create function search_assets(jsonb) returns text language sql immutable parallel safe as $$
       select coalesce(string_agg(concat_ws(' ', a->>'host', a->>'ip', a->>'port', a->>'service', a->>'url',
         a->>'parameter'), ' '), '')
       from (select a from jsonb_array_elements(case jsonb_typeof($1) when 'array' then $1 else '[]' end) a
             limit 1000) assets $$`,
    `create function search_words(doc text) returns tsvector language plpgsql immutable parallel safe as $$
     declare
       words text := regexp_replace(${fold('doc')}, '[^[:alnum:]]+', ' ', 'g');
       head text;
       cut int;
     begin
       if length(words) <= 64000 then return to_tsvector('simple', words); end if;
       -- The head ends at the last space in its first 64,000 characters, so no word is cut in two.
       head := left(words, 64000);
       cut := length(head) - position(' ' in reverse(head));
       if cut <= 0 then cut := length(head); end if;
       return to_tsvector('simple', left(words, cut)) || array_to_tsvector(array(
         select w from (select distinct w from unnest(string_to_array(substr(words, cut + 1), ' ')) w
                        where w <> '' and octet_length(w) <= 40) tail limit 6000));
     end $$`,
    `create function search_identifiers(doc text) returns tsvector language plpgsql immutable parallel safe as $$
     declare
       tokens text := regexp_replace(regexp_replace(${fold('left(doc, 65536)')}, '[^[:alnum:][:space:]]+', '.', 'g'),
                                     '[[:space:]]+', ' ', 'g');
       token text;
       dot int;
       suffixes int;
       lexemes text[] := '{}';
     begin
       foreach token in array string_to_array(tokens, ' ') loop
         continue when length(token) > 256;
         token := trim(both '.' from token);
         suffixes := 0;
         loop
           dot := strpos(token, '.');
           exit when dot = 0 or suffixes = 32 or cardinality(lexemes) = 1000;
           lexemes := lexemes || left(token, 64);
           token := substr(token, dot + 1);
           suffixes := suffixes + 1;
         end loop;
         exit when cardinality(lexemes) = 1000;
       end loop;
       return array_to_tsvector(lexemes);
     end $$`,
    `create function search_document(identifiers text, body text) returns tsvector language sql immutable
       parallel safe as $$ select public.search_words(identifiers || ' ' || body) || public.search_identifiers(identifiers) $$`,
    // A lexeme as tsquery input: quoted; our lexemes hold only letters, digits and dots.
    `create function quote_lexeme(text) returns text language sql immutable parallel safe as $$
       select '''' || $1 || '''' $$`,
    // A term's last part is a prefix unless it is a number, which matches whole (CWE-89 is not
    // CWE-890, 10.0.0.5 not 10.0.0.50); identifier lexemes are cut at 64 characters, so a longer
    // identifier is always a prefix.
    `create function search_query(q text) returns tsquery language sql immutable parallel safe as $$
       select string_agg(
                case when cardinality(parts) = 1 then public.quote_lexeme(parts[1]) || tail
                else '(' || array_to_string(array(select public.quote_lexeme(p) from unnest(parts) p), ' <-> ') || tail
                  || ' | ' || public.quote_lexeme(left(joined, 64)) || case when length(joined) >= 64 then ':*' else tail end
                  || ')' end,
                ' & ' order by o)::tsquery
       from (select parts, o, array_to_string(parts, '.') as joined,
                    case when parts[cardinality(parts)] ~ '^[0-9]+$' then '' else ':*' end as tail
             from (select string_to_array(term, '.') as parts, o
                   from (select trim(both '.' from regexp_replace(${fold('t')}, '[^[:alnum:]]+', '.', 'g')) as term, o
                         from unnest(regexp_split_to_array(left(q, 1000), '[[:space:]]+')) with ordinality as terms(t, o)
                         order by o limit 16) folded
                   where term <> '') split) terms $$`,
  ];
}

const DROP_FUNCTIONS = [
  'search_query(text)',
  'quote_lexeme(text)',
  'search_document(text, text)',
  'search_identifiers(text)',
  'search_words(text)',
  'search_assets(jsonb)',
  'search_source(jsonb)',
  'search_cwes(integer[])',
];

async function setSearchColumn(knex: Knex, table: string, expression: string): Promise<void> {
  await knex.raw('alter table ?? drop column search', [table]);
  await knex.raw(`alter table ?? add column search tsvector generated always as (${expression}) stored`, [table]);
  await knex.raw('create index ?? on ?? using gin (search)', [`${table}_search`, table]);
}

export async function up(knex: Knex): Promise<void> {
  // Why ICU when the server has it: the embedded server's databases use the C locale, where
  // lower() and [[:alnum:]] know ASCII only; the ICU root collation folds and classifies every
  // script the same way on every server.
  const { rows } = await knex.raw(`select count(*)::int as n from pg_collation where collname = 'und-x-icu'`);
  const icu = rows[0].n > 0;
  // Lower-cased twice, the second time as the simple dictionary does after us (with the database's
  // collation), so the query's lexemes equal the document's; then classified (letters, digits) by ICU.
  const fold = (expr: string) =>
    icu ? `(lower(lower(${expr} collate "und-x-icu") collate "default") collate "und-x-icu")` : `lower(${expr})`;
  for (const sql of functions(fold)) await knex.raw(sql);
  for (const [table, { identifiers, text }] of Object.entries(SEARCH)) {
    await setSearchColumn(knex, table, `search_document(${identifiers}, ${text})`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [table, { before }] of Object.entries(SEARCH)) {
    await setSearchColumn(knex, table, `to_tsvector('simple', ${before})`);
  }
  for (const fn of DROP_FUNCTIONS) await knex.raw(`drop function ${fn}`);
}
