import { t } from '../i18n/i18n.ts';

export interface Crumb {
  label: string;
  href?: string;
}

/** Where the page sits: client -> project -> report; the last one is the page itself. */
export function Breadcrumbs({ items }: { items: Crumb[] }) {
  return (
    <nav aria-label={t('Breadcrumbs')} class="breadcrumbs">
      <ol>
        {items.map((item, i) => (
          <li key={`${i}-${item.label}`}>
            {item.href && i < items.length - 1 ? (
              <a href={item.href}>{item.label}</a>
            ) : (
              <span aria-current={i === items.length - 1 ? 'page' : undefined}>{item.label}</span>
            )}
          </li>
        ))}
      </ol>
    </nav>
  );
}
