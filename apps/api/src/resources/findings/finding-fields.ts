import { FINDING, FINDING_CONTENT } from '@service/report-model';
import { apiFieldsOf } from '../declared-api-fields.ts';

/** The content columns findings and finding templates share, from the report model's declaration. */
export const findingContentFields = apiFieldsOf(FINDING_CONTENT);

/** Every field of a finding, in the declaration's order. */
export const findingFields = apiFieldsOf(FINDING);
