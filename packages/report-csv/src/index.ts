export { CSV_COLUMNS, neutralizeFormula, reportFindingsCsv } from './report-findings-csv.ts';
