import {
  FINDING_FIELD_NAMES,
  FINDING_FIELDS,
  PROJECT,
  REPORT,
  type FindingFieldName,
  type ProjectFieldName,
  type ReportFieldName,
  type AssetRetestStatus,
  type FindingStatus,
  type ReportStatus,
  type RetestStatus,
  type Severity,
} from '@service/report-model';

/**
 * Every word a document prints that does not come from the report itself, in each language the
 * documents are written in: headings, table headers, cover page texts, severity and status names,
 * notes, and the labels of the finding fields. Both renderers and the PDF read them from here.
 *
 * Keys without `{...}` parameters are also template tags (`{label.<key>}`, see `LABEL_TAGS`).
 * A key ending in `_one` / `_other` is one message chosen by the count's plural category.
 * English finding field labels are the report model's own (`FINDING_FIELDS[name].label`); every
 * other language must translate each of them (`field.<name>`), and the type below makes a
 * missing key a compile error as well as a test failure.
 */
const ENGLISH_TEXTS = {
  // Headings and sections
  contents: 'Contents',
  summary: 'Summary',
  findings: 'Findings',
  findingsOverview: 'Findings overview',
  summaryOfFindings: 'Summary of findings',
  links: 'Links',
  evidence: 'Evidence',
  evidencePerAsset: 'Evidence per asset',
  evidenceAppendix: 'Scanner evidence',
  evidenceAppendixIntro:
    'The complete evidence the scanners recorded for each affected asset whose finding shows an excerpt of it.',
  excerpt: 'Excerpt',
  fullEvidence: 'Full evidence',
  noFindings: 'No findings were identified during this assessment.',
  // Cover page
  securityAssessmentReport: 'Security assessment report',
  client: 'Client',
  project: 'Project',
  testingPeriod: 'Testing period',
  reportStatus: 'Report status',
  date: 'Date',
  // Headers and footers: "Page 3 of 12"
  page: 'Page',
  of: 'of',
  // Table headers and fact labels
  number: '#',
  finding: 'Finding',
  total: 'Total',
  vector: 'Vector',
  noVector: 'no vector',
  cve: 'CVE',
  cwe: 'CWE',
  host: 'Host',
  service: 'Service',
  url: 'URL',
  urlParameter: 'URL / parameter',
  parameter: 'Parameter',
  asset: 'Asset',
  figure: 'Figure',
  findingsBySeverity: 'Findings by severity',
  // Values
  'severity.critical': 'Critical',
  'severity.high': 'High',
  'severity.medium': 'Medium',
  'severity.low': 'Low',
  'severity.info': 'Informational',
  'status.open': 'Open',
  'status.resolved': 'Resolved',
  'status.accepted-risk': 'Accepted risk',
  'status.false-positive': 'False positive',
  'reportStatus.draft': 'Draft',
  'reportStatus.review': 'In review',
  'reportStatus.final': 'Final',
  // Messages with parameters (not template tags)
  figureNumber: 'Figure {number}: ',
  parameterNamed: 'parameter: {name}',
  findingsInTotal_one: '{count} finding in total',
  findingsInTotal_other: '{count} findings in total',
  assetsListedCompactly: '{count} assets, listed three to a row as host:port/protocol and URL.',
  evidenceCharactersLeftOut: '[{count} more characters of this evidence are not shown]',
  excerptLinesLeftOut_one: '[… {count} line left out]',
  excerptLinesLeftOut_other: '[… {count} lines left out]',
  excerptHeadersLeftOut_one: '[… {count} header left out]',
  excerptHeadersLeftOut_other: '[… {count} headers left out]',
  evidenceAssetsLeftOut_one: '[The evidence of {count} more asset is not shown]',
  evidenceAssetsLeftOut_other: '[The evidence of {count} more assets is not shown]',
  evidenceAssetsInAppendix_one: '[The evidence of {count} more asset is {range} in “{appendix}”]',
  evidenceAssetsInAppendix_other: '[The evidence of {count} more assets is {range} in “{appendix}”]',
  evidenceNumber: 'E{number}',
  fullEvidenceIn: 'Full evidence: {ref} in “{appendix}”',
  imageNotFound: '[Image {name} was not found]',
  imageUnsupported: '[Image {name} cannot be embedded ({detail}; use PNG, JPEG, GIF or WebP)]',
  imageTooLarge: '[Image {name} is too large to embed ({detail})]',
  imageUnreadable: '[Image {name} could not be read]',
  imageNotEvidence: '[Image {name}: only evidence images of this report are shown]',
  imageElsewhere: '[image: {name}]',
  // Retests (issue 20)
  retest: 'Retest',
  retestResults: 'Retest results',
  retestRound: 'Round',
  retestOf: 'Retest of',
  originalReport: 'Original report',
  retestStatus: 'Retest status',
  originalSeverity: 'Original severity',
  retestDate: 'Retest date',
  retestNotes: 'Retest notes',
  retestEvidence: 'Retest evidence',
  retestEvidencePerAsset: 'Retest evidence per asset',
  statusPerAsset: 'Status per asset',
  statusSetByTester: 'Set by the tester',
  riskAccepted: 'Risk accepted by the client',
  resolvedAndOpen: 'Resolved and open findings',
  'retestStatus.not_retested': 'Not retested',
  'retestStatus.resolved': 'Resolved',
  'retestStatus.partially_resolved': 'Partially resolved',
  'retestStatus.unresolved': 'Unresolved',
  'retestStatus.new': 'New',
  retestIntro: 'Round {round} of the retest of "{title}": the status of each finding and affected asset.',
  retestIntroUnlinked: 'Round {round} of the retest: the status of each finding and affected asset.',
  findingsResolvedOf_one: '{resolved} of {count} finding resolved, {open} open',
  findingsResolvedOf_other: '{resolved} of {count} findings resolved, {open} open',
} as const;

