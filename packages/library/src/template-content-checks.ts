// The content rules a finding template must meet besides its form: a severity its own score
// agrees with, CVSS 3.1 and 4.0 vectors describing the same attack, wording that fits the
// severity, weakness-level CWEs and current references. `readFindingTemplate` applies them.
import { primaryCvssRating, SCANNER_TEXT_PLACEHOLDERS, severityFromCvssScore, type Cvss } from '@service/report-model';

/** Why the severity is outside the band of the newest vector's score (the rule REST writes apply), or null. */
export function severityBandProblem(severity: string, cvss: readonly Cvss[]): string | null {
  const rating = primaryCvssRating(cvss);
  if (rating === null) return null;
  const band = severityFromCvssScore(rating.baseScore);
  if (band === severity) return null;
  return (
    `the severity ${severity} is outside the band of the newest CVSS vector (CVSS ${rating.version} ` +
    `${rating.baseScore.toFixed(1)} is ${band}); change the severity or the vector`
  );
}

const metricsOf = (vector: string): Map<string, string> =>
  new Map(
    vector
      .split('/')
      .slice(1)
      .map((part) => part.split(':') as [string, string]),
  );

/**
 * The metrics a CVSS 3.1 and a 4.0 vector share, where they disagree: attack vector, privileges
 * required, user interaction (3.1 R is 4.0 P or A), and attack complexity (3.1 AC:H is 4.0 AC:H
 * or AT:P: a condition beyond the attacker's control).
 */
export function vectorDisagreements(cvss: readonly Cvss[]): string[] {
  const v3 = cvss.find((c) => c.version === '3.1')?.vector;
  const v4 = cvss.find((c) => c.version === '4.0')?.vector;
  if (!v3 || !v4) return [];
  const a = metricsOf(v3);
  const b = metricsOf(v4);
  const out: string[] = [];
  for (const metric of ['AV', 'PR'])
    if (a.get(metric) !== b.get(metric)) out.push(`${metric} (${a.get(metric)} in 3.1, ${b.get(metric)} in 4.0)`);
  if ((a.get('UI') === 'N') !== (b.get('UI') === 'N')) out.push(`UI (${a.get('UI')} in 3.1, ${b.get('UI')} in 4.0)`);
  const hard3 = a.get('AC') === 'H';
  const hard4 = b.get('AC') === 'H' || b.get('AT') === 'P';
  if (hard3 !== hard4)
    out.push(`attack complexity (AC:${a.get('AC')} in 3.1, AC:${b.get('AC')}/AT:${b.get('AT')} in 4.0)`);
  return out;
}

/** Words that call the finding itself informational, in the library's languages. */
const INFORMATIONAL =
  /\b(this is an? informational|an informational (finding|observation|result)|purely informational|for information only|no action is required)\b|\b(es handelt sich um einen informativen Befund|ein informativer Befund|rein informativ|dient nur zur Information|kein Handlungsbedarf)/i;
/** Words that rate the finding itself a high risk, which an informational template must not use. */
const RISK =
  /\b(this is an? (critical|high|serious|severe)[- ](risk|severity)? ?(finding|vulnerability|issue)|(high|critical)[- ](risk|severity) (finding|vulnerability))\b|\b(Befund mit (hohem|kritischem) Risiko|es handelt sich um eine (kritische|schwerwiegende) Schwachstelle)/i;

/** Why a text's wording contradicts the template's severity, or null. */
export function wordingProblem(severity: string, text: string): string | null {
  if (severity !== 'info') {
    const m = INFORMATIONAL.exec(text);
    return m ? `a ${severity} template says "${m[0]}": wording for informational findings only` : null;
  }
  const m = RISK.exec(text);
  return m ? `an informational template says "${m[0]}": it rates the finding as a risk` : null;
}

