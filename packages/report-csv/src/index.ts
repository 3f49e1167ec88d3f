export { CSV_COLUMNS, CSV_COLUMNS_OF_FIELD, neutralizeFormula, reportFindingsCsv } from './report-findings-csv.ts';
