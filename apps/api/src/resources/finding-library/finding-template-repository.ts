import type { Knex } from 'knex';
import { Type } from 'typebox';
import { ValidationError } from '@service/http';
import {
  CveIdSchema,
  CweIdSchema,
  FINDING_CONTENT_COLUMNS,
  findingContentFromColumns,
  FindingTranslationSchema,
  type FindingContent,
  type FindingTranslation,
  type FindingContentColumns,
  LanguageSchema,
  SeveritySchema,
} from '@service/report-model';
import {
  buildTemplateMatchIndex,
  FINDING_TEMPLATE_MATCH_COLUMNS,
  titlePatternProblem,
  matchableTemplateOfRow,
  matchScanFinding,
  searchAlternatives,
  type FindingTemplateMatchRow,
  type MatchConfidence,
  type MatchedOn,
  type TemplateMatch as LibraryMatch,
} from '@service/library';
import {
  ruleIdProblem,
  SCAN_FORMATS,
  SCANNER_RULE_EXAMPLES,
  PATTERN_CONDITION_KINDS,
  SCANNER_RULE_PATTERN,
  SCANNERS,
  TITLE_PATTERN_MAX_CHARS,
  TITLE_PATTERN_RULE,
  type CompleteFinding,
  type ScanFormat,
} from '@service/scanners';
import { baseFields } from '../field.ts';
import { findingContentFields } from '../findings/finding-fields.ts';
import { declareResource } from '../resource-declaration.ts';
import { ResourceRepository } from '../resource-repository.ts';
import { workspaceVisibility } from '../visibility.ts';
import { languageField, libraryFields, libraryFilters } from '../library-fields.ts';

/** The curated content a matching template gives a new scanner finding. */
export interface MatchedTemplate {
  id: string;
  globalKey: string | null;
  /** In the report's language where the template has it, else in the template's own. */
  content: FindingContent;
  /** Set when the report's language was wanted and the template lacks it: the language used. */
  untranslated: string | null;
}

/** `de-DE` -> `de`: translations are kept by primary language. */
const primaryLanguage = (language: string) => language.split('-')[0]!.toLowerCase();

/** A scanner result and the template it takes, if any. */
export interface MatchedScanResult {
  result: CompleteFinding;
  match: TemplateMatch | null;
}

export interface TemplateMatch {
  template: MatchedTemplate;
  /** Why it matched: the scanner rule id, a CVE, a CWE or a title pattern, and which one. */
  matchedOn: MatchedOn;
  detail: string;
  confidence: MatchConfidence;
}

/** `Nessus: family, cpe, ...; Burp: none` */
const CONDITIONS_BY_SCANNER = SCAN_FORMATS.map(
  (s) => `${SCANNERS[s].label}: ${SCANNERS[s].conditions.join(', ') || 'none'}`,
).join('; ');

function findingTemplatesDeclaration() {
  return declareResource()({
    name: 'finding-library',
    schemaName: 'FindingTemplate',
    label: 'finding template',
    tag: 'Finding library',
    description:
      'Shared finding templates. `scannerRules` (e.g. `nessus:57608`, ' +
      '`nuclei:git-config`, `burp:5245344`) and `cves` let scanner imports replace ' +
      "scanner text with the template's curated text. Not visible to external " +
      'collaborators.',
    table: 'finding_templates',
    visibility: workspaceVisibility,
    fields: {
      ...baseFields,
      ...findingContentFields,
      scannerRules: {
        column: 'scanner_rules',
        schema: Type.Array(
          Type.String({ pattern: SCANNER_RULE_PATTERN, maxLength: 300, examples: [...SCANNER_RULE_EXAMPLES] }),
          {
            maxItems: 200,
            uniqueItems: true,
            description:
              '"<scanner>:<rule id>" pairs this template stands for; the strongest match. A rule is the rule id ' +
              "the scanner's findings carry, or `<condition>=<value>` conditions joined by ` & ` " +
              `(${CONDITIONS_BY_SCANNER}; docs/library-authoring.md). The pattern states every rule the server ` +
              `checks but one: a ${PATTERN_CONDITION_KINDS.map((k) => `\`${k}=\``).join(', ')} value must also be a ` +
              `usable title pattern (${TITLE_PATTERN_RULE}). ` +
              'Otherwise 400 `validation_failed` naming `/scannerRules`.',
          },
        ),
        create: 'optional',
        update: true,
      },
      matchCves: {
        column: 'match_cves',
        schema: Type.Array(CveIdSchema, {
          maxItems: 1000,
          uniqueItems: true,
          description: 'CVEs a scanner finding may carry to match (besides `cves`).',
        }),
        create: 'optional',
        update: true,
      },
      matchCwes: {
        column: 'match_cwes',
        schema: Type.Array(CweIdSchema, {
          maxItems: 100,
          uniqueItems: true,
          description: 'CWEs a scanner finding may carry to match.',
        }),
        create: 'optional',
        update: true,
      },
      titlePatterns: {
        column: 'title_patterns',
        schema: Type.Object(
          Object.fromEntries(
            SCAN_FORMATS.map((s) => [
              s,
              Type.Optional(
                Type.Array(Type.String({ minLength: 1, maxLength: TITLE_PATTERN_MAX_CHARS }), { maxItems: 50 }),
              ),
            ]),
          ),
          {
            additionalProperties: false,
            description:
              'Per scanner, JavaScript regular expressions matched case-insensitively against a ' +
              `scanner finding's title (the weakest match). Each must be a usable title pattern ` +
              `(${TITLE_PATTERN_RULE}); otherwise 400 \`validation_failed\` naming \`/titlePatterns/<scanner>\`.`,
          },
        ),
        create: 'optional',
        update: true,
        json: true,
      },
      matchFallback: {
        column: 'match_fallback',
        schema: Type.Boolean({
          description:
            'A generic template (missing patches, outdated software): it matches only when no more specific ' +
            'template does.',
        }),
        create: 'optional',
        update: true,
      },
      ...languageField,
      translations: {
        column: 'translations',
        schema: Type.Record(LanguageSchema, FindingTranslationSchema, {
          description: 'The text in other languages, by language: `{"de": {"title": ..., "description": ...}}`.',
        }),
        create: 'optional',
        update: true,
        json: true,
      },
      ...libraryFields,
    },
    checkInput(input) {
      for (const rule of (input.scannerRules as string[] | undefined) ?? []) {
        const [scanner, ...rest] = rule.split(':');
        const problem = ruleIdProblem(scanner as ScanFormat, rest.join(':'));
        if (problem)
          throw new ValidationError(`The scanner rule ${rule} is not valid: ${problem}.`, [
            { path: '/scannerRules', message: problem },
          ]);
      }
      for (const [scanner, patterns] of Object.entries(
        (input.titlePatterns as Record<string, string[]> | undefined) ?? {},
      )) {
        for (const pattern of patterns) {
          const problem = titlePatternProblem(pattern);
          if (problem)
            throw new ValidationError(`The title pattern ${pattern} is not valid: ${problem}.`, [
              { path: `/titlePatterns/${scanner}`, message: problem },
            ]);
        }
      }
    },
    order: [['r.title', 'asc']],
    // Why: people search for `IDOR` or `SQLi`; a template named for what was searched comes first.
    search: { alternatives: searchAlternatives, rankFirst: 'r.title' },
    filters: {
      severity: {
        schema: SeveritySchema,
        description: 'Only templates of this severity.',
        apply: (q, v: string) => void q.where('r.severity', v),
      },
      scanner_rule: {
        schema: Type.String({ maxLength: 300 }),
        description: 'Only templates declaring this "<scanner>:<rule id>".',
        apply: (q, v: string) => void q.whereRaw('? = any(r.scanner_rules)', [v]),
      },
      ...libraryFilters({ language: true }),
    },
    create: {
      example: {
        title: 'Exposed .git directory',
        severity: 'medium',
        scannerRules: ['nuclei:git-config'],
        description: 'The web root serves the .git folder...',
        remediation: 'Block access to /.git.',
      },
    },
  });
}

