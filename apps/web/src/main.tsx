import { render } from 'preact';
import { App } from './app.tsx';
import { language } from './i18n/i18n.ts';
import './styles/app.css';

document.documentElement.lang = language();
const root = document.getElementById('app');
if (root) render(<App />, root);
