export { CSV_COLUMNS, CSV_COLUMNS_OF_FIELD, neutralizeFormula, reportFindingsCsv } from './report-findings-csv.ts';
export { CSV_RETEST_COLUMNS, RETEST_STATUS_TEXT } from './retest-columns.ts';