type StaticKey = keyof typeof ENGLISH_TEXTS;
export type FieldLabelKey = `field.${FindingFieldName}`;
export type ReportFieldLabelKey = `reportField.${ReportFieldName}`;
export type ProjectFieldLabelKey = `projectField.${ProjectFieldName}`;
export type MessageKey = StaticKey | FieldLabelKey | ReportFieldLabelKey | ProjectFieldLabelKey;
export type MessageCatalogue = Readonly<Record<MessageKey, string>>;

const fieldLabels = Object.fromEntries(
  FINDING_FIELD_NAMES.map((name) => [`field.${name}`, FINDING_FIELDS[name].label]),
) as Record<FieldLabelKey, string>;
const reportFieldLabels = Object.fromEntries(
  REPORT.entries.map(([name, f]) => [`reportField.${name}`, f.label]),
) as Record<ReportFieldLabelKey, string>;
const projectFieldLabels = Object.fromEntries(
  PROJECT.entries.map(([name, f]) => [`projectField.${name}`, f.label]),
) as Record<ProjectFieldLabelKey, string>;

export const ENGLISH: MessageCatalogue = {
  ...ENGLISH_TEXTS,
  ...fieldLabels,
  ...reportFieldLabels,
  ...projectFieldLabels,
};

export const GERMAN: MessageCatalogue = {
  contents: 'Inhalt',
  summary: 'Zusammenfassung',
  findings: 'Befunde',
  findingsOverview: 'Befunde im Überblick',
  summaryOfFindings: 'Übersicht der Befunde',
  links: 'Links',
  evidence: 'Nachweise',
  evidencePerAsset: 'Nachweise je System',
  evidenceAppendix: 'Scanner-Nachweise',
  evidenceAppendixIntro:
    'Die vollständigen Nachweise der Scanner für jedes betroffene System, dessen Befund einen Auszug daraus zeigt.',
  excerpt: 'Auszug',
  fullEvidence: 'Vollständiger Nachweis',
  noFindings: 'Bei dieser Prüfung wurden keine Befunde festgestellt.',
  securityAssessmentReport: 'Bericht zur Sicherheitsprüfung',
  client: 'Kunde',
  project: 'Projekt',
  testingPeriod: 'Prüfzeitraum',
  reportStatus: 'Berichtsstatus',
  date: 'Datum',
  page: 'Seite',
  of: 'von',
  number: 'Nr.',
  finding: 'Befund',
  total: 'Gesamt',
  vector: 'Vektor',
  noVector: 'kein Vektor',
  cve: 'CVE',
  cwe: 'CWE',
  host: 'Host',
  service: 'Dienst',
  url: 'URL',
  urlParameter: 'URL / Parameter',
  parameter: 'Parameter',
  asset: 'System',
  figure: 'Abbildung',
  findingsBySeverity: 'Befunde nach Schweregrad',
  'severity.critical': 'Kritisch',
  'severity.high': 'Hoch',
  'severity.medium': 'Mittel',
  'severity.low': 'Niedrig',
  'severity.info': 'Informativ',
  'status.open': 'Offen',
  'status.resolved': 'Behoben',
  'status.accepted-risk': 'Risiko akzeptiert',
  'status.false-positive': 'Fehlalarm',
  'reportStatus.draft': 'Entwurf',
  'reportStatus.review': 'In Prüfung',
  'reportStatus.final': 'Final',
  figureNumber: 'Abbildung {number}: ',
  parameterNamed: 'Parameter: {name}',
  findingsInTotal_one: '{count} Befund insgesamt',
  findingsInTotal_other: '{count} Befunde insgesamt',
  assetsListedCompactly: '{count} Systeme, je drei in einer Zeile als Host:Port/Protokoll und URL.',
  evidenceCharactersLeftOut: '[{count} weitere Zeichen dieses Nachweises sind nicht abgedruckt]',
  excerptLinesLeftOut_one: '[… {count} Zeile ausgelassen]',
  excerptLinesLeftOut_other: '[… {count} Zeilen ausgelassen]',
  excerptHeadersLeftOut_one: '[… {count} Header ausgelassen]',
  excerptHeadersLeftOut_other: '[… {count} Header ausgelassen]',
  evidenceAssetsLeftOut_one: '[Der Nachweis {count} weiteren Systems ist nicht abgedruckt]',
  evidenceAssetsLeftOut_other: '[Die Nachweise {count} weiterer Systeme sind nicht abgedruckt]',
  evidenceAssetsInAppendix_one: '[Der Nachweis {count} weiteren Systems steht unter {range} in „{appendix}“]',
  evidenceAssetsInAppendix_other: '[Die Nachweise {count} weiterer Systeme stehen unter {range} in „{appendix}“]',
  evidenceNumber: 'N{number}',
  fullEvidenceIn: 'Vollständiger Nachweis: {ref} in „{appendix}“',
  imageNotFound: '[Bild {name} wurde nicht gefunden]',
  imageUnsupported: '[Bild {name} kann nicht eingebettet werden ({detail}; PNG, JPEG, GIF oder WebP verwenden)]',
  imageTooLarge: '[Bild {name} ist zu groß zum Einbetten ({detail})]',
  imageUnreadable: '[Bild {name} konnte nicht gelesen werden]',
  imageNotEvidence: '[Bild {name}: Es werden nur Nachweisbilder dieses Berichts gezeigt]',
  imageElsewhere: '[Bild: {name}]',
  retest: 'Retest',
  retestResults: 'Ergebnisse des Retests',
  retestRound: 'Runde',
  retestOf: 'Retest zu',
  originalReport: 'Ursprünglicher Bericht',
  retestStatus: 'Status im Retest',
  originalSeverity: 'Ursprünglicher Schweregrad',
  retestDate: 'Datum des Retests',
  retestNotes: 'Anmerkungen zum Retest',
  retestEvidence: 'Nachweise des Retests',
  retestEvidencePerAsset: 'Nachweise des Retests je System',
  statusPerAsset: 'Status je System',
  statusSetByTester: 'Vom Prüfer festgelegt',
  riskAccepted: 'Risiko vom Kunden akzeptiert',
  resolvedAndOpen: 'Behobene und offene Befunde',
  'retestStatus.not_retested': 'Nicht erneut geprüft',
  'retestStatus.resolved': 'Behoben',
  'retestStatus.partially_resolved': 'Teilweise behoben',
  'retestStatus.unresolved': 'Nicht behoben',
  'retestStatus.new': 'Neu',
  retestIntro: 'Runde {round} des Retests zu „{title}“: der Status jedes Befunds und jedes betroffenen Systems.',
  retestIntroUnlinked: 'Runde {round} des Retests: der Status jedes Befunds und jedes betroffenen Systems.',
  findingsResolvedOf_one: '{resolved} von {count} Befund behoben, {open} offen',
  findingsResolvedOf_other: '{resolved} von {count} Befunden behoben, {open} offen',
  'field.title': 'Titel',
  'field.severity': 'Schweregrad',
  'field.status': 'Status',
  'field.cvss': 'CVSS',
  'field.cves': 'CVEs',
  'field.cwes': 'CWEs',
  'field.affectedAssets': 'Betroffene Systeme',
  'field.description': 'Beschreibung',
  'field.impact': 'Auswirkung',
  'field.remediation': 'Empfehlung',
  'field.references': 'Referenzen',
  'field.source': 'Quelle',
  'field.severityReason': 'Begründung der Einstufung',
  'field.details': 'Details',
  'reportField.title': 'Titel',
  'reportField.status': 'Berichtsstatus',
  'reportField.language': 'Sprache',
  'reportField.summary': 'Zusammenfassung',
  'reportField.findingOrder': 'Reihenfolge der Befunde',
  'projectField.name': 'Projekt',
  'projectField.projectType': 'Projektart',
  'projectField.description': 'Beschreibung',
  'projectField.status': 'Projektstatus',
  'projectField.startDate': 'Beginn',
  'projectField.endDate': 'Ende',
};