/** CWE pillars: the most abstract weaknesses, for use only where nothing narrower fits (CWE 4.x). */
const PILLARS = new Set([284, 435, 664, 682, 691, 693, 697, 703, 707, 710]);
/** CWE categories and views: groupings, never a weakness a finding can be mapped to. */
const CATEGORIES = new Set([
  1, 2, 16, 17, 18, 19, 21, 133, 136, 137, 189, 199, 227, 251, 254, 255, 264, 265, 275, 310, 320, 355, 361, 371, 387,
  388, 389, 398, 399, 411, 417, 418, 429, 438, 442, 445, 452, 465, 485, 557, 569, 630, 633, 634, 635, 658, 659, 660,
  661, 677, 699, 700, 701, 711, 712, 713, 714, 715, 716, 717, 718, 719, 720, 721, 722, 723, 724, 725, 726, 727, 728,
  729, 730, 731, 735, 736, 737, 738, 739, 740, 741, 742, 743, 744, 745, 746, 747, 748, 750, 751, 752, 753, 800, 801,
  802, 803, 808, 809, 810, 811, 812, 813, 814, 815, 816, 817, 818, 819, 840, 844, 845, 846, 847, 848, 849, 850, 851,
  852, 853, 854, 855, 856, 857, 858, 859, 860, 861, 864, 865, 867, 868, 869, 870, 871, 872, 873, 874, 875, 876, 877,
  878, 879, 880, 881, 882, 883, 884, 885, 886, 887, 888, 889, 890, 891, 892, 893, 894, 895, 896, 897, 898, 899, 900,
  901, 902, 903, 904, 905, 906, 907, 919, 928, 929, 930, 931, 932, 933, 934, 935, 936, 937, 938, 944, 945, 946, 947,
  948, 949, 950, 951, 952, 953, 954, 955, 956, 957, 958, 959, 960, 961, 962, 963, 964, 965, 966, 967, 968, 969, 970,
  971, 972, 973, 974, 975, 976, 977, 978, 979, 980, 981, 982, 983, 984, 985, 986, 987, 988, 989, 990, 991, 992, 993,
  994, 995, 996, 997, 998, 999, 1000, 1003, 1005, 1006, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 1015, 1016, 1017,
  1018, 1019, 1020, 1026, 1027, 1028, 1029, 1030, 1031, 1032, 1033, 1034, 1035, 1036, 1081, 1128, 1129, 1130, 1131,
  1132, 1133, 1134, 1135, 1136, 1137, 1138, 1139, 1140, 1141, 1142, 1143, 1144, 1145, 1146, 1147, 1148, 1149, 1150,
  1151, 1152, 1153, 1154, 1155, 1156, 1157, 1158, 1159, 1160, 1161, 1162, 1163, 1164, 1165, 1166, 1167, 1168, 1169,
  1170, 1171, 1172, 1173, 1174, 1175, 1176, 1177, 1178, 1179, 1180, 1181, 1182, 1183, 1184, 1185, 1186, 1194, 1195,
  1196, 1197, 1198, 1199, 1200, 1201, 1202, 1203, 1205, 1206, 1207, 1208, 1210, 1211, 1212, 1213, 1214, 1215, 1216,
  1217, 1218, 1219, 1225, 1226, 1227, 1228, 1237, 1238, 1305, 1306, 1307, 1308, 1309, 1340, 1343, 1344, 1345, 1346,
  1347, 1348, 1349, 1350, 1352, 1353, 1354, 1355, 1356, 1358, 1359, 1360, 1361, 1362, 1363, 1364, 1365, 1366, 1367,
  1368, 1369, 1370, 1371, 1372, 1373, 1374, 1375, 1376, 1377, 1378, 1379, 1380, 1381, 1382, 1383, 1387, 1388, 1396,
  1397, 1398, 1399, 1400, 1401, 1402, 1403, 1404, 1405, 1406, 1407, 1408, 1409, 1410, 1411, 1412, 1413, 1414, 1415,
  1416, 1417, 1418, 1424, 1425,
]);

export const isPillar = (cwe: number): boolean => PILLARS.has(cwe);

/** Why a CWE is not a weakness to map a finding to, or null. */
export function cweProblem(cwe: number): string | null {
  if (CATEGORIES.has(cwe)) return `CWE-${cwe} is a category or view, not a weakness; map the weakness itself`;
  if (PILLARS.has(cwe))
    return `CWE-${cwe} is a pillar (the most abstract level); map the narrower weakness the finding is (a class, base or variant)`;
  return null;
}

/** References replaced by a newer edition, with the edition to cite instead. */
const SUPERSEDED: ReadonlyArray<{ pattern: RegExp; instead: string }> = [
  {
    pattern: /^https:\/\/owasp\.org\/Top10\/A\d{2}_2021-/i,
    instead: 'the OWASP Top 10:2025 category (https://owasp.org/Top10/2025/...)',
  },
  { pattern: /^https:\/\/owasp\.org\/www-project-top-ten\/2017\//i, instead: 'the OWASP Top 10:2025 category' },
  {
    pattern: /^https:\/\/pages\.nist\.gov\/800-63-3\//i,
    instead: 'NIST SP 800-63-4 (https://pages.nist.gov/800-63-4/...)',
  },
  { pattern: /NIST\.SP\.800-63-?3|NIST\.SP\.800-63[abc]\.pdf/i, instead: 'NIST SP 800-63-4' },
];

/** Why a reference is superseded, or null. */
export function supersededReference(url: string): string | null {
  const found = SUPERSEDED.find((s) => s.pattern.test(url));
  return found ? `${url} is superseded: cite ${found.instead}` : null;
}

/** The one German word for a finding, as the German export writes it; others a reader would take for something else. */
export const GERMAN_FINDING_TERM = 'Befund';
const OTHER_GERMAN_TERMS = /\b(Feststellung(en)?|Schwachstellenbefund(e)?)\b/;

/** Why a German text names a finding other than "Befund", or null. */
export function germanTermProblem(text: string): string | null {
  const m = OTHER_GERMAN_TERMS.exec(text);
  return m ? `German text calls a finding "${GERMAN_FINDING_TERM}" throughout, found "${m[0]}"` : null;
}

/** Why a text holds a `{{scanner.…}}` placeholder the import does not fill, or null (other braces are text, such as AngularJS `{{ }}`). */
export function placeholderProblem(text: string): string | null {
  for (const m of text.matchAll(/\{\{\s*(scanner\.[^}]*?)\s*\}\}/g))
    if (!(SCANNER_TEXT_PLACEHOLDERS as readonly string[]).includes(m[1]!))
      return `{{${m[1]}}} is no placeholder an import fills (${SCANNER_TEXT_PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')})`;
  return null;
}