/** The finding library of a workspace: finding templates, and picking one for a scanner finding. */
export class FindingTemplateRepository extends ResourceRepository<
  ReturnType<typeof findingTemplatesDeclaration>['fields']
> {
  constructor() {
    super(findingTemplatesDeclaration());
  }

  /**
   * Each scanner result with the template it takes, by the library's rules (`matchScanFinding`: a
   * rule whose occurrences take different templates becomes one result per template, its group
   * key naming the template):
   * your own templates come before global ones, so they win ties; then the oldest. The template's
   * text is in the report's language where it has it. External collaborators get no templates:
   * the library is not theirs.
   */
  async matchScanResults(
    trx: Knex,
    principal: { role: string },
    results: readonly CompleteFinding[],
    language: string,
  ): Promise<MatchedScanResult[]> {
    const unmatched = () => results.map((result) => ({ result, match: null }));
    if (results.length === 0 || principal.role === 'external') return unmatched();
    const rows = (await trx('finding_templates')
      .orderByRaw('(global_key is not null), created_at, id')
      .select([...FINDING_TEMPLATE_MATCH_COLUMNS])) as FindingTemplateMatchRow[];
    if (rows.length === 0) return unmatched();
    const index = buildTemplateMatchIndex(rows.map(matchableTemplateOfRow));
    const found = results.flatMap((result) =>
      matchScanFinding(result, index).map(({ finding, match }) => ({ result: finding, match })),
    );
    const templates = await this.matchedTemplates(trx, found, language);
    return found.map(({ result, match }) => ({
      result,
      match: match
        ? {
            template: templates.get(match.templateKey)!,
            matchedOn: match.matchedOn,
            confidence: match.confidence,
            detail: match.detail,
          }
        : null,
    }));
  }

  /** The templates that matched, by id, with their content in the report's language where they have it. */
  private async matchedTemplates(
    trx: Knex,
    found: ReadonlyArray<{ match: LibraryMatch | null }>,
    language: string,
  ): Promise<Map<string, MatchedTemplate>> {
    const ids = [...new Set(found.flatMap(({ match }) => (match ? [match.templateKey] : [])))];
    const templates = new Map<string, MatchedTemplate>();
    if (ids.length === 0) return templates;
    const matched = (await trx('finding_templates')
      .whereIn('id', ids)
      .select('id', 'global_key', 'language', 'translations', ...FINDING_CONTENT_COLUMNS)) as Array<
      FindingContentColumns & {
        id: string;
        global_key: string | null;
        language: string;
        translations: Record<string, FindingTranslation>;
      }
    >;
    const wanted = primaryLanguage(language);
    for (const t of matched) {
      const content = findingContentFromColumns(t);
      const own = primaryLanguage(t.language) === wanted;
      const translation = own ? undefined : t.translations[wanted];
      templates.set(t.id, {
        id: t.id,
        globalKey: t.global_key,
        // Why only the translated fields: a translation may leave a section in the template's language.
        content: translation ? { ...content, ...translation } : content,
        untranslated: own || translation ? null : t.language,
      });
    }
    return templates;
  }
}