/** The catalogues by primary language subtag; any other language is written in English. */
export const CATALOGUES: Readonly<Record<string, MessageCatalogue>> = { en: ENGLISH, de: GERMAN };

export const severityKey = (s: Severity) => `severity.${s}` as const;
export const findingStatusKey = (s: FindingStatus) => `status.${s}` as const;
export const reportStatusKey = (s: ReportStatus) => `reportStatus.${s}` as const;
export const retestStatusKey = (s: RetestStatus | AssetRetestStatus) => `retestStatus.${s}` as const;
export const fieldLabelKey = (name: FindingFieldName): FieldLabelKey => `field.${name}`;
export const reportFieldLabelKey = (name: ReportFieldName): ReportFieldLabelKey => `reportField.${name}`;
export const projectFieldLabelKey = (name: ProjectFieldName): ProjectFieldLabelKey => `projectField.${name}`;

/**
 * The template tag of each message without parameters: `label.<key>`, with a finding field's
 * label as `label.<field name>` (`{label.affectedAssets}`), severity and status names as
 * `label.severity.high`, `label.status.open`, `label.reportStatus.final`.
 */
export const LABEL_TAGS: ReadonlyArray<{ tag: string; key: MessageKey }> = (Object.keys(ENGLISH) as MessageKey[])
  .filter((key) => !ENGLISH[key].includes('{') && !/_(one|other)$/.test(key))
  .map((key) => ({ tag: `label.${key.startsWith('field.') ? key.slice('field.'.length) : key}`, key }));
