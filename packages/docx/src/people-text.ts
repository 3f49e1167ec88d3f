import type { Person } from '@service/report-model';

/** A person as one line of text: `Jane Doe (Lead tester, Example Security)`. */
export function personText(p: Person): string {
  const about = [p.role, p.organization].filter((part) => part !== undefined && part.trim() !== '');
  return about.length > 0 ? `${p.name} (${about.join(', ')})` : p.name;
}

/** People as one line: `Jane Doe (Lead tester), John Roe`. */
export function peopleText(people: readonly Person[]): string {
  return people.map(personText).join(', ');
}
