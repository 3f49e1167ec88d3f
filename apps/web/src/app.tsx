import { useState } from 'preact/hooks';
import { ErrorBoundary, lazy, LocationProvider, Route, Router } from 'preact-iso';
import { api } from './api/api-client.ts';
import { LANGUAGES, language, setLanguage, t, type Language } from './i18n/i18n.ts';
import { ClientPage } from './pages/client-page.tsx';
import { ClientsPage } from './pages/clients-page.tsx';
import { ProjectPage } from './pages/project-page.tsx';
import { ProjectsPage } from './pages/projects-page.tsx';
import { ReportsPage } from './pages/reports-page.tsx';
import { TrashPage } from './pages/trash-page.tsx';
import { isAdmin, sessionUser } from './session.ts';
import { NotFoundPage } from './ui/not-found-page.tsx';

// Why lazy: the editors (CodeMirror, the Markdown dialect, CVSS scoring) load only when a report is opened.
const ReportPage = lazy(() => import('./pages/report-page.tsx').then((m) => m.ReportPage));
const FindingPage = lazy(() => import('./pages/finding-page.tsx').then((m) => m.FindingPage));
const LibraryPage = lazy(() => import('./pages/library-page.tsx').then((m) => m.LibraryPage));

const NAV = [
  { href: '/reports', label: 'Reports' },
  { href: '/clients', label: 'Clients' },
  { href: '/projects', label: 'Projects' },
  { href: '/library', label: 'Library' },
];

function TopBar({ onLanguage }: { onLanguage(l: Language): void }) {
  const user = sessionUser();
  const here = location.pathname;
  const links = [
    ...NAV,
    ...(isAdmin(user) ? [{ href: '/trash', label: 'Trash' }] : []),
    { href: '/profile/api-keys', label: 'API keys' },
    ...(isAdmin(user) ? [{ href: '/admin', label: 'Administration' }] : []),
  ];
  const signOut = async () => {
    await api.POST('/api/auth/logout', { params: { header: { 'X-Requested-With': 'XMLHttpRequest' } } });
    location.href = '/';
  };
  return (
    <header class="topbar">
      <div class="wrap">
        <a class="brand" href="/reports">
          service
        </a>
        <nav aria-label={t('Workspace')}>
          {links.map((l) => (
            <a key={l.href} href={l.href} aria-current={here.startsWith(l.href) ? 'page' : undefined}>
              {t(l.label)}
            </a>
          ))}
        </nav>
        <div class="who">
          <label class="language">
            <span class="visually-hidden">{t('Interface language')}</span>
            <select value={language()} onChange={(e) => onLanguage(e.currentTarget.value as Language)}>
              {LANGUAGES.map((l) => (
                <option key={l} value={l}>
                  {l === 'en' ? 'English' : 'Deutsch'}
                </option>
              ))}
            </select>
          </label>
          <span class="who-name">{user.name}</span> <span class="badge">{t(user.role)}</span>
          <button type="button" class="button secondary" onClick={() => void signOut()}>
            {t('Sign out')}
          </button>
        </div>
      </div>
    </header>
  );
}

export function App() {
  const [lang, setLang] = useState(language());
  const switchLanguage = (next: Language) => {
    setLanguage(next);
    setLang(next);
  };
  return (
    <LocationProvider>
      <div key={lang}>
        <a class="skip-link" href="#main">
          {t('Skip to content')}
        </a>
        <TopBar onLanguage={switchLanguage} />
        <main id="main" class="wrap" tabIndex={-1}>
          <ErrorBoundary>
            <Router>
              <Route path="/reports" component={ReportsPage} />
              <Route path="/reports/:id" component={ReportPage} />
              <Route path="/reports/:id/:section" component={ReportPage} />
              <Route path="/reports/:reportId/findings/:findingId" component={FindingPage} />
              <Route path="/clients" component={ClientsPage} />
              <Route path="/clients/:id" component={ClientPage} />
              <Route path="/projects" component={ProjectsPage} />
              <Route path="/projects/:id" component={ProjectPage} />
              <Route path="/library" component={LibraryPage} />
              <Route path="/library/:kind" component={LibraryPage} />
              <Route path="/trash" component={TrashPage} />
              <Route default component={NotFoundPage} />
            </Router>
          </ErrorBoundary>
        </main>
      </div>
    </LocationProvider>
  );
}
